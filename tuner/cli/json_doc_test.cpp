// Issue #43 item 5: docs/json.md lists every key of every --json output, and the outputs share one
// vocabulary. Each command runs with --json and its keys (a[].b for key b of the objects in array
// a; configurations, whose keys are parameter names, not descended into) must be exactly those of
// the document's table for it.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>

#include <nlohmann/json.hpp>

#include "cli/front_door.h"
#include "query/table.h"
#include "store/store.h"
#include "store/test_util.h"

using namespace tune::cli::testing;  // NOLINT

namespace {

// Objects whose keys are data (a configuration's parameter names, option names, settings).
const std::set<std::string> kOpaque = {"params",           "tied",     "winner",       "single_best",
                                       "strategy_options", "settings", "time_optimal", "energy_optimal"};

void keys(const nlohmann::json& j, const std::string& prefix, std::set<std::string>& out) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string path = prefix.empty() ? it.key() : prefix + "." + it.key();
      out.insert(path);
      if (!kOpaque.count(it.key())) keys(it.value(), path, out);
    }
  } else if (j.is_array()) {
    for (const auto& e : j) keys(e, prefix + "[]", out);
  }
}

std::set<std::string> keys_of(const std::string& text) {
  std::set<std::string> out;
  keys(nlohmann::json::parse(text), "", out);
  return out;
}

// The document's key tables, by the command in each section's heading ("## `tune best --json`").
std::map<std::string, std::set<std::string>> documented() {
  std::ifstream f(kSource + "/docs/json.md");
  std::map<std::string, std::set<std::string>> out;
  std::string section;
  const std::regex heading("^## `(tune [^`]*--json)`"), row("^\\| `([^`]+)` \\|");
  for (std::string line; std::getline(f, line);) {
    std::smatch m;
    if (line.rfind("## ", 0) == 0) section = std::regex_search(line, m, heading) ? m[1].str() : "";
    if (!section.empty() && std::regex_search(line, m, row)) out[section].insert(m[1].str());
  }
  return out;
}

std::string diff(const std::set<std::string>& actual, const std::set<std::string>& doc) {
  std::string s;
  for (const auto& k : actual)
    if (!doc.count(k)) s += " +" + k;
  for (const auto& k : doc)
    if (!actual.count(k)) s += " -" + k;
  return s.empty() ? "" : "output (+) and docs/json.md (-) differ:" + s;
}

struct JsonDoc : ::testing::Test {
  tune::store::testing::TempDir t;
  std::string db = t.file("r.db");
  std::map<std::string, std::set<std::string>> doc = documented();
  void SetUp() override {
    const Ran r = run("--space " + kTranspose + " --replay " + two_caches() + " --strategy brute_force --db " + db);
    ASSERT_EQ(r.code, 0) << r.err;
  }
  void check(const std::string& section, const std::string& args) {
    ASSERT_TRUE(doc.count(section)) << "docs/json.md has no section `" << section << "`";
    const Ran r = run(args);
    ASSERT_EQ(r.code, 0) << args << "\n" << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_TRUE(j.is_object()) << section << ": every --json output is one object";
    EXPECT_EQ(diff(keys_of(r.out), doc[section]), "") << section;
  }
};

}  // namespace

TEST_F(JsonDoc, Best) { check("tune best --json", "best --json --db " + db); }

// On a Kernel Tuner cache with NVMLObserver fields (tuner/interop/testdata).
TEST_F(JsonDoc, Pareto) {
  const std::string energy_db = t.file("energy.db");
  const Ran imported = run("import " + kSource + "/tuner/interop/testdata/kt_nvml_cache.json --db " + energy_db);
  ASSERT_EQ(imported.code, 0) << imported.err;
  check("tune best --pareto --json", "best --pareto --json --db " + energy_db);
}

TEST_F(JsonDoc, Db) { check("tune db --json", "db --json --db " + db); }

TEST_F(JsonDoc, Space) { check("tune space --json", "space --space " + kTranspose + " --json"); }

TEST_F(JsonDoc, Replay) {
  check("tune --replay ... --json", "--space " + kTranspose + " --replay " + kRecorded +
                                        "/306x306.json.gz --strategy random_sample --seed 3 --json --db " + db);
}

TEST_F(JsonDoc, Evaluate) {
  check("tune evaluate --json", "evaluate --space " + kTranspose + " --replay " + two_caches() +
                                    " --strategy random_sample,greedy_ils --repeats 3 --resamples 5 "
                                    "--leave-one-out --threads 2 --json");
}

// The end-of-run table of a GPU run, printed here from the replayed data (no GPU needed).
TEST_F(JsonDoc, RunTable) {
  const std::string section = "tune run --json";
  ASSERT_TRUE(doc.count(section));
  auto store = tune::store::Store::open(db, tune::store::Store::Mode::read_only);
  const auto devices = store.devices("transpose");
  ASSERT_FALSE(devices.empty());
  ::testing::internal::CaptureStdout();
  tune::query::print_run_table(store, "transpose", devices[0], store.sizes("transpose", devices[0]), {}, true);
  const std::string out = ::testing::internal::GetCapturedStdout();
  EXPECT_EQ(diff(keys_of(out), doc[section]), "");
}

// One vocabulary: a kernel's time is `time_ms` wherever it appears, and no key names a quantity
// without its unit the old way.
TEST_F(JsonDoc, OneVocabulary) {
  std::set<std::string> all;
  for (const auto& [section, keys] : doc) all.insert(keys.begin(), keys.end());
  for (const char* old :
       {"best_objective", "true_best_objective", "optimum", "median", "seconds", "wall_seconds", "best", "scores"})
    for (const auto& k : all) EXPECT_NE(k.substr(k.rfind('.') + 1), old) << k;
}

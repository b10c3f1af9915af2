// Online tuning's result file (runtime/online.h: online_file_text): what `tune import` reads back
// into the database the tables are made from, and the broken files it refuses, naming the field.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "common/error.h"
#include "header/header.h"
#include "interop/interop.h"
#include "runtime/online.h"
#include "runtime/test_util.h"
#include "spec/spec.h"
#include "tune/runtime.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::detail::OnlineRule;
using runtime::detail::Rotation;
using runtime::testing::Recorded;

namespace {

// An online result at 1000x999 over three of the table's variants; candidate 1 wins.
struct OnlineFixture {
  Recorded rec;
  runtime::detail::Table table = runtime::detail::load_table(rec.table, rec.spec);
  Rotation rotation{3, OnlineRule{24, 8, 8}};
  runtime::detail::OnlineResult result;
  fs::path file;

  OnlineFixture() {
    for (int i = 0; i < 24; ++i) {
      const std::size_t c = rotation.next();
      rotation.sample(c, c == 1 ? 0.010 + 1e-4 * (i % 3) : 0.013);
    }
    result.kernel = "transpose";
    result.space_hash = spec::space_hash(rec.spec);
    result.device = "NVIDIA H200";
    result.cc_major = 9;
    result.size = {1000, 999};
    for (const auto& p : rec.spec.parameters) {
      result.parameters.push_back(p.name);
      result.spec_values.push_back(p.values);
    }
    for (std::size_t v = 0; v < 3; ++v) result.candidates.push_back(table.variants[v]);
    result.rotation = &rotation;
    result.placements = 2;
    result.inputs_copied = true;
    file = rec.dir.path() / runtime::detail::online_file_name(result);
    std::ofstream(file) << runtime::detail::online_file_text(result);
  }
};

}  // namespace

TEST(OnlineFile, TuneImportReadsItIntoTheTablesDatabase) {
  OnlineFixture f;
  ASSERT_TRUE(f.rotation.settled());
  EXPECT_EQ(f.file.filename().string(), "transpose-NVIDIA_H200-1000x999.online.json");
  const auto r = interop::import_file(f.rec.db, f.file, {});
  EXPECT_EQ(r.format, "tune online");
  EXPECT_EQ(r.size, "1000x999");
  EXPECT_EQ(r.added, 3u);
  EXPECT_EQ(r.space_hash, spec::space_hash(f.rec.spec));
  // The run keeps the rule, how the samples were taken included.
  bool found = false;
  for (const auto& run : f.rec.db.runs("transpose")) {
    const auto notes = nlohmann::json::parse(run.notes.empty() ? "{}" : run.notes);
    if (run.kind != store::RunKind::import || notes.value("format", "") != "tune online") continue;
    const auto& rule = notes.at("header").at("tune_online").at("rule");
    EXPECT_EQ(rule.at("held"), f.rotation.rule().held());
    EXPECT_EQ(rule.at("batch"), f.rotation.rule().batch);
    EXPECT_EQ(rule.at("placements"), 2);
    EXPECT_EQ(rule.at("inputs_copied"), true);
    EXPECT_EQ(rule.at("statistic"), "median");
    found = true;
  }
  EXPECT_TRUE(found);
  // Imported again: nothing new.
  EXPECT_EQ(interop::import_file(f.rec.db, f.file, {std::nullopt, std::nullopt, &f.rec.spec}).added, 0u);
  // The table made from the database now has the size, with the online winner, as an exact entry.
  const auto model = header::build(f.rec.db, "transpose", f.rec.spec);
  const fs::path table = f.rec.dir.path() / "after.json";
  std::ofstream(table) << header::generate_table(model, "r.db");
  const auto after = runtime::detail::load_table(table, f.rec.spec);
  const auto pick = runtime::detail::select(after, "NVIDIA H200", 9, 0, {1000, 999, 1});
  EXPECT_EQ(pick.match, runtime::Match::exact);
  EXPECT_EQ(after.variants[pick.variant], f.table.variants[1]);
}

TEST(OnlineFile, BrokenFilesAreRefusedWithTheField) {
  OnlineFixture f;
  std::stringstream text;
  text << std::ifstream(f.file).rdbuf();
  const std::string good = text.str();
  auto refused = [&](const std::string& from, const std::string& to) {
    std::string s = good;
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    s.replace(at, from.size(), to);
    const fs::path bad = f.rec.dir.path() / "bad.online.json";
    std::ofstream(bad) << s;
    try {
      interop::import_file(f.rec.db, bad, {});
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refused("\"winner\": 1", "\"winner\": 3").find("'winner'"), std::string::npos);
  EXPECT_NE(refused("\"version\": 1", "\"version\": 2").find("version 2"), std::string::npos);
  EXPECT_NE(refused("\"statistic\": \"median\"", "\"statistic\": \"mean\"").find("statistic"), std::string::npos);
  EXPECT_NE(refused("\"finalists\": 0", "\"finalists\": -4").find("'finalists'"), std::string::npos);
  EXPECT_NE(refused("\"samples_ms\": [", "\"samples_ms\": [-1,").find("finite time"), std::string::npos);
  EXPECT_NE(refused("\"problem_size\": [", "\"problem_size\": [0,").find("problem_size"), std::string::npos);
  EXPECT_NE(refused("\"space_hash\": \"", "\"space_hash\": \"x").find("space_hash"), std::string::npos);
  EXPECT_NE(refused("\"batch\": 1", "\"batch\": -5").find("'batch'"), std::string::npos);
  EXPECT_NE(refused("\"batch\": 1", "\"batch\": \"$(touch x)\"").find("'batch'"), std::string::npos);
  EXPECT_NE(refused("\"launches\": 24", "\"launches\": 1e300").find("'launches'"), std::string::npos);
  EXPECT_NE(refused("\"pick_margin\": 0.01", "\"pick_margin\": 7").find("pick_margin"), std::string::npos);
  EXPECT_NE(refused("\"held\": false", "\"held\": \"yes\"").find("'held'"), std::string::npos);
  EXPECT_NE(refused("\"inputs_copied\": true", "\"inputs_copied\": 1").find("'inputs_copied'"), std::string::npos);
  EXPECT_NE(refused("\"placements\": 2", "\"placements\": -2").find("'placements'"), std::string::npos);
  EXPECT_NE(refused("\"extra_ms\": ", "\"extra_ms\": \"x\", \"e\": ").find("extra_ms"), std::string::npos);
  EXPECT_NE(refused("\"compute_capability\": [", "\"compute_capability\": [\"x\",").find("compute_capability"),
            std::string::npos);
  // Nothing of a refused file is stored.
  EXPECT_TRUE(f.rec.db.measurements({.kernel = "transpose", .device = "NVIDIA H200", .size = "1000x999"}).empty());
}

// A candidate whose events all failed has nothing to read back: the file keeps it (the table's pick
// stays first), without samples, and `tune import` stores the others; a winner without samples is
// refused.
TEST(OnlineFile, ACandidateWithoutSamplesIsNotStored) {
  OnlineFixture f;
  Rotation r{4, OnlineRule{12, 1, 4, 1, false, 2}};
  for (int i = 0; i < 12; ++i) {
    const std::size_t c = r.next();
    r.sample(c, c == 0 ? -1.0 : 0.010 + 0.001 * double(c));  // candidate 0: no sample
  }
  ASSERT_TRUE(r.settled());
  ASSERT_EQ(r.winner(), 1u);
  f.result.candidates.push_back(f.table.variants[3]);
  f.result.rotation = &r;
  const std::string text = runtime::detail::online_file_text(f.result);
  const auto j = nlohmann::json::parse(text);
  ASSERT_EQ(j.at("candidates").size(), 4u);
  EXPECT_EQ(j.at("winner"), 1);
  EXPECT_TRUE(j.at("candidates").at(0).at("samples_ms").empty());
  EXPECT_EQ(j.at("rule").at("finalists"), 2);
  EXPECT_EQ(j.at("candidates").at(1).at("samples_ms").size(), 5u);  // 1 + 8 / 2
  const fs::path file = f.rec.dir.path() / "failed.online.json";
  std::ofstream(file) << text;
  EXPECT_EQ(interop::import_file(f.rec.db, file, {}).added, 3u);
  std::string no_winner = text;
  const std::string from = "\"winner\": 1";
  no_winner.replace(no_winner.find(from), from.size(), "\"winner\": 0");
  const fs::path bad = f.rec.dir.path() / "bad.online.json";
  std::ofstream(bad) << no_winner;
  try {
    interop::import_file(f.rec.db, bad, {});
    ADD_FAILURE() << "a winner without samples was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("'winner' has no samples"), std::string::npos) << e.what();
  }
}

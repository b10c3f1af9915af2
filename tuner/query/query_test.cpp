#include "query/query.h"
#include "query/labels.h"
#include "query/table.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

void add(store::Store& db, std::int64_t run, const std::string& device, const std::string& params,
         const std::string& size, std::vector<float> samples,
         store::MeasurementStatus status = store::MeasurementStatus::ok) {
  store::Measurement m;
  m.config_id = db.upsert_configuration_text("transpose", "h", params);
  m.run_id = run;
  m.device = device;
  m.size = sizes::Size::parse_label(size);
  m.status = status;
  if (status != store::MeasurementStatus::ok) m.error = "wrong result";
  m.samples_ms = std::move(samples);
  db.record(m);
}
}  // namespace

TEST(Query, BestPerDeviceAndSizeAndNearest) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "transpose";
  info.device = "H100";
  auto run = db.begin_run(info);
  add(db, run, "H100", R"({"tile":32})", "1024x1024", {2.0f, 2.1f, 1.9f});
  add(db, run, "H100", R"({"tile":64})", "1024x1024", {1.5f, 1.6f, 1.4f});
  add(db, run, "H100", R"({"tile":16})", "1024x1024", {0.5f}, store::MeasurementStatus::verification_failed);
  add(db, run, "H100", R"({"tile":32})", "4096x4096", {8.0f});
  add(db, run, "H100", R"({"tile":64})", "4096x4096", {9.0f});
  add(db, run, "H200", R"({"tile":64})", "4096x4096", {7.0f});

  auto all = query::best(db, {});
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].device, "H100");
  EXPECT_EQ(all[0].size, "1024x1024");
  EXPECT_EQ(all[0].params, R"({"tile":64})");  // the faster verified one, not the failed one
  EXPECT_EQ(all[0].candidates, 2u);
  EXPECT_DOUBLE_EQ(all[0].time_ms, 1.5);  // the mean of its samples, the objective
  EXPECT_TRUE(all[0].tied.empty());
  EXPECT_EQ(all[1].params, R"({"tile":32})");
  EXPECT_EQ(all[2].device, "H200");

  auto exact = query::best(db, {"transpose", "H100", "4096"});  // "4096" means 4096x4096
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_EQ(exact[0].match, tune_select::How::exact);
  EXPECT_EQ(exact[0].measured_size, "4096x4096");

  auto near = query::best(db, {"transpose", "H100", "1500x1500"});
  ASSERT_EQ(near.size(), 1u);
  EXPECT_EQ(near[0].match, tune_select::How::predicted);
  EXPECT_EQ(near[0].size, "1500x1500");
  EXPECT_EQ(near[0].measured_size, "1024x1024");
  EXPECT_EQ(near[0].params, R"({"tile":64})");
  // 4096x4096 has 7.5 times the elements: it reaches only kFar / 7.5, not this far.
  ASSERT_EQ(near[0].evidence.size(), 1u);
  EXPECT_EQ(near[0].evidence[0].size, "1024x1024");

  // 1.9 times: it reaches. Both sizes count, nearly evenly (weights 1.50 and 0.63): tile 32 (1.33
  // at 1024, 1.00 at 4096) and tile 64 (1.00, 1.125) are predicted 1.088 and 1.087, within kSlack:
  // tied, and the tie goes to the one better on average, tile 64.
  auto between = query::best(db, {"transpose", "H100", "3000x3000"});
  ASSERT_EQ(between.size(), 1u);
  EXPECT_EQ(between[0].measured_size, "4096x4096");
  EXPECT_EQ(between[0].params, R"({"tile":64})");
  ASSERT_EQ(between[0].evidence.size(), 2u);
  EXPECT_EQ(between[0].evidence[0].size, "4096x4096");
  EXPECT_DOUBLE_EQ(between[0].evidence[0].regret, 1.125);
  EXPECT_EQ(between[0].evidence[1].size, "1024x1024");
  EXPECT_DOUBLE_EQ(between[0].evidence[1].regret, 1.0);

  auto square = query::best(db, {"transpose", "H100", "1000"});  // 1000 means 1000x1000 here
  ASSERT_EQ(square.size(), 1u);
  EXPECT_EQ(square[0].size, "1000x1000");
  EXPECT_EQ(square[0].measured_size, "1024x1024");
}

// Off the measured sizes the selection model answers: a configuration whose fast path (its
// alignment) does not apply at the size is not chosen over one measured in that class, however
// fast it was at the nearest measured size (the old rule, "the nearest size's winner", chose it).
TEST(Query, PredictedAtUnmeasuredSizesRespectsAlignment) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "transpose";
  info.device = "H100";
  auto run = db.begin_run(info);
  for (const char* size : {"1024x1024", "2048x2048"}) {
    add(db, run, "H100", R"({"vector":4})", size, {1.0f});
    add(db, run, "H100", R"({"vector":1})", size, {1.4f});
  }
  query::BestQuery q{"transpose", "H100", "1023x1023"};
  q.alignment = [](const std::string& params) -> select::Extents {
    const long long v = params.find("4") != std::string::npos ? 4 : 1;
    return {v, v, 1};
  };
  auto odd = query::best(db, q);
  ASSERT_EQ(odd.size(), 1u);
  EXPECT_EQ(odd[0].params, R"({"vector":1})");
  EXPECT_EQ(odd[0].match, tune_select::How::extrapolated);  // 1023 is below the measured range
  q.size = "1500x1500";
  EXPECT_EQ(query::best(db, q)[0].params, R"({"vector":4})");
  EXPECT_EQ(query::best(db, q)[0].match, tune_select::How::predicted);
  q.size = "1501x1500";
  EXPECT_EQ(query::best(db, q)[0].params, R"({"vector":1})");
  EXPECT_TRUE(query::best(db, q)[0].applies);
}

TEST(Query, UnknownOrAmbiguousKernel) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  EXPECT_THROW(query::best(db, {}), InputError);  // empty database
  store::RunInfo info;
  auto run = db.begin_run(info);
  add(db, run, "H100", R"({"tile":32})", "1024", {1.0f});
  EXPECT_THROW(query::best(db, {"gemm", {}, {}}), InputError);
  EXPECT_EQ(query::best(db, {}).size(), 1u);
  // issue #14: a misspelt kernel or device names the one meant
  auto message = [&](const query::BestQuery& q) {
    try {
      (void)query::best(db, q);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message({"transpos", {}, {}}).find("(did you mean 'transpose'?) (it has: transpose)"), std::string::npos);
  EXPECT_NE(message({"transpose", "H10", {}}).find("(did you mean 'H100'?) (it has: H100)"), std::string::npos);
}

// The end-of-run table (query/table.h) for a GFLOP/s kernel: fraction of the FP32 peak and the
// library ratio against the ceilings of the run that measured the best (else the latest run's); a
// GB/s kernel keeps its columns.
namespace {

void add_flops(store::Store& db, std::int64_t run, const std::string& kernel, const std::string& size, float ms,
               double gflops, std::optional<double> gbps = {}, const std::string& params = R"({"tile":64})") {
  store::Measurement m;
  m.config_id = db.upsert_configuration_text(kernel, "h", params);
  m.run_id = run;
  m.device = "NVIDIA H200";
  m.size = sizes::Size::parse_label(size);
  m.samples_ms = {ms, ms * 1.05f, ms * 0.95f};
  m.gflops = gflops;
  m.gbps = gbps;
  db.record(m);
}

void add_ceiling(store::Store& db, std::int64_t run, const std::string& size, const std::string& name, double ms,
                 std::optional<double> gflops, std::optional<double> gbps = {}) {
  store::Ceiling c;
  c.run_id = run;
  c.device = "NVIDIA H200";
  c.size = size;
  c.name = name;
  c.time_ms = ms;
  c.gflops = gflops;
  c.gbps = gbps;
  c.samples_ms = {static_cast<float>(ms)};
  db.record_ceiling(c);
}

std::string captured(const std::function<void()>& print) {
  ::testing::internal::CaptureStdout();
  print();
  std::fflush(stdout);
  std::cout.flush();
  return ::testing::internal::GetCapturedStdout();
}

}  // namespace

TEST(Table, FlopsRowsShowPeakFractionAndLibraryRatio) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.device = "NVIDIA H200";
  const auto run1 = db.begin_run(info), run2 = db.begin_run(info);
  const std::string gemm = "4096x4096x4096", small = "1024x1024x1024", match = "16384x16384x128";
  add_flops(db, run2, "gemm", gemm, 2.0f, 33000, 150.0);  // GB/s too, but no copy ceiling
  add_flops(db, run2, "gemm", small, 0.1f, 21000);
  add_ceiling(db, run2, gemm, "fp32_peak", 0.5, 66000);
  add_ceiling(db, run1, gemm, "cublas_sgemm", 5.0, 27000);  // an older run's: replaced below
  add_ceiling(db, run2, gemm, "cublas_sgemm", 2.5, 55000);
  add_ceiling(db, run2, small, "cublas_sgemm", 0.08, 26000);  // no fp32_peak at this size
  add_flops(db, run2, "matching", match, 3.0f, 23000);
  add_ceiling(db, run2, match, "fp32_peak", 0.5, 64000);
  add_ceiling(db, run2, match, "cublas_sgemm", 1.8, 38000);
  add_ceiling(db, run2, match, "cublas_sgemm_argmax", 2.4, 29000);  // the matching equivalent wins

  auto rows = query::run_table(db, "gemm", "NVIDIA H200", {small, gemm}).rows;
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[1].best, R"({"tile":64})");
  EXPECT_NEAR(rows[1].time_ms, 2.0, 1e-6);  // the mean of float samples
  ASSERT_TRUE(rows[1].gflops && rows[1].peak_fraction && rows[1].library_ratio);
  EXPECT_DOUBLE_EQ(*rows[1].peak_fraction, 0.5);
  EXPECT_EQ(rows[1].library, "cublas_sgemm");
  EXPECT_NEAR(*rows[1].library_ratio, 1.25, 1e-6);  // 2.5 ms / 2.0 ms: the best's run (2), not run 1
  EXPECT_DOUBLE_EQ(*rows[1].gbps, 150.0);
  EXPECT_FALSE(rows[1].copy_fraction);  // no d2d_copy at this size
  EXPECT_FALSE(rows[0].peak_fraction);
  EXPECT_NEAR(*rows[0].library_ratio, 0.8, 1e-6);

  // A size whose best was measured by the earlier run, both runs having measured the copy there: the
  // ratio is against the best's own run; a ceiling only the later run measured still counts.
  const std::string sq = "8192x8192x8192";
  add_flops(db, run1, "gemm", sq, 1.0f, 30000, 400.0);
  add_flops(db, run2, "gemm", sq, 1.1f, 28000, 380.0, R"({"tile":32})");
  add_ceiling(db, run1, sq, "d2d_copy", 0.9, {}, 500.0);
  add_ceiling(db, run2, sq, "d2d_copy", 0.8, {}, 800.0);
  add_ceiling(db, run2, sq, "cublas_sgemm", 1.5, 20000);
  auto both = query::run_table(db, "gemm", "NVIDIA H200", {sq}).rows;
  ASSERT_EQ(both.size(), 1u);
  ASSERT_TRUE(both[0].copy_fraction && both[0].library_ratio);
  EXPECT_DOUBLE_EQ(*both[0].copy_fraction, 0.8);   // 400 / 500 (run 1), not 400 / 800 (run 2)
  EXPECT_NEAR(*both[0].library_ratio, 1.5, 1e-6);  // run 2's, the only one

  auto m = query::run_table(db, "matching", "NVIDIA H200", {match}).rows;
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].library, "cublas_sgemm_argmax");
  EXPECT_NEAR(*m[0].library_ratio, 0.8, 1e-6);  // 2.4 / 3.0
  EXPECT_NEAR(*m[0].peak_fraction, 23000.0 / 64000.0, 1e-12);

  const std::string text = captured([&] { query::print_run_table(db, "matching", "NVIDIA H200", {match}, {}, false); });
  EXPECT_NE(text.find("size             mean ms  noise  GFLOP/s  of peak  vs lib  single  tied"), std::string::npos)
      << text;
  EXPECT_NE(text.find("16384x16384x128     3.00  12.4%    23000    0.359  0.800x  1.000x     0"), std::string::npos)
      << text;
  EXPECT_EQ(text.find("GB/s"), std::string::npos) << text;

  // A GFLOP/s kernel shows GB/s only where a copy ceiling gives it a fraction.
  const std::string g = captured([&] { query::print_run_table(db, "gemm", "NVIDIA H200", {gemm}, {}, false); });
  EXPECT_EQ(g.find("GB/s"), std::string::npos) << g;
  const std::string pairwise = "1024x2048x128";
  add_flops(db, run2, "pairwise", pairwise, 0.05f, 10737, 3400);
  add_ceiling(db, run2, pairwise, "fp32_peak", 0.5, 65000);
  add_ceiling(db, run2, pairwise, "d2d_copy", 0.04, {}, 4000);
  const std::string p = captured([&] { query::print_run_table(db, "pairwise", "NVIDIA H200", {pairwise}, {}, false); });
  EXPECT_NE(p.find("  GB/s  of copy  GFLOP/s  of peak  vs lib"), std::string::npos) << p;
  EXPECT_NE(p.find("  3400    0.850    10737    0.165       -"), std::string::npos) << p;

  const std::string js = captured([&] { query::print_run_table(db, "gemm", "NVIDIA H200", {gemm}, {}, true); });
  auto j = nlohmann::json::parse(js);
  EXPECT_DOUBLE_EQ(j["sizes"][0]["gflops"].get<double>(), 33000);
  EXPECT_DOUBLE_EQ(j["sizes"][0]["peak_fraction"].get<double>(), 0.5);
  EXPECT_NEAR(j["sizes"][0]["library_ratio"].get<double>(), 1.25, 1e-6);
  EXPECT_TRUE(j["sizes"][0]["copy_fraction"].is_null());
}

TEST(Table, BytesKernelKeepsItsColumns) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  const auto run = db.begin_run(info);
  add(db, run, "NVIDIA H200", R"({"tile":32})", "4096x4096", {0.04f});
  store::Measurement m;  // the same with GB/s, as a run stores it
  m.config_id = db.upsert_configuration_text("transpose", "h", R"({"tile":64})");
  m.run_id = run;
  m.device = "NVIDIA H200";
  m.size = sizes::Size::parse_label("4096x4096");
  m.samples_ms = {0.0365f};
  m.gbps = 3678;
  db.record(m);
  add_ceiling(db, run, "4096x4096", "d2d_copy", 0.0355, {}, 3780);
  add_ceiling(db, run, "4096x4096", "cublas_sgeam", 0.0406, {}, 3306);
  const std::string text =
      captured([&] { query::print_run_table(db, "transpose", "NVIDIA H200", {"4096x4096"}, {}, false); });
  // GB/s and the fraction of the copy, no GFLOP/s columns.
  // (the time's unit, us or µs, follows the locale)
  const std::string head = "  noise  GB/s  of copy  vs lib  single  tied  flags  configuration\n";
  const std::string row = "4096x4096     36.5   0.0%  3678    0.973  1.112x  1.000x     0         c1\n";
  EXPECT_NE(text.find(head), std::string::npos) << text;
  EXPECT_NE(text.find(row), std::string::npos) << text;
  EXPECT_NE(text.find("  c1 = {\"tile\":64}\n"), std::string::npos) << text;  // the legend
  EXPECT_EQ(text.find("of peak"), std::string::npos) << text;
  std::size_t widest = 0, at = 0;
  for (std::size_t nl; (nl = text.find('\n', at)) != std::string::npos; at = nl + 1)
    if (text.compare(at, 2, "  ") != 0 || text.compare(at, 4, "  c1") != 0) widest = std::max(widest, nl - at);
  EXPECT_LE(widest, 100u) << text;
  // --wide: the configuration inline
  const std::string wide =
      captured([&] { query::print_run_table(db, "transpose", "NVIDIA H200", {"4096x4096"}, {}, false, true); });
  EXPECT_NE(wide.find(std::string("1.000x     0         ") + R"({"tile":64})"), std::string::npos) << wide;
}

// Issue #14: tables fit 100 columns: configurations as labels with a legend, notes wrapped.
TEST(Labels, ShortLabelsAndWrappedNotes) {
  query::ConfigLabels labels;
  EXPECT_EQ(labels.label(R"({"a":1})"), "c1");
  EXPECT_EQ(labels.label(R"({"a":2})"), "c2");
  EXPECT_EQ(labels.label(R"({"a":1})"), "c1");
  EXPECT_EQ(labels.label(""), "-");
  EXPECT_EQ(labels.legend(), (std::vector<std::string>{R"(c1 = {"a":1})", R"(c2 = {"a":2})"}));
  const std::string text(30, 'x');
  const auto lines = query::wrap(text + " " + text + " " + text + " " + text, 70);
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0], text + " " + text);
  EXPECT_EQ(lines[1], "  " + text + " " + text);
  for (const auto& l : query::wrap(std::string(150, 'y'))) EXPECT_LE(l.size(), 100u);  // a long word is cut
}

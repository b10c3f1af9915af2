#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <tuple>
#include <vector>

#include "common/error.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

void measure(store::Store& db, std::int64_t run, const std::string& params, long n, float ms) {
  store::Measurement m;
  m.config_id = db.upsert_configuration_text("transpose", "h", params);
  m.run_id = run;
  m.device = "NVIDIA H200";
  m.size = sizes::Size::of(n, n);
  m.samples_ms = {ms, ms * 1.01f, ms * 0.99f};
  m.gbps = 8.0 * n * n / ms / 1e6;
  db.record(m);
}

void ceiling(store::Store& db, std::int64_t run, const char* name, long n, double ms) {
  store::Ceiling c;
  c.run_id = run;
  c.device = "NVIDIA H200";
  c.size = std::to_string(n) + "x" + std::to_string(n);
  c.name = name;
  c.time_ms = ms;
  c.gbps = 8.0 * n * n / ms / 1e6;
  db.record_ceiling(c);
}
}  // namespace

TEST(Report, SelfContainedPageWithPlotTableAndFlags) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "transpose";
  info.device = "NVIDIA H200";
  auto run = db.begin_run(info);
  for (long n : {1024L, 2048L, 4096L}) {
    measure(db, run, R"({"tile":32})", n, float(n * n * 8 / 3.5e6));
    measure(db, run, R"({"tile":64})", n, float(n * n * 8 / 3.9e6));
    ceiling(db, run, "d2d_copy", n, n * n * 8 / 4.1e6);
    ceiling(db, run, "cublas_sgeam", n, n * n * 8 / 3.7e6);
  }
  store::Flag f;
  f.run_id = run;
  f.kernel = "transpose";
  f.device = "NVIDIA H200";
  f.size = "2048x2048";
  f.kind = store::FlagKind::dip;
  f.text = "tile 32 drops 40% below both neighbouring sizes";
  db.record_flag(f);

  std::string page = report::html(db, "transpose");
  EXPECT_NE(page.find("<svg"), std::string::npos);
  EXPECT_EQ(std::count(page.begin(), page.end(), '\n') > 20, true);
  // three series: ours, copy, cuBLAS, each a polyline with one point per size
  std::regex poly("<polyline[^>]*points=\"([^\"]*)\"");
  int lines = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), poly); it != std::sregex_iterator(); ++it, ++lines) {
    std::string pts = (*it)[1];
    EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 3) << pts;
  }
  EXPECT_EQ(lines, 3);
  EXPECT_NE(page.find("cuBLAS Sgeam"), std::string::npos);
  EXPECT_NE(page.find("<td>2048x2048</td>"), std::string::npos);
  EXPECT_NE(page.find("class=\"flag\""), std::string::npos);
  EXPECT_NE(page.find("tile 32 drops 40%"), std::string::npos);
  EXPECT_NE(page.find("0.951"), std::string::npos);   // 3.9 / 4.1 of copy
  EXPECT_NE(page.find("1.054x"), std::string::npos);  // 3.9 / 3.7 vs the library
  // self-contained: nothing fetched from anywhere
  for (const char* bad : {"<script", "src=", "href=", "@import", "url("})
    EXPECT_EQ(page.find(bad), std::string::npos) << bad;
}

TEST(Report, UnknownKernelIsAnError) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  EXPECT_THROW(report::html(db, "transpose"), InputError);
}

// A GFLOP/s kernel: plotted against the FP32 peak and cuBLAS in GFLOP/s, with the fraction of the
// peak in the table and no copy column.
TEST(Report, FlopsKernelAgainstFp32PeakAndCublas) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "gemm";
  info.device = "NVIDIA H200";
  auto run = db.begin_run(info);
  for (long n : {1024L, 2048L, 4096L}) {
    const std::string size = std::to_string(n) + "x" + std::to_string(n) + "x" + std::to_string(n);
    const double flops = 2.0 * n * n * n, ms = flops / 33e9;  // 33000 GFLOP/s
    store::Measurement m;
    m.config_id = db.upsert_configuration_text("gemm", "h", R"({"tile":128})");
    m.run_id = run;
    m.device = "NVIDIA H200";
    m.size = sizes::Size::parse_label(size);
    m.samples_ms = {float(ms)};
    m.gflops = flops / m.samples_ms[0] / 1e6;
    m.gbps = 16.0 * n * n / m.samples_ms[0] / 1e6;  // GB/s without a copy ceiling: not shown
    db.record(m);
    for (auto [name, gflops] : {std::pair{"fp32_peak", 66000.0}, std::pair{"cublas_sgemm", 41250.0}}) {
      store::Ceiling c;
      c.run_id = run;
      c.device = "NVIDIA H200";
      c.size = size;
      c.name = name;
      c.time_ms = std::string(name) == "fp32_peak" ? 0.5 : flops / (gflops * 1e6);
      c.gflops = gflops;
      db.record_ceiling(c);
    }
  }
  const std::string page = report::html(db, "gemm");
  std::regex poly("<polyline[^>]*points=\"([^\"]*)\"");
  int lines = 0;
  for (auto it = std::sregex_iterator(page.begin(), page.end(), poly); it != std::sregex_iterator(); ++it, ++lines) {
    std::string pts = (*it)[1];
    EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 3) << pts;
  }
  EXPECT_EQ(lines, 3);                               // ours, the FP32 peak, cuBLAS
  EXPECT_EQ(page.find("<svg"), page.rfind("<svg"));  // one plot: no GB/s plot without GB/s
  EXPECT_NE(page.find("FP32 peak (FMA kernel)"), std::string::npos);
  EXPECT_NE(page.find("cuBLAS Sgemm (FP32)"), std::string::npos);
  EXPECT_NE(page.find("<th>GFLOP/s</th><th>of peak</th>"), std::string::npos);
  EXPECT_EQ(page.find("of copy"), std::string::npos);
  EXPECT_EQ(page.find("<th>GB/s</th>"), std::string::npos);
  EXPECT_NE(page.find("sqrt of ProblemSize[0] x ProblemSize[1]"), std::string::npos);
  EXPECT_NE(page.find("<td>0.500</td>"), std::string::npos);   // 33000 / 66000
  EXPECT_NE(page.find("<td>0.800x</td>"), std::string::npos);  // cuBLAS at 41250 is 1.25 times faster
  EXPECT_NE(page.find("<td>33000</td>"), std::string::npos);
  EXPECT_EQ(page.find("<h3>Libraries</h3>"), std::string::npos);  // one library: the table says it all
}

// With several library ceilings (the tensor-core GEMMs beside the pedantic Sgemm): a section lists
// each one's GFLOP/s and time over ours, and the 3xTF32 bound at cuBLAS's TF32 rate.
TEST(Report, EveryLibraryAndThe3xTf32Bound) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "gemm_wgmma";
  info.device = "NVIDIA H200";
  auto run = db.begin_run(info);
  const double flops = 2.0 * 4096 * 4096 * 4096;
  store::Measurement m;
  m.config_id = db.upsert_configuration_text("gemm_wgmma", "h", R"({"tile_m":128})");
  m.run_id = run;
  m.device = "NVIDIA H200";
  m.size = sizes::Size::parse_label("4096x4096x4096");
  m.samples_ms = {float(flops / 120e9)};  // 120000 GFLOP/s
  m.gflops = flops / m.samples_ms[0] / 1e6;
  db.record(m);
  for (auto [name, gflops] : {std::pair{"cublas_sgemm", 50000.0}, std::pair{"cublas_gemm_tf32", 360000.0},
                              std::pair{"cublas_gemm_bf16x9", 60000.0}}) {
    store::Ceiling c;
    c.run_id = run;
    c.device = "NVIDIA H200";
    c.size = "4096x4096x4096";
    c.name = name;
    c.time_ms = flops / (gflops * 1e6);
    c.gflops = gflops;
    db.record_ceiling(c);
  }
  const std::string page = report::html(db, "gemm_wgmma");
  const auto section = page.find("<h3>Libraries</h3>");
  ASSERT_NE(section, std::string::npos);
  const std::string libraries = page.substr(section);
  // in spec/ceilings.h's order, the pedantic Sgemm last
  const auto tf32 = libraries.find("cuBLAS GEMM in TF32"), bf16 = libraries.find("emulated with BF16x9"),
             sgemm = libraries.find("cuBLAS Sgemm (FP32)");
  ASSERT_NE(sgemm, std::string::npos);
  EXPECT_LT(tf32, bf16);
  EXPECT_LT(bf16, sgemm);
  EXPECT_NE(libraries.find("<td>360000 (0.333x)</td>"), std::string::npos);
  EXPECT_NE(libraries.find("<td>50000 (2.400x)</td>"), std::string::npos);
  EXPECT_NE(libraries.find("<td>120000</td><td>1.000</td>"), std::string::npos);  // bound 360000 / 3, ours at it
  EXPECT_NE(page.find("<td>2.400x</td>"), std::string::npos);  // "vs library" stays the pedantic Sgemm
}

// With energy measured: a section with the run's energy method, one plot per size of energy
// against time with the Pareto front highlighted (its points drawn as class "front"), and what the
// energy-optimal configuration saves against the time-optimal one. Without energy: no section.
TEST(Report, EnergySectionWithTheParetoFront) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "transpose";
  info.device = "NVIDIA H200";
  info.energy = "energy: NVML's total-energy counter (the method)";
  auto run = db.begin_run(info);
  // time (ms) and power (W) per configuration at 4096: the fastest draws the most; tile 3 is
  // beaten in both by tile 2; the front is tiles 1, 2 and 4
  const std::vector<std::tuple<const char*, float, double>> configs = {{R"({"tile":1})", 0.036f, 480},
                                                                       {R"({"tile":2})", 0.038f, 420},
                                                                       {R"({"tile":3})", 0.040f, 430},
                                                                       {R"({"tile":4})", 0.045f, 340}};
  for (const auto& [params, ms, watts] : configs) {
    store::Measurement m;
    m.config_id = db.upsert_configuration_text("transpose", "h", params);
    m.run_id = run;
    m.device = "NVIDIA H200";
    m.size = sizes::Size::of(4096, 4096);
    m.samples_ms = {ms, ms, ms};
    m.energy_j = watts * ms / 1000;
    m.energy_hw_j = m.energy_j.value() * 0.002;
    m.power_w = watts;
    db.record(m);
  }
  const std::string page = report::html(db, "transpose");
  EXPECT_NE(page.find("<h3>Energy</h3>"), std::string::npos);
  EXPECT_NE(page.find("the method"), std::string::npos);
  std::size_t front = 0;
  for (std::size_t at = 0; (at = page.find("class=\"front\"", at)) != std::string::npos; ++at) ++front;
  EXPECT_EQ(front, 3u);
  // the energy-optimal (tile 4: 340 W x 45 us = 15.3 mJ) against the time-optimal (17.28 mJ)
  char saved[32];
  std::snprintf(saved, sizeof saved, "%+.1f%%", 100 * (1 - (340 * 0.045) / (480 * 0.036)));
  EXPECT_NE(page.find(saved), std::string::npos) << saved;
  EXPECT_NE(page.find("+25.0%"), std::string::npos);  // its time cost: 45 / 36 - 1
}

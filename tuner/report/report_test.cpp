#include "report/report.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

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
  m.size = store::ProblemSize::of(n, n);
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
  c.median_ms = ms;
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
  EXPECT_NE(page.find("0.951"), std::string::npos);  // 3.9 / 4.1 of copy
  EXPECT_NE(page.find("1.054x"), std::string::npos);  // 3.9 / 3.7 vs the library
  // self-contained: nothing fetched from anywhere
  for (const char* bad : {"<script", "src=", "href=", "@import", "url("}) EXPECT_EQ(page.find(bad), std::string::npos) << bad;
}

TEST(Report, UnknownKernelIsAnError) {
  store::testing::TempDir t;
  auto db = store::Store::open(t.file("r.db"), store::Store::Mode::read_write);
  EXPECT_THROW(report::html(db, "transpose"), InputError);
}

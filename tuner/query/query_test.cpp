#include "query/query.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/error.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

void add(store::Store& db, std::int64_t run, const std::string& device, const std::string& params, const std::string& size,
         std::vector<float> samples, store::MeasurementStatus status = store::MeasurementStatus::ok) {
  store::Measurement m;
  m.config_id = db.upsert_configuration_text("transpose", "h", params);
  m.run_id = run;
  m.device = device;
  m.size = store::ProblemSize::parse(size);
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
  EXPECT_DOUBLE_EQ(all[0].median_ms, 1.5);
  EXPECT_EQ(all[1].params, R"({"tile":32})");
  EXPECT_EQ(all[2].device, "H200");

  auto exact = query::best(db, {"transpose", "H100", "4096"});  // "4096" means 4096x4096
  ASSERT_EQ(exact.size(), 1u);
  EXPECT_FALSE(exact[0].nearest);
  EXPECT_EQ(exact[0].measured_size, "4096x4096");

  auto near = query::best(db, {"transpose", "H100", "1500x1500"});
  ASSERT_EQ(near.size(), 1u);
  EXPECT_TRUE(near[0].nearest);
  EXPECT_EQ(near[0].size, "1500x1500");
  EXPECT_EQ(near[0].measured_size, "1024x1024");

  auto square = query::best(db, {"transpose", "H100", "1000"});  // 1000 means 1000x1000 here
  ASSERT_EQ(square.size(), 1u);
  EXPECT_EQ(square[0].size, "1000x1000");
  EXPECT_EQ(square[0].measured_size, "1024x1024");
}

TEST(Query, NearestSizeOnALogScale) {
  std::vector<std::string> m{"128", "1024", "4096"};
  EXPECT_EQ(query::nearest_size(m, "2000"), "1024");
  EXPECT_EQ(query::nearest_size(m, "3000"), "4096");
  EXPECT_EQ(query::nearest_size(m, "1"), "128");
  EXPECT_EQ(query::nearest_size(m, "2048"), "1024");  // a tie goes to the smaller
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
}

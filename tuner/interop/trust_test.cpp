// What an import takes from a file is checked, never trusted (issue #47, classes 7 and 9): a
// problem_size that is no size, a T4 file's time unit, timestamps in the future.
#include <gtest/gtest.h>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

std::string cache_with(const std::string& header_extra, const std::string& timestamp = "2026-01-01 10:00:00+00:00") {
  return R"({"device_name": "GPU", "kernel_name": "k", "tune_params_keys": ["a"], "objective": "time")" + header_extra +
         R"(, "cache": {"1": {"a": 1, "time": 2.0, "timestamp": ")" + timestamp + R"("}}})";
}

std::string t4_with(const std::string& metadata) {
  return R"({"schema_version": "1.0.0", "metadata": )" + metadata +
         R"(, "results": [{"timestamp": "2026-01-01 10:00:00+00:00", "configuration": {"a": 1},
         "times": {"compilation": 0.5, "benchmark": 0.25, "runtimes": [0.002, 0.002, 0.002]},
         "invalidity": "correct", "correctness": 1,
         "measurements": [{"name": "time", "value": 0.002, "unit": "s"}], "objectives": ["time"]}]})";
}

std::string error_of(const std::string& text, ImportOptions o = {}) {
  TempDir dir;
  store::testing::write_bytes(dir.file("in.json"), text);
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  try {
    import_file(db, dir.file("in.json"), o);
  } catch (const InputError& e) {
    EXPECT_EQ(db.measurement_count(), 0u);
    return e.what();
  }
  return "";
}

}  // namespace

// An invalid problem_size was stored as size 1, posing as another size's results.
TEST(ImportTrust, AProblemSizeThatIsNoSizeIsRefused) {
  for (const char* bad : {"-5", "0", "2.5", "[]", "[1, 2, 3, 4]", "[4096, -1]", "[4096, 1.5]", "true", "{}"}) {
    const std::string e = error_of(cache_with(std::string(R"(, "problem_size": )") + bad));
    EXPECT_NE(e.find("is not a problem size"), std::string::npos) << bad << ": " << e;
    EXPECT_NE(e.find("in.json"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of(cache_with(R"(, "problem_size": [4096, 4096])")), "");
  EXPECT_EQ(error_of(cache_with("")), "");  // no size: one size, as before
}

// A T4 file's metadata.timeunit says what its times are in: "seconds" was read as milliseconds.
TEST(ImportTrust, T4TimesAreReadInTheFilesTimeUnit) {
  TempDir dir;
  store::testing::write_bytes(dir.file("s.json"), t4_with(R"({"timeunit": "seconds"})"));
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, dir.file("s.json"), {.kernel = "k"});
  const auto rows = db.measurements({.kernel = "k", .ok_only = false, .with_samples = true});
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_NEAR(*rows[0].objective, 2.0, 1e-9);  // 0.002 s
  ASSERT_EQ(rows[0].samples_ms.size(), 3u);
  EXPECT_NEAR(rows[0].samples_ms[0], 2.0, 1e-6);
  EXPECT_NEAR(*rows[0].compile_ms, 500.0, 1e-9);
  const std::string e = error_of(t4_with(R"({"timeunit": "fortnights"})"), {.kernel = "k"});
  EXPECT_NE(e.find("metadata.timeunit \"fortnights\" is not a time unit"), std::string::npos) << e;
}

// An entry dated in the future would win every later merge and never be replaced.
TEST(ImportTrust, TimestampsInTheFutureAreRefused) {
  const std::string e = error_of(cache_with("", "2999-01-01 10:00:00+00:00"));
  EXPECT_NE(e.find("later than now"), std::string::npos) << e;
}

}  // namespace tune::interop

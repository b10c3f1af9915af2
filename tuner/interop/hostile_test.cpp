// Issue #16: values as Kernel Tuner writes them (NaN, Infinity from Python's json), times that are
// not times (negative, absurd), gzip bombs and deep JSON. Each a regression test of a finding.
#include <gtest/gtest.h>

#include <zlib.h>

#include "common/error.h"
#include "interop/interop.h"
#include "interop/test_util.h"
#include "query/query.h"

namespace tune::interop {
namespace {

using namespace testing;

// The small real cache (vector_add on an A4000, 15 entries) with the entry "128" rewritten.
std::string cache_with(const std::string& entry_128) {
  std::string text = raw_text(external("kernel_tuner/test/test_cache_file.json"));
  const std::size_t at = text.find("\"128\": {");
  EXPECT_NE(at, std::string::npos);
  const std::size_t end = text.find('}', at) + 1;
  return text.substr(0, at) + "\"128\": " + entry_128 + text.substr(end);
}

const char* kTimes =
    R"("times": [0.03, 0.031, 0.029], "compile_time": 440.9, "verification_time": 0, "benchmark_time": 1.09)";

TEST(HostileCache, NanAndInfinityAsPythonWritesThemAreReadAndNeverRanked) {
  TempDir dir;
  for (const char* bad : {"NaN", "Infinity", "-Infinity"}) {
    SCOPED_TRACE(bad);
    const std::string file = dir.file(std::string("c_") + (bad[0] == '-' ? "minf" : bad) + ".json");
    store::testing::write_bytes(
        file, cache_with(std::string(R"({"block_size_x": 128, "time": )") + bad + ", " + kTimes + "}"));
    auto db = store::Store::open(dir.file(std::string(bad) + ".db"), store::Store::Mode::read_write);
    const ImportResult r = import_file(db, file, {});  // read, not refused as invalid JSON
    EXPECT_EQ(r.entries, 15u);
    const auto best = query::best(db, {});
    ASSERT_EQ(best.size(), 1u);
    EXPECT_NE(best[0].params, R"({"block_size_x":128})");
    auto all = db.measurements({.kernel = best[0].kernel, .ok_only = false});
    for (const auto& m : all)
      if (m.params == R"({"block_size_x":128})") {
        EXPECT_EQ(m.status, store::MeasurementStatus::runtime_error);
        EXPECT_NE(m.error.find(std::string("time is ") + bad), std::string::npos) << m.error;
      }
  }
  // inside strings they stay text
  const std::string file = dir.file("s.json");
  store::testing::write_bytes(
      file, cache_with(std::string(R"({"block_size_x": 128, "time": 0.03, "note": "NaN Infinity", )") + kTimes + "}"));
  auto db = store::Store::open(dir.file("s.db"), store::Store::Mode::read_write);
  EXPECT_EQ(import_file(db, file, {}).entries, 15u);
}

TEST(HostileCache, NegativeAndAbsurdTimesAreInvalidNotTheBest) {
  TempDir dir;
  for (const char* t : {"-1", "0", "1e39"}) {
    SCOPED_TRACE(t);
    const std::string file = dir.file("c.json");
    store::testing::write_bytes(file,
                                cache_with(std::string(R"({"block_size_x": 128, "time": )") + t + ", " + kTimes + "}"));
    auto db = store::Store::open(dir.file(std::string("t") + t + ".db"), store::Store::Mode::read_write);
    import_file(db, file, {});
    const auto best = query::best(db, {});
    ASSERT_EQ(best.size(), 1u);
    EXPECT_NE(best[0].params, R"({"block_size_x":128})");
    EXPECT_GT(best[0].time_ms, 0.0);
    for (const auto& m : db.measurements({.kernel = best[0].kernel, .ok_only = false}))
      if (m.params == R"({"block_size_x":128})") {
        EXPECT_EQ(m.status, store::MeasurementStatus::runtime_error);
        EXPECT_NE(m.error.find("invalid time"), std::string::npos) << m.error;
      }
  }
}

// Found by import_fuzz: a number beyond double's range (1e99999) escaped as nlohmann's
// out_of_range, an internal error; it is one InputError naming the file.
TEST(HostileCache, ANumberBeyondDoubleIsAnInputError) {
  TempDir dir;
  const std::string file = dir.file("overflow.json");
  store::testing::write_bytes(file,
                              cache_with(std::string("{\"block_size_x\": 128, \"time\": 0.02e99999, ") + kTimes + "}"));
  try {
    (void)read_file(file);
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("overflow.json: a number out of range"), std::string::npos) << e.what();
  }
}

TEST(HostileCache, AGzipBombIsRefusedAtTheBound) {
  TempDir dir;
  // 64 MiB of spaces inside a JSON string, gzip-compressed to about 64 KiB
  std::string text = R"({"cache": {}, "tune_params_keys": [], "pad": ")" + std::string(64u << 20, ' ') + "\"}";
  uLongf n = compressBound(text.size());
  std::string z(n, '\0');
  z_stream zs{};
  ASSERT_EQ(deflateInit2(&zs, 9, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(text.data());
  zs.avail_in = static_cast<uInt>(text.size());
  zs.next_out = reinterpret_cast<Bytef*>(z.data());
  zs.avail_out = static_cast<uInt>(z.size());
  ASSERT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
  z.resize(zs.total_out);
  deflateEnd(&zs);
  const std::string file = dir.file("bomb.json.gz");
  store::testing::write_bytes(file, z);
  try {
    read_bytes(file, 1u << 20);
    ADD_FAILURE() << "inflated past the bound";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("inflates to more than 1048576 bytes"), std::string::npos) << e.what();
  }
  EXPECT_EQ(read_bytes(file).size(), text.size());  // within the default bound it reads
}

TEST(HostileCache, DeepJsonIsRefused) {
  TempDir dir;
  const std::string file = dir.file("deep.json");
  store::testing::write_bytes(file, R"({"cache": {}, "tune_params_keys": [], "x": )" + std::string(100000, '[') +
                                        std::string(100000, ']') + "}");
  try {
    read_file(file);
    ADD_FAILURE() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("nested more than 64 levels"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tune::interop

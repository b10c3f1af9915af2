#include "common/bounded_read.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>

#include "common/error.h"
#include "common/test_dir.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

struct Dir : tune::testing::TestDir {
  Dir() : TestDir("tune_bounded") {}
};

}  // namespace

// A FIFO is refused at once: no open or read waits for a writer that never comes.
TEST(BoundedRead, RefusesAFifoWithoutWaiting) {
  Dir d;
  const fs::path fifo = d.path / "cache.json";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  auto read = std::async(std::launch::async, [&] { return read_regular_file(fifo, 1 << 20, "cache"); });
  ASSERT_EQ(read.wait_for(std::chrono::seconds(10)), std::future_status::ready) << "reading a FIFO blocks";
  try {
    read.get();
    FAIL() << "a FIFO was read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("not a regular file"), std::string::npos) << e.what();
  }
}

TEST(BoundedRead, RefusesDevicesDirectoriesAndOversizedFiles) {
  Dir d;
  EXPECT_THROW(read_regular_file("/dev/zero", 1 << 20, "spec"), InputError);
  EXPECT_THROW(read_regular_file(d.path, 1 << 20, "spec"), InputError);
  EXPECT_THROW(read_regular_file(d.path / "missing", 1 << 20, "spec"), InputError);
  { std::ofstream(d.path / "big") << std::string(2000, 'x'); }
  EXPECT_THROW(read_regular_file(d.path / "big", 1000, "spec"), InputError);
  EXPECT_EQ(read_regular_file(d.path / "big", 2000, "spec").size(), 2000u);
}

TEST(BoundedRead, JsonDepthCountsBracketsOutsideStrings) {
  EXPECT_EQ(json_depth("{}"), 1u);
  EXPECT_EQ(json_depth(R"({"a": [[1], {"b": "[[[[\"]]"}]})"), 3u);
  EXPECT_EQ(json_depth("\"[[[[\""), 0u);
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  EXPECT_GT(json_depth(deep), kMaxJsonDepth);
  EXPECT_THROW(check_json_depth(deep, "spec.json"), InputError);
  EXPECT_NO_THROW(check_json_depth(std::string(kMaxJsonDepth, '[') + std::string(kMaxJsonDepth, ']'), "x"));
}

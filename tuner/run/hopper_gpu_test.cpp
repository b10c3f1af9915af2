// GPU tests of Hopper launches (run/kernel.h LaunchExtras, run/tensor_map.h), on the shipped test
// kernel kernels_src/tma_copy.cu compiled for sm_90a: a TMA tensor map encoded over a buffer, a
// cluster launch, more than 48 KiB of dynamic shared memory, and the refusals (a grid the cluster
// does not divide, too much shared memory, a map the driver would refuse) as launch statuses.
// Without a GPU (or on one that is not compute capability 9.0) each test skips.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "compile/compile.h"
#include "run/run.h"
#include "run/test_args.h"

namespace tune::run {
namespace {

namespace fs = std::filesystem;

class Hopper : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
    if (!session_) session_ = std::make_unique<Session>(0);
    if (session_->device().arch != "sm_90") GTEST_SKIP() << "not a Hopper GPU: " << session_->device().arch;
  }
  static std::unique_ptr<Session> session_;
};
std::unique_ptr<Session> Hopper::session_;

struct Config {
  int tile_x = 32, tile_y = 64, stages = 1, swizzle = 0, cluster_x = 1, threads = 128;
  std::size_t smem() const { return std::size_t(stages) * tile_x * tile_y * 4 + 1024; }
};

std::unique_ptr<LoadedKernel> build(Session& session, const Config& c, const std::string& name = "tma_copy") {
  std::ifstream f(fs::path(TUNE_SOURCE_DIR) / "kernels_src" / "tma_copy.cu");
  std::stringstream text;
  text << f.rdbuf();
  compile::CompileRequest r;
  r.source = text.str();
  r.source_name = "kernels_src/tma_copy.cu";
  r.kernel_name = name;
  r.arch = "sm_90a";
  r.defines = {{"tile_x", std::to_string(c.tile_x)},       {"tile_y", std::to_string(c.tile_y)},
               {"stages", std::to_string(c.stages)},       {"swizzle", std::to_string(c.swizzle)},
               {"cluster_x", std::to_string(c.cluster_x)}, {"block_size_x", std::to_string(c.threads)}};
  const compile::CompileResult res = compile::compile(r);
  EXPECT_TRUE(res.ok()) << res.log;
  return std::make_unique<LoadedKernel>(session, res.cubin, res.lowered_name);
}

// in_map, out (poisoned, an output), in (random), cols, rows: the space's arguments.
std::unique_ptr<ArgSet> arguments(Session& session, int cols, int rows) {
  ArgSpec map;
  map.name = "in_map";
  map.scalar = true;
  map.count = 1;
  map.tensor_map = true;
  const std::size_t n = std::size_t(cols) * rows;
  return std::make_unique<ArgSet>(
      session,
      std::vector<ArgSpec>{map, testing::buffer("out", n, FillKind::constant, 0.0, true),
                           testing::buffer("in", n, FillKind::random, 1.0), testing::scalar("cols", "int32", cols),
                           testing::scalar("rows", "int32", rows)},
      7);
}

LaunchExtras extras(const Config& c, int cols, int rows) {
  LaunchExtras x;
  x.cluster = {static_cast<unsigned>(c.cluster_x), 1, 1};
  x.tensor_maps.push_back({0,
                           2,
                           {std::uint64_t(cols), std::uint64_t(rows)},
                           {std::uint32_t(c.tile_x), std::uint32_t(c.tile_y)},
                           unsigned(c.swizzle)});
  return x;
}

Dim3 grid(const Config& c, int cols, int rows) {
  const int per_block = c.tile_x * c.stages;
  const int bx = (cols + per_block - 1) / per_block;
  return {static_cast<unsigned>((bx + c.cluster_x - 1) / c.cluster_x * c.cluster_x),
          static_cast<unsigned>((rows + c.tile_y - 1) / c.tile_y), 1};
}

// Launches c over a cols x rows input; the status, and whether out == in.
std::pair<LaunchStatus, bool> copy(Session& session, const Config& c, int cols, int rows,
                                   std::optional<LaunchExtras> x = std::nullopt) {
  auto kern = build(session, c);
  auto args = arguments(session, cols, rows);
  args->poison_outputs();
  const Dim3 block{static_cast<unsigned>(c.threads), 1, 1};
  const LaunchStatus st = kern->launch(grid(c, cols, rows), block, c.smem(), *args, x ? *x : extras(c, cols, rows));
  if (!st.ok()) return {st, false};
  return {st, args->buffer(1).download() == args->buffer(2).download()};
}

TEST_F(Hopper, TmaCopyThroughClustersAndLargeSharedMemoryEqualsTheInput) {
  const std::vector<Config> configs = {
      {32, 64, 1, 0, 1, 128},     // plain: one 8 KiB tile
      {32, 128, 4, 128, 2, 256},  // 65 KiB, 128-byte swizzle, clusters of 2
      {16, 256, 8, 64, 4, 128},   // 129 KiB, 64-byte swizzle, clusters of 4
      {8, 64, 8, 32, 2, 128},     // 32-byte swizzle
      {64, 256, 3, 0, 1, 256},    // 193 KiB, no swizzle
  };
  for (const Config& c : configs) {
    SCOPED_TRACE("tile " + std::to_string(c.tile_x) + "x" + std::to_string(c.tile_y) + " stages " +
                 std::to_string(c.stages) + " swizzle " + std::to_string(c.swizzle) + " cluster " +
                 std::to_string(c.cluster_x));
    for (auto [cols, rows] : {std::pair{1000, 777}, std::pair{4096, 512}}) {
      auto [st, equal] = copy(*session_, c, cols, rows);
      EXPECT_TRUE(st.ok()) << st.message;
      EXPECT_TRUE(equal) << cols << "x" << rows;
    }
  }
}

TEST_F(Hopper, WithoutTheClusterShapeTheKernelWritesNothing) {
  const Config c{32, 64, 1, 0, 2, 128};
  LaunchExtras x = extras(c, 256, 64);
  x.cluster = {};  // the same launch without the cluster attribute
  auto [st, equal] = copy(*session_, c, 256, 64, x);
  EXPECT_TRUE(st.ok()) << st.message;
  EXPECT_FALSE(equal);
}

TEST_F(Hopper, RefusalsAreLaunchStatusesNotCrashes) {
  const Config c{32, 64, 1, 0, 2, 128};
  auto kern = build(*session_, c);
  auto args = arguments(*session_, 256, 64);
  const Dim3 block{128, 1, 1};
  // 3 blocks along x: not a whole number of clusters of 2
  LaunchStatus st = kern->launch({3, 2, 1}, block, c.smem(), *args, extras(c, 256, 64));
  EXPECT_EQ(st.outcome, Outcome::invalid_config) << st.message;
  EXPECT_NE(st.message.find("not a whole number of clusters"), std::string::npos) << st.message;
  // a cluster over the portable 8 blocks
  LaunchExtras big = extras(c, 256, 64);
  big.cluster = {16, 1, 1};
  st = kern->launch({16, 2, 1}, block, c.smem(), *args, big);
  EXPECT_EQ(st.outcome, Outcome::invalid_config) << st.message;
  // more dynamic shared memory than the device has
  st = kern->launch({4, 2, 1}, block, session_->device().smem_per_block_optin + 1, *args, extras(c, 256, 64));
  EXPECT_EQ(st.outcome, Outcome::out_of_resources) << st.message;
  // a box over 256 rows: the driver would refuse the map
  LaunchExtras bad = extras(c, 256, 64);
  bad.tensor_maps[0].box[1] = 512;
  st = kern->launch({4, 2, 1}, block, c.smem(), *args, bad);
  EXPECT_EQ(st.outcome, Outcome::invalid_config) << st.message;
  EXPECT_NE(st.message.find("box[1] is 512"), std::string::npos) << st.message;
  // the session still works
  auto [ok, equal] = copy(*session_, c, 256, 64);
  EXPECT_TRUE(ok.ok()) << ok.message;
  EXPECT_TRUE(equal);
}

TEST_F(Hopper, EncodedMapIsTheDriversObject) {
  auto args = arguments(*session_, 1024, 64);
  TensorMapSpec m{0, 2, {1024, 64}, {32, 32}, 128};
  const TensorMap a = encode(m, args->dtype(2), args->spec(2).count, args->buffer(2).data());
  const TensorMap b = encode(m, args->dtype(2), args->spec(2).count, args->buffer(2).data());
  EXPECT_EQ(std::memcmp(a.bytes.data(), b.bytes.data(), sizeof(TensorMap)), 0);  // deterministic
  EXPECT_NE(a.bytes, TensorMap{}.bytes);
}

}  // namespace
}  // namespace tune::run

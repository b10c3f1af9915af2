// tune::runtime with a Hopper kernel (spaces/tma_copy.json): the table's configuration brings its
// cluster and dynamic shared memory into the selection, Arg::tensor_map() takes the map's place
// in the arguments, and with a Hopper GPU the launch (compiled for sm_90a, the map encoded from
// the buffer, a cluster launch with 129 KiB of shared memory) copies its input.
#include <gtest/gtest.h>

#include <fstream>
#include <vector>

#include "header/header.h"
#include "space/space.h"
#include "spec/spec.h"
#include "store/test_util.h"
#include "tune/runtime.h"

using namespace tune;
using runtime::Arg;

namespace {

const std::string kSpace = std::string(TUNE_SOURCE_DIR) + "/spaces/tma_copy.json";

// A table with one configuration and no device: every device gets it (Match::default_config).
// tile 32 x 256, 4 stages (129 KiB), 128-byte swizzle, clusters of 2, 256 threads.
std::filesystem::path write_table(const std::filesystem::path& dir) {
  const spec::Spec s = spec::load(kSpace);
  nlohmann::json t;
  t["format"] = "tune-table";
  t["version"] = 2;
  t["kernel"] = "tma_copy";
  t["kernel_name"] = "tma_copy";
  t["space_hash"] = spec::space_hash(s);
  t["parameters"] = {"tile_x", "tile_y", "stages", "swizzle", "cluster_x", "block_size_x"};
  t["variants"] = {{32, 256, 4, 128, 2, 256}};
  t["default"] = 0;
  t["devices"] = nlohmann::json::array();
  auto path = dir / "tma_copy_table.json";
  std::ofstream(path) << t.dump();
  return path;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "";
}

runtime::Options no_disk() {
  runtime::Options o;
  o.disk_cache = false;
  return o;
}

TEST(RuntimeHopper, TheSelectionCarriesClusterAndSharedMemory) {
  store::testing::TempDir dir;
  runtime::Kernel k(kSpace, write_table(dir.path()), no_disk());
  const runtime::Selection s = k.select({1000, 777}, "NVIDIA H200", 9, 0);
  EXPECT_EQ(s.cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_EQ(s.dynamic_smem, 4u * 32 * 256 * 4 + 1024);
  EXPECT_EQ(s.grid, (std::array<unsigned, 3>{8, 4, 1}));
}

// The path of a tuned kernel: measurements in a database, `tune header --table`'s table, the
// runtime's selection with the measured best's cluster and shared memory.
TEST(RuntimeHopper, ATableFromTheDatabaseServesTheTunedConfiguration) {
  store::testing::TempDir dir;
  const spec::Spec spec = spec::load(kSpace);
  const space::Space space = space::Space::build(spec);
  auto db = store::Store::open((dir.path() / "h.db").string(), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "tma_copy";
  info.device = "NVIDIA H200";
  info.compute_capability = "9.0";
  const std::int64_t run_id = db.begin_run(info);
  // the best: tile 32 x 256, 4 stages (129 KiB), clusters of 2; any other configuration is slower
  std::size_t best = space.size();
  for (std::size_t c = 0; c < space.size() && best == space.size(); ++c)
    if (space.params_json(c) ==
        R"({"tile_x":32,"tile_y":256,"stages":4,"swizzle":128,"cluster_x":2,"block_size_x":256})")
      best = c;
  ASSERT_LT(best, space.size());
  for (std::size_t c : {std::size_t{0}, best}) {
    store::Measurement m;
    m.config_id = db.upsert_configuration_text("tma_copy", spec::space_hash(spec), space.params_json(c));
    m.run_id = run_id;
    m.device = info.device;
    m.size = sizes::Size::of(4096, 4096);
    m.samples_ms = std::vector<float>(6, c == best ? 1.0f : 2.0f);
    db.record(m);
  }
  db.finish_run(run_id, store::RunStatus::completed);
  const auto table = dir.path() / "table.json";
  std::ofstream(table) << header::generate_table(header::build(db, "tma_copy", spec), "h.db");
  runtime::Kernel k(kSpace, table, no_disk());
  const runtime::Selection s = k.select({4096, 4096}, "NVIDIA H200", 9, 0);
  EXPECT_EQ(s.match, runtime::Match::exact);
  EXPECT_EQ(s.cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_EQ(s.dynamic_smem, 4u * 32 * 256 * 4 + 1024);
  EXPECT_EQ(s.grid, (std::array<unsigned, 3>{32, 16, 1}));
}

TEST(RuntimeHopper, ATensorMapArgumentIsArgTensorMap) {
  store::testing::TempDir dir;
  runtime::Kernel k(kSpace, write_table(dir.path()), no_disk());
  float* out = reinterpret_cast<float*>(0x1000);
  const float* in = reinterpret_cast<const float*>(0x2000);
  const std::size_t n = 1000 * 777;
  EXPECT_EQ(error_of([&] {
              k.check_arguments({1000, 777}, {Arg::tensor_map(), Arg::buffer(out, n), Arg::buffer(in, n),
                                              Arg::scalar(1000), Arg::scalar(777)});
            }),
            "");
  EXPECT_NE(error_of([&] {
              k.check_arguments({1000, 777}, {Arg::buffer(in, n), Arg::buffer(out, n), Arg::buffer(in, n),
                                              Arg::scalar(1000), Arg::scalar(777)});
            }).find("argument 0 'in_map' is a tensor map in the spec: pass Arg::tensor_map()"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              k.check_arguments({1000, 777}, {Arg::tensor_map(), Arg::tensor_map(), Arg::buffer(in, n),
                                              Arg::scalar(1000), Arg::scalar(777)});
            }).find("argument 1 'out' is no tensor map in the spec"),
            std::string::npos);
}

TEST(RuntimeHopper, LaunchOnAHopperGpuCopiesTheInput) {
  int n_dev = 0;
  cudaDeviceProp prop{};
  if (cudaGetDeviceCount(&n_dev) != cudaSuccess || n_dev == 0) {
    (void)cudaGetLastError();
    GTEST_SKIP() << "no GPU";
  }
  ASSERT_EQ(cudaGetDeviceProperties(&prop, 0), cudaSuccess);
  if (prop.major != 9 || prop.minor != 0) GTEST_SKIP() << "not compute capability 9.0";
  store::testing::TempDir dir;
  runtime::Kernel k(kSpace, write_table(dir.path()), no_disk());
  const int cols = 1000, rows = 777;
  const std::size_t n = std::size_t(cols) * rows;
  std::vector<float> host(n), back(n);
  for (std::size_t i = 0; i < n; ++i) host[i] = float(i % 9973) * 0.25f;
  float *in = nullptr, *out = nullptr;
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&in), n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(float)), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), cudaSuccess);
  ASSERT_EQ(cudaMemset(out, 0xFF, n * sizeof(float)), cudaSuccess);
  const auto& s = k.launch(nullptr, {cols, rows},
                           {Arg::tensor_map(), Arg::buffer(out, n), Arg::buffer(static_cast<const float*>(in), n),
                            Arg::scalar(cols), Arg::scalar(rows)});
  EXPECT_EQ(s.cluster[0], 2u);
  ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
  ASSERT_EQ(cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost), cudaSuccess);
  EXPECT_EQ(back, host);
  cudaFree(in);
  cudaFree(out);
}

}  // namespace

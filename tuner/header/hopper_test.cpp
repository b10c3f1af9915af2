// The dispatch header of a Hopper space (spaces/tma_copy.json): per variant the cluster, the
// dynamic shared memory and the tensor map's box and swizzle; launch() encodes the map from its
// buffer and launches with cudaLaunchKernelEx; the header compiles with nvcc for sm_90a, and on a
// GPU an application launches both variants through it and checks their copies.
#include <gtest/gtest.h>

#include <fstream>

#include "compile/source.h"
#include "header/header.h"
#include "header/test_util.h"
#include "space/space.h"
#include "spec/bind.h"
#include "store/test_util.h"

using namespace tune;
using header::testing::run;

namespace {

void write(const std::filesystem::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(HeaderHopper, DispatchOfATensorMapClusterSpaceCompilesForSm90a) {
  store::testing::TempDir dir;
  const spec::Spec spec = spec::load(header::testing::source_dir() + "/spaces/tma_copy.json");
  const space::Space space = space::Space::build(spec);
  auto db = store::Store::open((dir.path() / "h.db").string(), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "tma_copy";
  info.device = "NVIDIA H200";
  info.compute_capability = "9.0";
  const std::int64_t run_id = db.begin_run(info);
  const std::string hopper = R"({"tile_x":32,"tile_y":256,"stages":4,"swizzle":128,"cluster_x":2,"block_size_x":256})";
  std::size_t best = space.size();
  for (std::size_t c = 0; c < space.size() && best == space.size(); ++c)
    if (space.params_json(c) == hopper) best = c;
  ASSERT_LT(best, space.size());
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t c : {std::size_t{0}, best}) {
      store::Measurement m;
      m.config_id = db.upsert_configuration_text("tma_copy", spec::space_hash(spec), space.params_json(c));
      m.run_id = run_id;
      m.device = info.device;
      m.size = i == 0 ? sizes::Size::of(1024, 1024) : sizes::Size::of(4096, 4096);
      m.samples_ms = std::vector<float>(6, (c == best) == (i == 1) ? 1.0f : 2.0f);
      db.record(m);
    }
  db.finish_run(run_id, store::RunStatus::completed);
  const auto model = header::build(db, "tma_copy", spec);
  compile::SourceOptions bare;
  bare.line_markers = false;
  const std::string cuh =
      header::generate_dispatch(model, compile::read_kernel_source(spec.kernel.file_path, "tma", bare).text, "h.db");
  EXPECT_NE(cuh.find("-gencode=arch=compute_90a,code=sm_90a"), std::string::npos);
  EXPECT_NE(cuh.find("#include <cudaTypedefs.h>"), std::string::npos);
  EXPECT_NE(cuh.find("inline constexpr unsigned cluster[][3] = {"), std::string::npos);
  EXPECT_NE(cuh.find("{2, 1, 1}"), std::string::npos);                              // the cluster of 2
  EXPECT_NE(cuh.find(std::to_string(4 * 32 * 256 * 4 + 1024)), std::string::npos);  // its 129 KiB
  EXPECT_NE(cuh.find("map_in_map_box[][2] = {"), std::string::npos);
  EXPECT_NE(cuh.find("{32, 256, }"), std::string::npos);
  EXPECT_NE(cuh.find("cudaLaunchKernelExC"), std::string::npos);
  // the application passes the buffers and scalars; the map is not a parameter of launch()
  EXPECT_NE(cuh.find("float* arg_out, const float* arg_in, int arg_cols, int arg_rows"), std::string::npos);
  const auto& d = dir.path();
  write(d / "tma_copy_dispatch.cuh", cuh);
  // With a GPU the application launches both variants (at 4096x4096 the cluster of 2 with 129 KiB
  // of shared memory and a swizzled map) and checks the copy; without one it stops after the
  // compile. It prints only what went wrong.
  write(d / "app.cu", R"(#include "tma_copy_dispatch.cuh"
#include <cstdio>
#include <vector>
static int copy_at(int cols, int rows) {
  const size_t n = size_t(cols) * size_t(rows);
  std::vector<float> host(n), back(n);
  for (size_t i = 0; i < n; ++i) host[i] = float(i % 9973) * 0.25f;
  float *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * 4) != cudaSuccess || cudaMalloc(&out, n * 4) != cudaSuccess) return 1;
  cudaMemcpy(in, host.data(), n * 4, cudaMemcpyHostToDevice);
  cudaMemset(out, 0, n * 4);
  cudaError_t e = tune_tuned::tma_copy::launch(nullptr, cols, rows, 1, out, in, cols, rows);
  if (e == cudaSuccess) e = cudaDeviceSynchronize();
  if (e != cudaSuccess) {
    std::printf("%dx%d: %s\n", cols, rows, cudaGetErrorString(e));
    return 1;
  }
  cudaMemcpy(back.data(), out, n * 4, cudaMemcpyDeviceToHost);
  for (size_t i = 0; i < n; ++i)
    if (back[i] != host[i]) {
      std::printf("%dx%d: element %zu is %g, not %g\n", cols, rows, i, back[i], host[i]);
      return 1;
    }
  cudaFree(in);
  cudaFree(out);
  return 0;
}
int main() {
  if (tune_tuned::tma_copy::num_variants < 2) return 1;
  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess || gpus == 0) return 0;
  return copy_at(1024, 1024) | copy_at(4096, 4096);
}
)");
  const std::string s = d.string();
  EXPECT_EQ(run(header::testing::nvcc() + " -std=c++17 -gencode=arch=compute_90a,code=sm_90a -Xcompiler -Werror -o " +
                s + "/app " + s + "/app.cu && " + s + "/app"),
            "");
}

TEST(HeaderHopper, ARuleThatReadsProblemSizeIsRefused) {
  std::ifstream f(header::testing::source_dir() + "/spaces/tma_copy.json");
  nlohmann::json j = nlohmann::json::parse(f);
  j["Tune"]["dynamic_shared_memory"] = "ProblemSize[0] * 4";
  const spec::Spec spec = spec::parse(j.dump(), header::testing::source_dir() + "/spaces/tma_copy.json");
  header::Model model;
  model.spec = &spec;
  model.kernel = model.ns = "tma_copy";
  model.params = {"tile_x", "tile_y", "stages", "swizzle", "cluster_x", "block_size_x"};
  header::Variant v;
  v.values = spec::default_values(spec);
  model.variants.push_back(v);
  try {
    header::generate_dispatch(model, "extern \"C\" __global__ void tma_copy() {}\n", "h.db");
    FAIL() << "accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("Tune.dynamic_shared_memory"), std::string::npos) << e.what();
  }
}

}  // namespace

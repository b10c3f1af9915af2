// GPU test: the Hopper 3xTF32 GEMM (kernels_src/gemm_wgmma.cu: wgmma fed by TMA) keeps FP32-class
// accuracy and covers every element of C. As MmaAccuracy does for the mma.sync family, it measures
// the worst |c - exact| / sum_k |a b| against an FP64 product on the host: within the classical
// FP32 dot-product bound (K u, u = 2^-24) and at least 30 times below a plain TF32 product (inputs
// rounded to TF32, emulated on the host), for each warp layout of the space (one or two consumer
// warpgroups, one or two m64 blocks each, wgmma N of 128 and 256, the split's ring of one buffer
// per stage or of two), at a size with tails in M, N and K (the TMA's out-of-bounds zeros) and
// with beta != 0 (C read back). Skips without a Hopper GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <vector>

#include "compile/compile.h"
#include "compile/source.h"
#include "run/run.h"
#include "run/test_args.h"

namespace tune::run {
namespace {

using testing::buffer;
using testing::scalar;

struct Shape {
  int tile_m, tile_n, consumers, stages, group, split_ring = 0;
  std::size_t smem() const {
    return std::size_t(stages) * (tile_m + tile_n) * 128 +
           std::size_t(split_ring == 0 ? stages : split_ring) * tile_m * 128 + 1024;
  }
};

struct Problem {
  int m, n, k;
  float alpha, beta;
  std::vector<float> a, b, c;  // c: C's input (beta * C is added)
};

float tf32(float x) {  // cvt.rna.tf32.f32: to nearest, ties away from zero, 10 mantissa bits
  std::uint32_t u;
  std::memcpy(&u, &x, 4);
  u = (u + 0x1000u) & 0xffffe000u;
  std::memcpy(&x, &u, 4);
  return x;
}

Problem problem(int m, int n, int k, std::uint64_t seed) {
  Problem p{m,
            n,
            k,
            1.0f,
            0.5f,
            std::vector<float>(std::size_t(m) * k),
            std::vector<float>(std::size_t(k) * n),
            std::vector<float>(std::size_t(m) * n)};
  SplitMix64 rng(seed);
  auto next = [&rng] { return float(double(rng.next() >> 40) / double(1ULL << 24) * 2.0 - 1.0); };  // [-1, 1)
  for (auto* v : {&p.a, &p.b, &p.c})
    for (float& x : *v) x = next();
  return p;
}

// C = alpha A B + beta C with one configuration; C as the kernel left it.
std::vector<float> run_wgmma(Session& session, const Shape& s, const Problem& p) {
  compile::CompileRequest req;
  // the program as tune compiles it: common/wgmma_tf32.cuh written in
  req.source =
      compile::read_kernel_source(std::string(TUNE_SOURCE_DIR) + "/kernels_src/gemm_wgmma.cu", "gemm_wgmma").text;
  req.source_name = "kernels_src/gemm_wgmma.cu";
  req.kernel_name = "gemm_wgmma";
  req.arch = "sm_90a";
  req.defines = {{"tile_m", std::to_string(s.tile_m)},       {"tile_n", std::to_string(s.tile_n)},
                 {"consumers", std::to_string(s.consumers)}, {"stages", std::to_string(s.stages)},
                 {"group", std::to_string(s.group)},         {"split_ring", std::to_string(s.split_ring)}};
  const compile::CompileResult res = compile::compile(req);
  if (!res.ok()) throw Error("gemm_wgmma.cu does not compile: " + res.log);
  LoadedKernel kernel(session, res.cubin, res.lowered_name);
  ArgSpec map;
  map.scalar = true;
  map.count = 1;
  map.tensor_map = true;
  ArgSpec a_map = map, b_map = map;
  a_map.name = "a_map";
  b_map.name = "b_map";
  ArgSet args(session,
              {a_map, b_map, buffer("C", p.c.size(), FillKind::constant, 0.0, true),
               buffer("A", p.a.size(), FillKind::constant, 0.0), buffer("B", p.b.size(), FillKind::constant, 0.0),
               scalar("M", "int32", p.m), scalar("N", "int32", p.n), scalar("K", "int32", p.k),
               scalar("alpha", "float", p.alpha), scalar("beta", "float", p.beta)},
              1);
  args.buffer("C").upload(std::span<const float>(p.c));
  args.buffer("A").upload(std::span<const float>(p.a));
  args.buffer("B").upload(std::span<const float>(p.b));
  LaunchExtras x;
  x.tensor_maps.push_back({0, 3, {std::uint64_t(p.k), std::uint64_t(p.m)}, {32, std::uint32_t(s.tile_m)}, 128});
  x.tensor_maps.push_back({1, 4, {std::uint64_t(p.n), std::uint64_t(p.k)}, {32, 32}, 128});
  const Dim3 grid{unsigned((p.n + s.tile_n - 1) / s.tile_n), unsigned((p.m + s.tile_m - 1) / s.tile_m), 1};
  const LaunchStatus st = kernel.launch(grid, {unsigned(128 * (s.consumers + 1)), 1, 1}, s.smem(), args, x);
  if (!st.ok()) throw Error("gemm_wgmma launch: " + st.message);
  const LaunchStatus done = session.synchronize("gemm_wgmma");
  if (!done.ok()) throw Error("gemm_wgmma: " + done.message);
  return args.buffer("C").download_as<float>();
}

struct Errors {
  double three = 0, plain = 0;  // worst |c - exact| / (sum |alpha a b| + |beta c|)
};

Errors errors(const Problem& p, const std::vector<float>& got) {
  Errors e;
  for (int i = 0; i < p.m; ++i)
    for (int j = 0; j < p.n; ++j) {
      double exact = 0, scale = 0, plain = 0;
      for (int q = 0; q < p.k; ++q) {
        const double x = p.a[std::size_t(i) * p.k + q], y = p.b[std::size_t(q) * p.n + j];
        exact += x * y;
        scale += std::fabs(x * y);
        plain += double(tf32(float(x))) * double(tf32(float(y)));
      }
      const double cin = p.c[std::size_t(i) * p.n + j];
      const double want = p.alpha * exact + p.beta * cin, mag = std::fabs(p.alpha) * scale + std::fabs(p.beta * cin);
      const double c = got[std::size_t(i) * p.n + j];  // NaN (an unwritten poison) fails below
      e.three = std::isnan(c) ? INFINITY : std::max(e.three, std::fabs(c - want) / mag);
      e.plain = std::max(e.plain, std::fabs(p.alpha * plain + p.beta * cin - want) / mag);
    }
  return e;
}

TEST(WgmmaAccuracy, ThreeTf32WgmmaGemmKeepsFp32Accuracy) {
  if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
  Session session(0);
  if (session.device().arch != "sm_90") GTEST_SKIP() << "not a Hopper GPU: " << session.device().arch;
  const std::vector<Shape> shapes = {
      {128, 128, 2, 4, 1},     // the default: two consumer warpgroups, wgmma N 128
      {256, 128, 2, 2, 8},     // wgmma N 256, grouped block order
      {128, 256, 2, 3, 1},     // two m64 blocks per warpgroup
      {128, 128, 1, 4, 1},     // one consumer warpgroup with two m64 blocks
      {256, 64, 1, 3, 8},      // one consumer warpgroup, one block, N 256
      {128, 256, 2, 4, 1, 2},  // A's small part in a ring of two buffers, four stages
      {256, 128, 2, 3, 8, 2},
  };
  // 512 x 512 x 256 as MmaAccuracy; 300 x 200 x 100: tails in every dimension (K a multiple of 4)
  for (auto [m, n, k] : {std::array{512, 512, 256}, std::array{300, 200, 100}}) {
    const Problem p = problem(m, n, k, 12345 + m);
    for (const Shape& s : shapes) {
      SCOPED_TRACE("tile " + std::to_string(s.tile_m) + "x" + std::to_string(s.tile_n) + " consumers " +
                   std::to_string(s.consumers) + " at " + std::to_string(m) + "x" + std::to_string(n) + "x" +
                   std::to_string(k));
      const Errors e = errors(p, run_wgmma(session, s, p));
      std::printf(
          "worst |error| / sum|a b| at %dx%dx%d, tile %dx%d, %d consumer(s): 3xTF32 wgmma %.3g, plain TF32 "
          "(host) %.3g\n",
          m, n, k, s.tile_m, s.tile_n, s.consumers, e.three, e.plain);
      EXPECT_LE(e.three, k * std::ldexp(1.0, -24));
      EXPECT_GE(e.plain, 30.0 * e.three);
    }
  }
}

}  // namespace
}  // namespace tune::run

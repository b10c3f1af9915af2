// bench.cu's pieces (see its opening comment): the device helpers, the configurations it explores,
// the GPU state, event timing and one configuration's measurement at one size. Included once, by
// bench.cu.
#pragma once
#include <cublas_v2.h>
#include <cuda.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "compile/compile.h"
#include "compile/pool.h"

using tune::compile::CompileRequest;
using tune::compile::CompileResult;

#define CK(x)                                                                                   \
  do {                                                                                          \
    cudaError_t e_ = (x);                                                                       \
    if (e_ != cudaSuccess) {                                                                    \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_));   \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)
#define CKD(x)                                                                                  \
  do {                                                                                          \
    CUresult e_ = (x);                                                                          \
    if (e_ != CUDA_SUCCESS) {                                                                   \
      const char* s_ = nullptr;                                                                 \
      cuGetErrorString(e_, &s_);                                                                \
      std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, s_ ? s_ : "?");            \
      std::exit(1);                                                                             \
    }                                                                                           \
  } while (0)

// ---- device helpers (nvcc-compiled) ----
__device__ __forceinline__ unsigned hash32(unsigned long long x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ULL;
  x ^= x >> 33;
  return static_cast<unsigned>(x);
}
__global__ void fill(float* a, size_t n, unsigned seed) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    a[i] = (hash32(i * 2654435761ULL + seed) >> 8) * (1.0f / 16777216.0f) * 2.0f - 1.0f + 1e-7f;
}
__global__ void check_transpose(const float* out, const float* in, int rows, int cols, unsigned long long* bad) {
  const size_t n = size_t(rows) * cols;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    const size_t c = i / rows, r = i % rows;
    if (__float_as_uint(out[i]) != __float_as_uint(in[r * cols + c])) atomicAdd(bad, 1ULL);
  }
}
__global__ void check_copy(const float* out, const float* in, size_t n, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (__float_as_uint(out[i]) != __float_as_uint(in[i])) atomicAdd(bad, 1ULL);
}
__global__ void check_inc(const float* a, const float* orig, size_t n, unsigned long long* bad) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    if (__float_as_uint(a[i]) != __float_as_uint(orig[i] + 1.0f)) atomicAdd(bad, 1ULL);
}

// ---- configurations ----
using Params = std::vector<std::pair<std::string, int>>;
struct Config {
  std::string kernel;  // transpose, copy, copy_shared, copy_vec, offset_access, stride_access
  Params p;
  int get(const char* k, int dflt) const {
    for (auto& [n, v] : p)
      if (n == k) return v;
    return dflt;
  }
  std::string str() const {
    std::string s;
    for (auto& [n, v] : p) s += (s.empty() ? "" : " ") + n + "=" + std::to_string(v);
    return s;
  }
  bool one_d() const { return kernel == "offset_access" || kernel == "stride_access"; }
};

struct Size {
  int rows, cols;
};

static std::string read_file(const std::string& path) {
  std::ifstream f(path);
  if (!f) {
    std::fprintf(stderr, "cannot read %s\n", path.c_str());
    std::exit(1);
  }
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

static std::vector<Config> transpose_core() {
  std::vector<Config> out;
  for (int V : {1, 2, 4})
    for (int TX : {32, 64, 128})
      for (int by : {1, 2, 4, 8, 16, 32})
        for (int tsy : {1, 2, 4, 8, 16}) {
          const int bx = TX / V, TY = by * tsy, T = bx * by;
          if (TY % V || T < 64 || T > 1024 || V * tsy > 32 || TY < 8 || TY > 128) continue;
          for (int sh : {0, 1}) {
            if (!sh && tsy % V) continue;
            for (int pad : {0, 1}) {
              if (!sh && pad) continue;
              if (sh && TY * (TX + pad) * 4 > 48 * 1024) continue;
              out.push_back({"transpose", {{"block_size_x", bx}, {"block_size_y", by}, {"tile_size_y", tsy},
                                           {"vector", V}, {"use_shared", sh}, {"padding", pad},
                                           {"diagonal", 0}, {"group", 1}, {"tiles", 1}, {"streaming", 0}}});
            }
          }
        }
  return out;
}

static std::vector<Config> copy_configs() {
  std::vector<Config> out;
  for (const char* k : {"copy", "copy_shared"})
    for (int V : {1, 2, 4})
      for (int bx : {32, 64, 128, 256})
        for (int by : {1, 2, 4, 8})
          for (int tsy : {1, 2, 4, 8}) {
            const int T = bx * by;
            if (T < 64 || T > 1024 || bx * V > 256) continue;
            if (std::string(k) == "copy_shared" && by * tsy * bx * V * 4 > 48 * 1024) continue;
            out.push_back({k, {{"block_size_x", bx}, {"block_size_y", by}, {"tile_size_y", tsy}, {"vector", V}, {"streaming", 0}}});
          }
  for (int V : {2, 4})
    for (int bx : {128, 256, 512, 1024})
      for (int tsy : {1, 2, 4, 8})
        for (int st : {0, 1})
          out.push_back({"copy_vec", {{"block_size_x", bx}, {"block_size_y", 1}, {"tile_size_y", tsy}, {"vector", V}, {"streaming", st}}});
  for (int off = 0; off <= 32; ++off) out.push_back({"offset_access", {{"block_size_x", 256}, {"access_offset", off}}});
  for (int s = 1; s <= 32; ++s) out.push_back({"stride_access", {{"block_size_x", 256}, {"access_stride", s}}});
  return out;
}

// ---- GPU state ----
struct Gpu {
  float *in = nullptr, *out = nullptr, *orig = nullptr;
  unsigned long long* bad = nullptr;
  cudaEvent_t e0, e1;
  cublasHandle_t blas;
};

struct Loaded {
  Config cfg;
  CUmodule mod = nullptr;
  CUfunction fn = nullptr;
  bool ok = false;
  std::string why;
  int regs = 0, smem = 0, occupancy = 0;  // occupancy: resident blocks per SM
};

static double median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Times `launch` with events: one warm-up, then enough runs for ~25 ms (5..50), median in ms.
template <class F>
static double time_ms(Gpu& g, F&& launch) {
  const auto once = [&] {  // one launch between the events, in ms
    CK(cudaEventRecord(g.e0));
    launch();
    CK(cudaEventRecord(g.e1));
    CK(cudaEventSynchronize(g.e1));
    float ms = 0;
    CK(cudaEventElapsedTime(&ms, g.e0, g.e1));
    return ms;
  };
  launch();
  const float first = once();
  const int reps = std::clamp(static_cast<int>(25.0 / std::max(first, 1e-3f)), 5, 50);
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) t.push_back(once());
  CK(cudaGetLastError());
  return median(t);
}

static unsigned long long read_bad(Gpu& g) {
  unsigned long long b = 0;
  CK(cudaMemcpy(&b, g.bad, sizeof b, cudaMemcpyDeviceToHost));
  return b;
}

struct Launch {
  dim3 grid, block;
};

static int g_sms = 132;

static Launch geometry(const Config& c, Size s, int occupancy = 0) {
  const int bx = c.get("block_size_x", 32), by = c.get("block_size_y", 1), V = c.get("vector", 1);
  if (c.get("persist_grid", 0) && occupancy > 0) return {dim3(occupancy * g_sms), dim3(bx, by)};
  const int tsy = c.get("tile_size_y", 1), tiles = c.get("tiles", 1);
  if (c.one_d()) return {dim3((s.cols + bx - 1) / bx), dim3(bx)};
  const int gx = (s.cols + bx * V - 1) / (bx * V), gy = (s.rows + by * tsy * tiles - 1) / (by * tsy * tiles);
  return {dim3(gx, gy), dim3(bx, by)};
}

struct Row {
  std::string kernel, params;
  int rows, cols;
  bool ok;
  double ms, gbs;
};

static Row measure(Gpu& g, const Loaded& L, Size s) {
  Row row{L.cfg.kernel, L.cfg.str(), s.rows, s.cols, false, 0, 0};
  const size_t n = size_t(s.rows) * s.cols;
  const Launch ln = geometry(L.cfg, s, L.occupancy);
  int rows = s.rows, cols = s.cols, nn = static_cast<int>(n);
  void* args2d[] = {&g.out, &g.in, &rows, &cols};
  void* args1d[] = {&g.out, &nn};
  void** args = L.cfg.one_d() ? args1d : args2d;
  auto launch = [&] {
    CKD(cuLaunchKernel(L.fn, ln.grid.x, ln.grid.y, 1, ln.block.x, ln.block.y, 1, 0, nullptr, args, nullptr));
  };
  CK(cudaMemset(g.bad, 0, sizeof(unsigned long long)));
  if (L.cfg.one_d()) {
    CK(cudaMemcpy(g.out, g.orig, n * 4, cudaMemcpyDeviceToDevice));
    launch();
    check_inc<<<1024, 256>>>(g.out, g.orig, n, g.bad);
  } else {
    CK(cudaMemset(g.out, 0xff, n * 4));
    launch();
    if (L.cfg.kernel == "transpose") check_transpose<<<1024, 256>>>(g.out, g.in, s.rows, s.cols, g.bad);
    else check_copy<<<1024, 256>>>(g.out, g.in, n, g.bad);
  }
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  row.ok = read_bad(g) == 0;
  row.ms = time_ms(g, launch);
  row.gbs = 2.0 * n * 4 / (row.ms * 1e6);
  return row;
}


#include "run/compute_ceilings.h"

#include <cmath>
#include <cstring>
#include <span>
#include <vector>

#include "common/ready.h"
#include "run/blas.h"
#include "run/ceiling_util.h"
#include "run/cuda.h"
#include "run/verify.h"

namespace tune::run {
namespace {

using namespace detail;

// Every thread starts chain j at fma(tid mod 1024, s, j) and applies a = fma(a, m, c) for
// `iterations` steps; the chains are independent, so each SM sub-partition always has FMAs ready.
// The sum of the chains is written with plain adds (no contraction), in chain order.
const char* kFmaSource = R"(
#ifndef CHAINS
#define CHAINS 8
#endif
extern "C" __global__ void __launch_bounds__(256) tune_fp32_fma(float* out, float m, float c, float s,
                                                                 int iterations) {
  const unsigned tid = blockIdx.x * blockDim.x + threadIdx.x;
  float a[CHAINS];
#pragma unroll
  for (int j = 0; j < CHAINS; ++j) a[j] = __fmaf_rn((float)(tid & 1023u), s, (float)j);
#pragma unroll 16
  for (int i = 0; i < iterations; ++i) {
#pragma unroll
    for (int j = 0; j < CHAINS; ++j) a[j] = __fmaf_rn(a[j], m, c);
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < CHAINS; ++j) sum = __fadd_rn(sum, a[j]);
  out[tid] = sum;
}
)";

// One warp per row of a row-major rows x cols matrix: each lane scans its columns in ascending
// order keeping the first maximum, then the warp reduces (higher score, else lower index).
// float4 loads when a row is a whole number of float4; NaN scores never win.
const char* kArgmaxSource = R"(
extern "C" __global__ void __launch_bounds__(256) tune_row_argmax(const float* __restrict__ scores, int rows,
                                                                   int cols, float* __restrict__ best_score,
                                                                   int* __restrict__ best_index) {
  const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;  // whole warps
  const float* r = scores + (unsigned long long)row * cols;
  float best = __int_as_float(0xff800000);  // -inf
  int idx = 0x7fffffff;
  if ((cols & 3) == 0) {
    const float4* r4 = reinterpret_cast<const float4*>(r);
    const int n4 = cols >> 2;
#pragma unroll 4
    for (int j = lane; j < n4; j += 32) {
      const float4 v = __ldcs(r4 + j);
      if (v.x > best) { best = v.x; idx = 4 * j; }
      if (v.y > best) { best = v.y; idx = 4 * j + 1; }
      if (v.z > best) { best = v.z; idx = 4 * j + 2; }
      if (v.w > best) { best = v.w; idx = 4 * j + 3; }
    }
  } else {
#pragma unroll 4
    for (int j = lane; j < cols; j += 32) {
      const float v = __ldcs(r + j);
      if (v > best) { best = v; idx = j; }
    }
  }
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_xor_sync(0xffffffffu, best, offset);
    const int other_idx = __shfl_xor_sync(0xffffffffu, idx, offset);
    if (other > best || (other == best && other_idx < idx)) { best = other; idx = other_idx; }
  }
  if (lane == 0) {
    best_score[row] = best;
    best_index[row] = idx;
  }
}
)";

compile::CompileRequest request(const char* source, const char* name, const std::string& arch) {
  compile::CompileRequest r;
  r.source = source;
  r.source_name = std::string(name) + ".cu";
  r.kernel_name = name;
  r.arch = arch;
  return r;
}

std::unique_ptr<LoadedKernel> build(Session& session, std::future<compile::CompileResult>& compiling,
                                    const std::string& name) {
  const compile::CompileResult res = compiling.get();
  if (!res.ok()) throw Error("the ceiling kernel " + name + " does not compile: " + res.log);
  return std::make_unique<LoadedKernel>(session, std::vector<char>(res.cubin.begin(), res.cubin.end()), name);
}

// The host evaluation of one thread's output (see kFmaSource).
float host_chains(unsigned tid, float m, float c, float s) {
  float sum = 0.0f;
  for (int j = 0; j < kFmaChains; ++j) {
    float a = std::fmaf(static_cast<float>(tid & 1023u), s, static_cast<float>(j));
    for (int i = 0; i < kFmaIterations; ++i) a = std::fmaf(a, m, c);
    sum += a;
  }
  return sum;
}

}  // namespace

compile::CompileRequest fp32_peak_request(const std::string& arch) {
  auto r = request(kFmaSource, "tune_fp32_fma", arch);
  r.defines = {{"CHAINS", std::to_string(kFmaChains)}};
  return r;
}

compile::CompileRequest row_argmax_request(const std::string& arch) {
  return request(kArgmaxSource, "tune_row_argmax", arch);
}

CeilingKernels::CeilingKernels(Session& session) : session_(session) {
  auto start = [](compile::CompileRequest r) {
    return std::async(std::launch::async, [r = std::move(r)] { return compile::compile(r); });
  };
  fma_compile_ = start(fp32_peak_request(session.device().arch));
  argmax_compile_ = start(row_argmax_request(session.device().arch));
}

bool CeilingKernels::ready() const { return tune::ready(fma_compile_) && tune::ready(argmax_compile_); }

LoadedKernel& CeilingKernels::fma() {
  if (!fma_) fma_ = build(session_, fma_compile_, fp32_peak_request(session_.device().arch).kernel_name);
  return *fma_;
}

LoadedKernel& CeilingKernels::argmax() {
  if (!argmax_) argmax_ = build(session_, argmax_compile_, row_argmax_request(session_.device().arch).kernel_name);
  return *argmax_;
}

Ceiling fp32_peak(Session& session, CeilingKernels& kernels, const TimingOptions& options) {
  const unsigned blocks = static_cast<unsigned>(kFmaBlocksPerSm * session.device().sm_count);
  const std::size_t threads = std::size_t{blocks} * kFmaBlock;
  Ceiling c;
  c.name = "fp32_peak " + std::to_string(blocks) + "x" + std::to_string(kFmaBlock) + " threads x " +
           std::to_string(kFmaChains) + " chains x " + std::to_string(kFmaIterations) + " FMAs";
  c.unit = "GFLOP/s";
  LoadedKernel& k = kernels.fma();
  DeviceBuffer out(threads * sizeof(float));
  out.poison();
  void* po = out.data();
  float m = 0.9999f, add = 1.3e-4f, s = 1.0f / 1024.0f;
  int iterations = kFmaIterations;
  void* argv[] = {&po, &m, &add, &s, &iterations};
  const std::string what = k.describe_launch({blocks}, {kFmaBlock}, 0);  // not built between the events
  c.timing = measure(
      session,
      [&] { return classify(cudaLaunchKernel(k.handle(), dim3(blocks), dim3(kFmaBlock), argv, 0, nullptr), what); },
      options);
  finish(c, 2.0 * static_cast<double>(threads) * kFmaChains * kFmaIterations);
  if (!c.timing.ok()) return c;
  const std::vector<float> got = out.download_as<float>();
  if (const std::size_t unwritten =
          count_unwritten(DType{Scalar::float32, 1}, std::as_bytes(std::span<const float>(got)))) {
    c.check = std::to_string(unwritten) + " of " + std::to_string(threads) + " outputs unwritten";
    return c;
  }
  SplitMix64 pick(kCeilingSeed);
  for (int sample = 0; sample < 32; ++sample) {
    const unsigned cls = sample == 0 ? 0u : sample == 1 ? 1023u : static_cast<unsigned>(pick.next() % 1024);
    const float want = host_chains(cls, m, add, s);
    for (std::size_t t = cls; t < threads; t += 1024)
      // bit for bit, NaN included: the chains are the same arithmetic on both sides
      if (std::memcmp(&got[t], &want, sizeof want) != 0) {  // NOLINT(bugprone-suspicious-memory-comparison)
        c.check = "thread " + std::to_string(t) + " wrote " + std::to_string(got[t]) + ", the host chains give " +
                  std::to_string(want);
        return c;
      }
  }
  c.verified = true;
  c.check = "every output of 32 thread classes equals the host FMA chains bit for bit";
  return c;
}

Ceiling cublas_sgemm_argmax(Session& session, CeilingKernels& kernels, std::size_t n2, std::size_t n1, std::size_t dim,
                            const TimingOptions& options) {
  const int im = as_int(n2, "n2"), in = as_int(n1, "n1"), ik = as_int(dim, "dim");
  Ceiling c;
  c.name = "cublas_sgemm_argmax " + std::to_string(n2) + "x" + std::to_string(n1) + "x" + std::to_string(dim);
  c.unit = "GFLOP/s";
  LoadedKernel& argmax = kernels.argmax();
  const DType f32{Scalar::float32, 1};
  DeviceBuffer set1(n1 * dim * sizeof(float)), set2(n2 * dim * sizeof(float)), scores(n1 * n2 * sizeof(float));
  DeviceBuffer best(n1 * sizeof(float)), index(n1 * sizeof(int));
  set1.fill_random(f32, derive_seed(kCeilingSeed, 0), 1.0);
  set2.fill_random(f32, derive_seed(kCeilingSeed, 1), 1.0);
  scores.poison();
  best.poison();
  index.poison();
  cublasHandle_t h = session.blas().get();
  const BlasApi& api = blas();
  check_blas(api.set_math_mode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
  const float alpha = 1.0f, beta = 0.0f;
  auto* p1 = static_cast<const float*>(set1.data());
  auto* p2 = static_cast<const float*>(set2.data());
  auto* ps = static_cast<float*>(scores.data());
  void* pb = best.data();
  void* pi = index.data();
  int rows = in, cols = im;
  void* argv[] = {&ps, &rows, &cols, &pb, &pi};
  const unsigned grid = static_cast<unsigned>((n1 + 7) / 8);
  const std::string what = argmax.describe_launch({grid}, {256}, 0), sgemm = "cublasSgemm";
  // Column-major view: C (n2 x n1, ldc n2) = set2 (dim x n2 col-major, transposed) * set1 (dim x n1),
  // so C[j + i * n2] = <set1 row i, set2 row j>: the row-major n1 x n2 score matrix.
  c.timing = measure(
      session,
      [&] {
        LaunchStatus st = blas_status(
            api.sgemm(h, CUBLAS_OP_T, CUBLAS_OP_N, im, in, ik, &alpha, p2, ik, p1, ik, &beta, ps, im), sgemm);
        if (!st.ok()) return st;
        return classify(cudaLaunchKernel(argmax.handle(), dim3(grid), dim3(256), argv, 0, nullptr), what);
      },
      for_blas(options));
  finish(c, 2.0 * static_cast<double>(n1) * static_cast<double>(n2) * static_cast<double>(dim));
  if (!c.timing.ok()) return c;
  const std::vector<float> h1 = set1.download_as<float>(), h2 = set2.download_as<float>(),
                           hb = best.download_as<float>();
  const std::vector<int> hi = index.download_as<int>();
  SplitMix64 pick(kCeilingSeed);
  std::vector<double> row(n2), magnitude(n2);
  for (int sample = 0; sample < 32; ++sample) {
    const std::size_t i = sample == 0 ? 0 : sample == 1 ? n1 - 1 : pick.next() % n1;
    std::size_t h_best = 0;
    for (std::size_t j = 0; j < n2; ++j) {
      double sum = 0, mag = 0;
      for (std::size_t p = 0; p < dim; ++p) {
        const double term = static_cast<double>(h1[i * dim + p]) * h2[j * dim + p];
        sum += term;
        mag += std::fabs(term);
      }
      row[j] = sum;
      magnitude[j] = mag;
      if (sum > row[h_best]) h_best = j;
    }
    const std::string where = "row " + std::to_string(i) + ": ";
    const int d = hi[i];
    if (d < 0 || static_cast<std::size_t>(d) >= n2) {
      c.check = where + "index " + std::to_string(d) + " out of range (host argmax " + std::to_string(h_best) + ")";
      return c;
    }
    const auto dj = static_cast<std::size_t>(d);
    if (dj != h_best && !(std::fabs(row[dj] - row[h_best]) <= 1e-5 * std::fabs(row[h_best]))) {
      c.check = where + "index " + std::to_string(d) + " (host score " + std::to_string(row[dj]) + "), host argmax " +
                std::to_string(h_best) + " (" + std::to_string(row[h_best]) + ")";
      return c;
    }
    if (!(std::fabs(hb[i] - row[dj]) <= 1e-4 * magnitude[dj])) {
      c.check = where + "best score " + std::to_string(hb[i]) + ", host score of index " + std::to_string(d) + " " +
                std::to_string(row[dj]);
      return c;
    }
  }
  c.verified = true;
  c.check = "32 sampled rows match the double-precision host argmax";
  return c;
}

}  // namespace tune::run

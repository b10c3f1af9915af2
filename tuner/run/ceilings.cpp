#include "run/ceilings.h"

#include "run/device_ops.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "run/blas.h"
#include "run/ceiling_util.h"
#include "run/cuda.h"

namespace tune::run {
namespace detail {

LaunchStatus blas_status(cublasStatus_t status, const std::string& what) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  // A failed execution may hide a lost context; classify what the runtime says.
  const cudaError_t runtime = cudaGetLastError();
  if (runtime != cudaSuccess) return classify(runtime, what + ": " + describe(status));
  return LaunchStatus{Outcome::error, cudaErrorUnknown, what + ": " + describe(status)};
}

void check_blas(cublasStatus_t status, const std::string& what) {
  if (status != CUBLAS_STATUS_SUCCESS) throw Error(what + ": " + describe(status));
}

int as_int(std::size_t v, const char* what) {
  if (v == 0 || v > static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw InputError(std::string("ceiling size ") + what + " = " + std::to_string(v) + " must be between 1 and " +
                     std::to_string(std::numeric_limits<int>::max()));
  return static_cast<int>(v);
}

void finish(Ceiling& c, double amount) {
  if (!c.timing.ok()) return;
  c.time_ms = c.timing.summary.mean;
  c.value = c.time_ms > 0 ? amount / (c.time_ms * 1e-3) / 1e9 : 0.0;
}

TimingOptions for_blas(TimingOptions options) {
  options.warmup = std::max(1, options.warmup);
  return options;
}

}  // namespace detail

using namespace detail;

std::string describe(cublasStatus_t status) {
  const BlasApi& api = blas();
  return std::string(api.status_name(status)) + " (" + api.status_string(status) + ")";
}

BlasHandle::BlasHandle() : epoch_(context_epoch()) { check_blas(blas().create(&handle_), "cublasCreate"); }

BlasHandle::~BlasHandle() {
  if (handle_ != nullptr && epoch_ == context_epoch()) (void)blas().destroy(handle_);
}

bool BlasHandle::valid() const { return handle_ != nullptr && epoch_ == context_epoch(); }

Ceiling d2d_copy(Session& session, std::size_t bytes, const TimingOptions& options) {
  if (bytes == 0) throw InputError("d2d_copy ceiling: bytes must be at least 1");
  Ceiling c;
  c.name = "d2d_copy " + std::to_string(bytes) + " B";
  c.unit = "GB/s";
  // one source and destination per placement, as the kernels are timed (timing.h)
  std::vector<DeviceBuffer> src, dst;
  std::vector<LaunchFn> copies;
  for (int p = 0; p < std::max(1, options.placements); ++p) {
    src.emplace_back(bytes);
    dst.emplace_back(bytes);
  }
  for (std::size_t p = 0; p < src.size(); ++p) {
    src[p].fill_random(DType{Scalar::uint8, 1}, kCeilingSeed, 0.0);
    dst[p].poison();
    copies.push_back([&, p] {
      return classify(cudaMemcpyAsync(dst[p].data(), src[p].data(), bytes, cudaMemcpyDeviceToDevice, nullptr),
                      "cudaMemcpyAsync device to device");
    });
  }
  c.timing = measure(session, copies, options);
  finish(c, 2.0 * static_cast<double>(bytes));
  if (!c.timing.ok()) return c;
  const std::size_t window = std::min<std::size_t>(bytes, 1 << 20);
  for (std::size_t p = 0; p < src.size(); ++p)
    for (std::size_t offset : {std::size_t{0}, (bytes - window) / 2, bytes - window}) {
      std::vector<char> a(window), b(window);
      const auto* s = static_cast<const char*>(src[p].data()) + offset;
      const auto* d = static_cast<const char*>(dst[p].data()) + offset;
      check(cudaMemcpy(a.data(), s, window, cudaMemcpyDeviceToHost), "d2d_copy check");
      check(cudaMemcpy(b.data(), d, window, cudaMemcpyDeviceToHost), "d2d_copy check");
      if (std::memcmp(a.data(), b.data(), window) != 0) {
        c.check = "destination differs from source in the window at byte " + std::to_string(offset);
        return c;
      }
    }
  c.verified = true;
  c.check = "source and destination windows equal";
  return c;
}

Ceiling cublas_sgeam_transpose(Session& session, std::size_t rows, std::size_t cols, const TimingOptions& options) {
  const int m = as_int(rows, "rows"), n = as_int(cols, "cols");
  Ceiling c;
  c.name = "cublas_sgeam_transpose " + std::to_string(rows) + "x" + std::to_string(cols);
  c.unit = "GB/s";
  const DType f32{Scalar::float32, 1};
  // one input and output per placement, as the kernels are timed (timing.h)
  std::vector<DeviceBuffer> ins, outs;
  for (int p = 0; p < std::max(1, options.placements); ++p) {
    ins.emplace_back(rows * cols * sizeof(float));
    outs.emplace_back(rows * cols * sizeof(float));
  }
  cublasHandle_t h = session.blas().get();
  const BlasApi& api = blas();
  const float alpha = 1.0f, beta = 0.0f;
  // Row-major rows x cols input = column-major cols x rows (lda = cols); the row-major cols x rows
  // output is column-major rows x cols: C = A^T with m = rows, n = cols, ldc = rows. B aliases C
  // with CUBLAS_OP_N and ldb = ldc (the documented in-place form); beta = 0 never reads it.
  std::vector<LaunchFn> geams;
  for (std::size_t p = 0; p < ins.size(); ++p) {
    ins[p].fill_random(f32, kCeilingSeed, 1.0);
    outs[p].poison();
    auto* pa = static_cast<const float*>(ins[p].data());
    auto* pc = static_cast<float*>(outs[p].data());
    geams.push_back([=, &api, &alpha, &beta] {
      return blas_status(api.sgeam(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, &alpha, pa, n, &beta, pc, m, pc, m),
                         "cublasSgeam transpose");
    });
  }
  auto* pa = static_cast<const float*>(ins[0].data());
  auto* pc = static_cast<float*>(outs[0].data());
  c.timing = measure(session, geams, for_blas(options));
  finish(c, 2.0 * static_cast<double>(rows * cols * sizeof(float)));
  if (!c.timing.ok()) return c;
  // every element, on the device (device_ops.h)
  const TransposeCheck t = device_compare_transposed(pa, pc, rows, cols);
  if (t.mismatches > 0) {
    const std::size_t i = t.first / cols, j = t.first % cols;
    float got = 0, want = 0;
    check(cudaMemcpy(&got, pc + j * rows + i, sizeof got, cudaMemcpyDeviceToHost), "sgeam check");
    check(cudaMemcpy(&want, pa + t.first, sizeof want, cudaMemcpyDeviceToHost), "sgeam check");
    c.check = std::to_string(t.mismatches) + " elements wrong; first at input (" + std::to_string(i) + "," +
              std::to_string(j) + "): got " + std::to_string(got) + ", expected " + std::to_string(want);
    return c;
  }
  c.verified = true;
  c.check = "all " + std::to_string(rows * cols) + " elements equal the transpose (checked on the device)";
  return c;
}

const char* gemm_math_name(GemmMath math) {
  switch (math) {
    case GemmMath::fp32_pedantic:
      return "cublas_sgemm";
    case GemmMath::tf32:
      return "cublas_gemm_tf32";
    case GemmMath::fp32_emulated_bf16x9:
      return "cublas_gemm_bf16x9";
  }
  return "cublas_sgemm";
}

Ceiling cublas_gemm(Session& session, GemmMath math, std::size_t m, std::size_t n, std::size_t k,
                    const TimingOptions& options) {
  const int im = as_int(m, "m"), in = as_int(n, "n"), ik = as_int(k, "k");
  Ceiling c;
  c.name =
      std::string(gemm_math_name(math)) + " " + std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
  c.unit = "GFLOP/s";
  const DType f32{Scalar::float32, 1};
  DeviceBuffer a(m * k * sizeof(float)), b(k * n * sizeof(float)), out(m * n * sizeof(float));
  a.fill_random(f32, derive_seed(kCeilingSeed, 0), 1.0);
  b.fill_random(f32, derive_seed(kCeilingSeed, 1), 1.0);
  out.poison();
  cublasHandle_t h = session.blas().get();
  const BlasApi& api = blas();
  const float alpha = 1.0f, beta = 0.0f;
  auto* pa = static_cast<const float*>(a.data());
  auto* pb = static_cast<const float*>(b.data());
  auto* pc = static_cast<float*>(out.data());
  LaunchFn launch;
  if (math == GemmMath::fp32_pedantic) {
    check_blas(api.set_math_mode(h, CUBLAS_PEDANTIC_MATH), "cublasSetMathMode(CUBLAS_PEDANTIC_MATH)");
    launch = [&] {
      return blas_status(api.sgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, im, in, ik, &alpha, pa, im, pb, ik, &beta, pc, im),
                         "cublasSgemm");
    };
  } else {
    // The compute type chooses the arithmetic; the default math mode lets it (pedantic would not).
    check_blas(api.set_math_mode(h, CUBLAS_DEFAULT_MATH), "cublasSetMathMode(CUBLAS_DEFAULT_MATH)");
    const bool emulated = math == GemmMath::fp32_emulated_bf16x9;
    if (emulated) {
      if (api.set_emulation_strategy == nullptr) {
        c.timing.status = LaunchStatus{Outcome::error, cudaErrorNotSupported,
                                       blas_library() + " has no cublasSetEmulationStrategy (no emulated FP32)"};
        return c;
      }
      // eager: emulate wherever possible, so the figure is the emulation's, not a fallback's
      check_blas(api.set_emulation_strategy(h, CUBLAS_EMULATION_STRATEGY_EAGER),
                 "cublasSetEmulationStrategy(CUBLAS_EMULATION_STRATEGY_EAGER)");
    }
    const cublasComputeType_t compute = emulated ? CUBLAS_COMPUTE_32F_EMULATED_16BFX9 : CUBLAS_COMPUTE_32F_FAST_TF32;
    launch = [&, compute] {
      return blas_status(api.gemm_ex(h, CUBLAS_OP_N, CUBLAS_OP_N, im, in, ik, &alpha, pa, CUDA_R_32F, im, pb,
                                     CUDA_R_32F, ik, &beta, pc, CUDA_R_32F, im, compute, CUBLAS_GEMM_DEFAULT),
                         "cublasGemmEx");
    };
  }
  c.timing = measure(session, launch, for_blas(options));
  if (math == GemmMath::fp32_emulated_bf16x9)
    check_blas(api.set_emulation_strategy(h, CUBLAS_EMULATION_STRATEGY_DEFAULT),
               "cublasSetEmulationStrategy(CUBLAS_EMULATION_STRATEGY_DEFAULT)");
  finish(c, 2.0 * static_cast<double>(m) * static_cast<double>(n) * static_cast<double>(k));
  if (!c.timing.ok()) return c;
  // FP32 sums: ~sqrt(k) eps typical, k eps worst; TF32 inputs: 2^-10 of each term's magnitude
  const double tolerance = math == GemmMath::tf32 ? 2e-3 : 1e-4;
  // 64 sampled entries: only row i of A (strided), column j of B and C(i, j) travel
  SplitMix64 pick(kCeilingSeed);
  std::vector<float> row(k), col(k);
  for (int s = 0; s < 64; ++s) {
    const std::size_t i = pick.next() % m, j = pick.next() % n;
    check(cudaMemcpy2D(row.data(), sizeof(float), pa + i, m * sizeof(float), sizeof(float), k, cudaMemcpyDeviceToHost),
          "gemm check");
    check(cudaMemcpy(col.data(), pb + j * k, k * sizeof(float), cudaMemcpyDeviceToHost), "gemm check");
    float c_ij = 0;
    check(cudaMemcpy(&c_ij, pc + i + j * m, sizeof c_ij, cudaMemcpyDeviceToHost), "gemm check");
    double ref = 0, magnitude = 0;
    for (std::size_t p = 0; p < k; ++p) {
      const double term = static_cast<double>(row[p]) * col[p];
      ref += term;
      magnitude += std::fabs(term);
    }
    const double got = c_ij;
    if (!(std::fabs(got - ref) <= tolerance * magnitude)) {
      c.check = "C(" + std::to_string(i) + "," + std::to_string(j) + ") = " + std::to_string(got) +
                ", host reference " + std::to_string(ref);
      return c;
    }
  }
  c.verified = true;
  c.check = "64 sampled entries match the double-precision host product within " + std::to_string(tolerance) +
            " of the sum of |terms|";
  return c;
}

Ceiling cublas_sgemm(Session& session, std::size_t m, std::size_t n, std::size_t k, const TimingOptions& options) {
  return cublas_gemm(session, GemmMath::fp32_pedantic, m, n, k, options);
}

}  // namespace tune::run

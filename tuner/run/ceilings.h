// Hardware ceilings measured in the same run and with the same timing policy as the kernels
// (run.h): device-to-device copy, cuBLAS transpose (Sgeam), FP32 GEMM (Sgemm, no tensor cores) and
// the tensor-core GEMMs (TF32, emulated FP32).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <cublas_v2.h>

#include "run/session.h"
#include "run/timing.h"

namespace tune::run {

// RAII cublasHandle_t on the legacy default stream. A handle of a reset context is abandoned
// (its host-side state leaks, a few KiB per Session::recover()) rather than destroyed, since
// cublasDestroy would free device memory of a context that no longer exists.
class BlasHandle {
 public:
  BlasHandle();  // throws CudaError (CUBLAS status text in the message)
  ~BlasHandle();
  BlasHandle(const BlasHandle&) = delete;
  BlasHandle& operator=(const BlasHandle&) = delete;
  cublasHandle_t get() const { return handle_; }
  bool valid() const;

 private:
  cublasHandle_t handle_ = nullptr;
  std::uint64_t epoch_ = 0;
};

// "CUBLAS_STATUS_EXECUTION_FAILED (the function failed to launch on the GPU)".
std::string describe(cublasStatus_t status);

struct Ceiling {
  std::string name;       // "d2d_copy 67108864 B", "cublas_sgeam_transpose 4096x4096", ...
  Timing timing;          // all samples; timing.status says whether it ran
  double time_ms = 0;     // the mean of the samples (the objective's default statistic)
  double value = 0;       // GB/s (bytes read + written) or GFLOP/s, from time_ms
  std::string unit;       // "GB/s" or "GFLOP/s"
  bool verified = false;  // the result was checked against the host (see each function)
  std::string check;      // what the verification found (one line)
  bool ok() const { return timing.ok() && verified; }
};

// cudaMemcpyAsync device to device of `bytes`; value = 2 * bytes / time_ms (GB/s). Verified by
// comparing up to three 1 MiB windows (start, middle, end) of source and destination.
Ceiling d2d_copy(Session& session, std::size_t bytes, const TimingOptions& options = {});

// Transpose of a row-major rows x cols float matrix with cublasSgeam (CUBLAS_OP_T on A, beta = 0);
// value = 2 * rows * cols * 4 / time_ms (GB/s). Verified element by element on the host.
Ceiling cublas_sgeam_transpose(Session& session, std::size_t rows, std::size_t cols, const TimingOptions& options = {});

// C = A * B, column-major m x k times k x n, FP32 with CUBLAS_PEDANTIC_MATH (no tensor cores, no
// TF32); value = 2 * m * n * k / time_ms (GFLOP/s). Verified at 64 sampled entries against a
// double-precision host dot product.
Ceiling cublas_sgemm(Session& session, std::size_t m, std::size_t n, std::size_t k, const TimingOptions& options = {});

// The GEMM ceilings' arithmetic: FP32 on the CUDA cores (pedantic, cublas_sgemm), TF32 tensor
// cores (CUBLAS_COMPUTE_32F_FAST_TF32: the tensor-core yardstick, less accurate than FP32), and
// FP32 emulated with BF16x9 products (CUBLAS_COMPUTE_32F_EMULATED_16BFX9, strategy eager).
enum class GemmMath { fp32_pedantic, tf32, fp32_emulated_bf16x9 };

// The name in Tune.ceilings: cublas_sgemm, cublas_gemm_tf32, cublas_gemm_bf16x9.
const char* gemm_math_name(GemmMath math);

// cublas_sgemm's product and verification in `math` (cublasGemmEx for the tensor-core ones); the
// TF32 product is checked within 2e-3 of the sum of |terms| (FP32: 1e-4). Where the library has no
// emulation (no cublasSetEmulationStrategy) or refuses it on this GPU, the timing's status says so.
Ceiling cublas_gemm(Session& session, GemmMath math, std::size_t m, std::size_t n, std::size_t k,
                    const TimingOptions& options = {});

}  // namespace tune::run

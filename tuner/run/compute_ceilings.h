// Compute ceilings, measured with the kernels' timing policy (run.h) like those of ceilings.h:
//   fp32_peak            FP32 FMA throughput of the whole GPU (an NVRTC-compiled FMA kernel)
//   cublas_sgemm_argmax  feature matching through the library: cuBLAS SGEMM (FP32, no tensor
//                        cores) for the score matrix, then a row-argmax kernel
// Their two kernels are compiled with NVRTC for the session's device on first use and kept in a
// CeilingKernels object, which a tuning run holds for all its sizes.
#pragma once
#include <cstddef>
#include <future>
#include <memory>
#include <string>

#include "compile/compile.h"
#include "run/ceilings.h"
#include "run/kernel.h"
#include "run/session.h"
#include "run/timing.h"

namespace tune::run {

// The fp32_peak kernel's shape: every thread runs kFmaChains independent FMA chains of
// kFmaIterations steps; blocks of kFmaBlock threads, kFmaBlocksPerSm blocks per SM.
inline constexpr int kFmaChains = 8, kFmaIterations = 8192, kFmaBlock = 256, kFmaBlocksPerSm = 8;

// NVRTC requests of the two kernels for `arch` ("sm_90"): what CeilingKernels compiles (tests
// compile them without a GPU).
compile::CompileRequest fp32_peak_request(const std::string& arch);
compile::CompileRequest row_argmax_request(const std::string& arch);

class CeilingKernels {
 public:
  // Starts both compiles on threads of their own (NVRTC alone: nothing touches the device), so
  // that a run that makes this early finds them compiled when its first ceiling is measured.
  explicit CeilingKernels(Session& session);
  // Loaded on first use; throws Error with NVRTC's log when a kernel does not compile.
  LoadedKernel& fma();
  LoadedKernel& argmax();
  // Both compiles have ended (loading them then takes no compile time).
  bool ready() const;

 private:
  Session& session_;
  std::future<compile::CompileResult> fma_compile_, argmax_compile_;
  std::unique_ptr<LoadedKernel> fma_, argmax_;
};

// FMA throughput: kFmaBlocksPerSm * sm_count blocks; value = 2 * FMAs / time_ms (GFLOP/s).
// Verified bit for bit: every output of 32 sampled thread classes (a thread's chains start from
// its index mod 1024) against the same chains evaluated on the host with std::fmaf, and no output
// left unwritten.
Ceiling fp32_peak(Session& session, CeilingKernels& kernels, const TimingOptions& options = {});

// Feature matching of set1 (n1 x dim, row-major) against set2 (n2 x dim, row-major), inputs
// uniform in [0, 1): scores = set1 * set2^T (n1 x n2, row-major) with cublasSgemm under
// CUBLAS_PEDANTIC_MATH, then the row argmax (best score, lowest index among equal scores) by
// one warp per row. Each timed sample covers both launches; value = 2 * n1 * n2 * dim / time_ms
// (GFLOP/s). Verified at 32 sampled rows against a double-precision host argmax: another index
// is accepted only when the host scores of the two are within 1e-5 relative, and the best score
// must match the host score of the index found within 1e-4 of the sum of |terms|.
Ceiling cublas_sgemm_argmax(Session& session, CeilingKernels& kernels, std::size_t n2, std::size_t n1, std::size_t dim,
                            const TimingOptions& options = {});

}  // namespace tune::run

// The ceilings a spec may name in Tune.ceilings: what each is for, what it needs, how reports show
// it. The one table of them (run/ceiling_registry.h measures them); header-only and CUDA-free, so
// the spec's Tune parser, the queries and the reports read it without linking the GPU module. Adding a ceiling: a row here, its measurement in
// run/ceiling_registry.cpp (see CONTRIBUTING.md).
#pragma once
#include <array>
#include <span>
#include <string_view>

namespace tune::spec {

enum class CeilingRole {
  roofline,  // the memory-bound limit: results show the fraction of its GB/s ("of copy")
  peak,      // the compute-bound limit: results show the fraction of its GFLOP/s ("of peak")
  library    // a library doing the same work: results show its time over ours ("vs lib")
};

struct CeilingKind {
  std::string_view name;  // as in Tune.ceilings and the database's ceilings.name
  CeilingRole role;
  std::string_view display;  // for reports
  bool needs_bytes;          // Tune.bytes must be given (the copy moves bytes / 2 each way)
  int needs_rank;            // ProblemSize must have this many entries (0: any)
  std::string_view shape;    // what ProblemSize's entries are to it, for error messages
};

// In order of precedence among libraries: where several were measured at a size, the last one
// listed is the most specific equivalent and wins (the pedantic FP32 Sgemm over the TF32 and
// emulated GEMMs, which a spec may ask for beside it as yardsticks).
inline constexpr std::array kCeilingKinds = {
    CeilingKind{"d2d_copy", CeilingRole::roofline, "device-to-device copy (cudaMemcpy)", true, 0,
                "a copy of Tune.bytes / 2"},
    CeilingKind{"cublas_sgeam", CeilingRole::library, "cuBLAS Sgeam", false, 0, "ProblemSize[1] x ProblemSize[0]"},
    CeilingKind{"cublas_gemm_tf32", CeilingRole::library, "cuBLAS GEMM in TF32 (CUBLAS_COMPUTE_32F_FAST_TF32)", false,
                3, "m, n, k"},
    CeilingKind{"cublas_gemm_bf16x9", CeilingRole::library,
                "cuBLAS GEMM, FP32 emulated with BF16x9 (CUBLAS_COMPUTE_32F_EMULATED_16BFX9)", false, 3, "m, n, k"},
    CeilingKind{"cublas_sgemm", CeilingRole::library, "cuBLAS Sgemm (FP32)", false, 3, "m, n, k"},
    CeilingKind{"cublas_sgemm_argmax", CeilingRole::library, "cuBLAS Sgemm (FP32) + row argmax", false, 3,
                "n2, n1, dim"},
    CeilingKind{"fp32_peak", CeilingRole::peak, "FP32 peak (FMA kernel)", false, 0, "independent of the size"},
};

inline std::span<const CeilingKind> ceiling_kinds() { return kCeilingKinds; }

// nullptr for an unknown name.
inline const CeilingKind* find_ceiling(std::string_view name) {
  for (const auto& k : kCeilingKinds)
    if (k.name == name) return &k;
  return nullptr;
}

}  // namespace tune::spec

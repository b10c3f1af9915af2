#include "run/ceiling_registry.h"

#include "common/error.h"

namespace tune::run {

void CeilingRegistry::prepare(const std::vector<std::string>& names) {
  for (const auto& n : names) {
    if ((n == "fp32_peak" || n == "cublas_sgemm_argmax") && !kernels_)
      kernels_ = std::make_unique<CeilingKernels>(session_);
    if (n.starts_with("cublas")) session_.prepare_blas();
  }
}

bool CeilingRegistry::ready(std::string_view name) {
  if (name.starts_with("cublas") && !session_.blas_ready()) return false;
  if ((name == "fp32_peak" || name == "cublas_sgemm_argmax") && kernels_) return kernels_->ready();
  return true;
}

Ceiling CeilingRegistry::measure(std::string_view name, const CeilingArgs& a, const TimingOptions& o) {
  const auto& d = a.dims;
  if (name == "d2d_copy") return d2d_copy(session_, static_cast<std::size_t>(a.bytes / 2), o);
  if (name == "cublas_sgeam") return cublas_sgeam_transpose(session_, d[1], d[0], o);
  if (name == "cublas_sgemm") return cublas_sgemm(session_, d[0], d[1], d[2], o);
  for (GemmMath math : {GemmMath::tf32, GemmMath::fp32_emulated_bf16x9})
    if (name == gemm_math_name(math)) return cublas_gemm(session_, math, d[0], d[1], d[2], o);
  if (!kernels_) kernels_ = std::make_unique<CeilingKernels>(session_);
  if (name == "fp32_peak") return fp32_peak(session_, *kernels_, o);
  if (name == "cublas_sgemm_argmax") return cublas_sgemm_argmax(session_, *kernels_, d[0], d[1], d[2], o);
  throw InputError("unknown ceiling '" + std::string(name) + "'");
}

}  // namespace tune::run

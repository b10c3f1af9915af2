// Internal to the run module: what the ceiling functions (ceilings.cpp, compute_ceilings.cpp) share.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include <cublas_v2.h>

#include "run/ceilings.h"
#include "run/cuda.h"

namespace tune::run::detail {

// Seed of every ceiling's input data (independent of the run's --seed: ceilings are hardware figures).
inline constexpr std::uint64_t kCeilingSeed = 0x5EED0F7E11ull;

// A cuBLAS status as a LaunchStatus (ok, or an error classified through the runtime's last error).
LaunchStatus blas_status(cublasStatus_t status, const std::string& what);
// Throws Error("<what>: <status>") unless the call succeeded.
void check_blas(cublasStatus_t status, const std::string& what);
// A dimension as int for cuBLAS / kernels; throws InputError naming `what` outside 1..INT_MAX.
int as_int(std::size_t v, const char* what);
// Fills time_ms/value from the timing; `amount` is bytes (GB/s) or flops (GFLOP/s).
void finish(Ceiling& c, double amount);

}  // namespace tune::run::detail

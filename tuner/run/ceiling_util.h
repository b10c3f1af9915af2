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
// The timing options for a cuBLAS call: at least one untimed launch before the calibration
// (TimingOptions::warmup), outside any hold of the stream. cuBLAS's first call in a process waits
// for the device (its workspace made), and behind the timing method's hold (blocker.h) it stalled
// until the hold's 1 s timeout: on an H100 the first cublasSgeam's calibration took 1,000 ms, the
// first cublasSgemm's 1,030 ms; after one untimed call, 1 to 3 ms.
TimingOptions for_blas(TimingOptions options);

}  // namespace tune::run::detail

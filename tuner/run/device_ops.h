// What dtype.h and verify.h do on the host, done on the device, so that filling and checking a
// gigabyte costs a kernel launch instead of host work and a transfer:
//   - device_fill_random: the same bytes as random_data() (splitmix64 is counter-based: lane i
//     of a stream seeded with s is mix(s + (i + 1) * 0x9E3779B97F4A7C15), whichever thread draws
//     it), so the data of a seed and size is the same on every GPU and on the host;
//   - device_fill_constant: the same bytes as constant_data();
//   - device_compare: compare()'s rule (Tolerance; NaN only against NaN; an element still poisoned
//     where the reference is not counts as unwritten): counts, the first mismatch, the largest
//     |difference|;
//   - device_count_unwritten, device_compare_transposed (the cuBLAS transpose ceiling).
// The kernels are compiled with NVRTC once per process for the current device's architecture, in a
// cudaLibrary (context-independent: it survives Session::recover()). Every call synchronises and
// throws CudaError on a failure.
#pragma once
#include <cstddef>
#include <cstdint>

#include <string>

#include "compile/compile.h"
#include "run/dtype.h"
#include "run/verify.h"

namespace tune::run {

// The NVRTC request of the kernels for `arch` ("sm_90"): tests compile it without a GPU.
compile::CompileRequest device_ops_request(const std::string& arch);

void device_fill_random(void* data, DType dtype, std::size_t count, std::uint64_t seed, double scale);
void device_fill_constant(void* data, DType dtype, std::size_t count, double value);

struct DeviceComparison {
  std::size_t mismatches = 0, unwritten = 0;
  std::size_t first_mismatch = 0;  // meaningful when mismatches > 0
  double max_abs_error = 0;
};
DeviceComparison device_compare(DType dtype, const void* actual, const void* expected, std::size_t count,
                                Tolerance tolerance);
std::size_t device_count_unwritten(DType dtype, const void* data, std::size_t count);

// `out` (cols x rows, row-major) against the transpose of `in` (rows x cols, row-major), bit for
// bit: the mismatches and the first one's input index (row * cols + col).
struct TransposeCheck {
  std::size_t mismatches = 0;
  std::size_t first = 0;
};
TransposeCheck device_compare_transposed(const float* in, const float* out, std::size_t rows, std::size_t cols);

}  // namespace tune::run

// TMA tensor maps for kernel parameters (`const __grid_constant__ CUtensorMap`): checked on the
// host against the rules of cuTensorMapEncodeTiled, and encoded by the driver's function reached
// through cudaGetDriverEntryPointByVersion, so that the static CUDA runtime stays the only CUDA
// library linked and a binary without a driver still starts (encode() alone needs one).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "run/dtype.h"

namespace tune::run {

// The CUtensorMap object: 128 bytes, passed to the kernel by value (the kernel needs it 64-byte
// aligned; the driver's header declares 128).
struct alignas(128) TensorMap {
  std::array<std::byte, 128> bytes{};
};
static_assert(sizeof(TensorMap) == 128);

// A tiled tensor map over a packed buffer: dims and box in elements, innermost first; the row
// strides are the products of the inner dims (packed, row-major).
struct TensorMapSpec {
  std::size_t argument = 0;  // the kernel parameter it fills
  std::size_t buffer = 0;    // the buffer argument it describes
  std::vector<std::uint64_t> dims;
  std::vector<std::uint32_t> box;
  unsigned swizzle = 0;  // bytes: 0 (none), 32, 64 or 128
};

// Why the driver would refuse the map for a buffer of `count` elements of `dtype`, or "" when it
// is encodable: rank 1..5, box entries 1..256, the box's inner extent a multiple of 16 bytes (and,
// swizzled, at most the swizzle's span), row strides multiples of 16 bytes below 2^40, dims that
// fit the buffer, an element type the TMA knows (8- to 64-bit scalars).
std::string check(const TensorMapSpec& spec, DType dtype, std::size_t count);

// Encodes the map over the device buffer at `address` (16-byte aligned, as cudaMalloc gives).
// Throws InputError for a map check() refuses, UnavailableError when the driver has no
// cuTensorMapEncodeTiled, CudaError when it refuses the map.
TensorMap encode(const TensorMapSpec& spec, DType dtype, std::size_t count, void* address);

}  // namespace tune::run

#include "run/tensor_map.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <mutex>

#include "common/error.h"

namespace tune::run {

namespace {

static_assert(sizeof(CUtensorMap) == sizeof(TensorMap) && alignof(CUtensorMap) <= alignof(TensorMap));

constexpr std::size_t kMaxRank = 5;
constexpr std::uint32_t kMaxBox = 256;
constexpr std::uint64_t kMaxStride = std::uint64_t{1} << 40;  // the driver's bound on a global stride
constexpr int kDriverApiVersion = 12000;                      // cuTensorMapEncodeTiled's first version

using EncodeTiled = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                 const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                 CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

bool data_type(DType dtype, CUtensorMapDataType& out) {
  if (dtype.lanes != 1) return false;
  switch (dtype.scalar) {
    case Scalar::uint8:
    case Scalar::int8:
    case Scalar::boolean:
      out = CU_TENSOR_MAP_DATA_TYPE_UINT8;
      return true;
    case Scalar::uint16:
    case Scalar::int16:
      out = CU_TENSOR_MAP_DATA_TYPE_UINT16;
      return true;
    case Scalar::half:
      out = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
      return true;
    case Scalar::uint32:
      out = CU_TENSOR_MAP_DATA_TYPE_UINT32;
      return true;
    case Scalar::int32:
      out = CU_TENSOR_MAP_DATA_TYPE_INT32;
      return true;
    case Scalar::float32:
      out = CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
      return true;
    case Scalar::uint64:
      out = CU_TENSOR_MAP_DATA_TYPE_UINT64;
      return true;
    case Scalar::int64:
      out = CU_TENSOR_MAP_DATA_TYPE_INT64;
      return true;
    case Scalar::float64:
      out = CU_TENSOR_MAP_DATA_TYPE_FLOAT64;
      return true;
  }
  return false;
}

CUtensorMapSwizzle swizzle_mode(unsigned bytes) {
  switch (bytes) {
    case 32:
      return CU_TENSOR_MAP_SWIZZLE_32B;
    case 64:
      return CU_TENSOR_MAP_SWIZZLE_64B;
    case 128:
      return CU_TENSOR_MAP_SWIZZLE_128B;
    default:
      return CU_TENSOR_MAP_SWIZZLE_NONE;
  }
}

EncodeTiled encode_function() {
  static EncodeTiled fn = nullptr;
  static std::once_flag once;
  std::call_once(once, [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, kDriverApiVersion, cudaEnableDefault, &found) ==
            cudaSuccess &&
        found == cudaDriverEntryPointSuccess)
      fn = reinterpret_cast<EncodeTiled>(p);
    (void)cudaGetLastError();
  });
  return fn;
}

}  // namespace

std::string check(const TensorMapSpec& spec, DType dtype, std::size_t count) {
  CUtensorMapDataType type{};
  if (!data_type(dtype, type)) return "element type " + dtype.name() + " has no TMA data type";
  const std::size_t rank = spec.dims.size();
  if (rank == 0 || rank > kMaxRank) return "rank " + std::to_string(rank) + " (1 to 5)";
  if (spec.box.size() != rank)
    return "box has " + std::to_string(spec.box.size()) + " entries, dims " + std::to_string(rank);
  if (spec.swizzle != 0 && spec.swizzle != 32 && spec.swizzle != 64 && spec.swizzle != 128)
    return "swizzle of " + std::to_string(spec.swizzle) + " bytes (0, 32, 64 or 128)";
  const std::uint64_t elem = dtype.size();
  std::uint64_t stride = elem;
  for (std::size_t d = 0; d < rank; ++d) {
    if (spec.box[d] == 0 || spec.box[d] > kMaxBox)
      return "box[" + std::to_string(d) + "] is " + std::to_string(spec.box[d]) + " (1 to 256)";
    if (spec.dims[d] == 0 || spec.dims[d] > kMaxStride) return "dims[" + std::to_string(d) + "] is out of range";
    if (d > 0 && (stride % 16 != 0 || stride >= kMaxStride))
      return "the stride of dims[" + std::to_string(d) + "] is " + std::to_string(stride) +
             " bytes, not a multiple of 16 below 2^40 (dims[0] = " + std::to_string(spec.dims[0]) + ")";
    if (spec.dims[d] > (std::uint64_t{1} << 62) / stride) return "dims overflow";
    stride *= spec.dims[d];
  }
  const std::uint64_t inner = std::uint64_t{spec.box[0]} * elem;
  if (inner % 16 != 0) return "the box's inner extent is " + std::to_string(inner) + " bytes, not a multiple of 16";
  if (spec.swizzle != 0 && inner > spec.swizzle)
    return "the box's inner extent of " + std::to_string(inner) + " bytes exceeds the " + std::to_string(spec.swizzle) +
           "-byte swizzle";
  if (stride / elem > count)
    return "dims cover " + std::to_string(stride / elem) + " elements, the buffer has " + std::to_string(count);
  return {};
}

TensorMap encode(const TensorMapSpec& spec, DType dtype, std::size_t count, void* address) {
  if (const std::string why = check(spec, dtype, count); !why.empty()) throw InputError("tensor map: " + why);
  const EncodeTiled fn = encode_function();
  if (fn == nullptr)
    throw UnavailableError("tensor map: the CUDA driver has no cuTensorMapEncodeTiled (a driver for CUDA 12 or later)");
  CUtensorMapDataType type{};
  data_type(dtype, type);
  const std::size_t rank = spec.dims.size();
  std::array<cuuint64_t, kMaxRank> dims{}, strides{};
  std::array<cuuint32_t, kMaxRank> box{}, element_strides{};
  std::uint64_t stride = dtype.size();
  for (std::size_t d = 0; d < rank; ++d) {
    dims[d] = spec.dims[d];
    box[d] = spec.box[d];
    element_strides[d] = 1;
    if (d > 0) strides[d - 1] = stride;
    stride *= spec.dims[d];
  }
  TensorMap map;
  auto* raw = reinterpret_cast<CUtensorMap*>(map.bytes.data());
  const CUresult r = fn(raw, type, static_cast<cuuint32_t>(rank), address, dims.data(), strides.data(), box.data(),
                        element_strides.data(), CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle_mode(spec.swizzle),
                        CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS)
    throw InputError("tensor map: cuTensorMapEncodeTiled refused it (CUresult " + std::to_string(static_cast<int>(r)) +
                     ")");
  return map;
}

}  // namespace tune::run

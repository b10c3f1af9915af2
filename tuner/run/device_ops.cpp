#include "run/device_ops.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <memory>
#include <mutex>
#include <vector>

#include "common/error.h"
#include "compile/compile.h"
#include "run/buffer.h"
#include "run/cuda.h"
#include "run/kernel.h"

namespace tune::run {

namespace {

// Scalar kinds as the kernels see them: the order of run::Scalar.
const char* kSource = R"(
typedef unsigned long long u64;
__device__ __forceinline__ u64 mix64(u64 z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// IEEE binary16 from float, round to nearest even (dtype.cpp's float_to_half, for [0, inf)).
__device__ unsigned short to_half(float value) {
  const unsigned x = __float_as_uint(value);
  const unsigned sign = (x >> 16) & 0x8000u, a = x & 0x7FFFFFFFu;
  if (a >= 0x7F800000u) return (unsigned short)(sign | 0x7C00u | (a > 0x7F800000u ? 0x200u | ((a >> 13) & 0x3FFu) : 0u));
  if (a >= 0x477FF000u) return (unsigned short)(sign | 0x7C00u);
  if (a < 0x38800000u) return (unsigned short)(sign | (unsigned)rintf(__uint_as_float(a) * 16777216.0f));
  const unsigned odd = (a >> 13) & 1u;
  return (unsigned short)(sign | ((a + 0xFFFu + odd - 0x38000000u) >> 13));
}
__device__ float from_half(unsigned short bits) {
  const unsigned sign = (unsigned)(bits & 0x8000u) << 16, e = (bits >> 10) & 0x1Fu, m = bits & 0x3FFu;
  if (e == 0) { float v = (float)m * 5.9604644775390625e-8f; return sign ? -v : v; }
  if (e == 0x1F) return __uint_as_float(sign | 0x7F800000u | (m << 13));
  return __uint_as_float(sign | ((e + 112u) << 23) | (m << 13));
}
// kind: 0 float32, 1 half, 2 float64, 3 bool, 4 integer (bound > 0: [0, bound), else r >> (64 - bits))
extern "C" __global__ void tune_fill_random(unsigned char* out, u64 lanes, int kind, int lane_size, int bits,
                                            u64 bound, double scale, u64 seed) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < lanes; i += (u64)gridDim.x * blockDim.x) {
    const u64 r = mix64(seed + (i + 1) * 0x9E3779B97F4A7C15ull);
    if (kind == 0) {
      ((float*)out)[i] = __fmul_rn((float)(r >> 40) * 5.9604644775390625e-8f, (float)scale);
    } else if (kind == 1) {
      ((unsigned short*)out)[i] = to_half(__fmul_rn((float)(r >> 40) * 5.9604644775390625e-8f, (float)scale));
    } else if (kind == 2) {
      ((double*)out)[i] = __dmul_rn(__dmul_rn((double)(r >> 11), 1.1102230246251565e-16), scale);
    } else {
      const u64 v = kind == 3 ? (r >> 63) : (bound ? __umul64hi(r, bound) : (r >> (64 - bits)));
      for (int b = 0; b < lane_size; ++b) out[i * lane_size + b] = (unsigned char)(v >> (8 * b));
    }
  }
}
extern "C" __global__ void tune_fill_constant(unsigned char* out, u64 lanes, int lane_size, u64 pattern) {
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < lanes; i += (u64)gridDim.x * blockDim.x)
    for (int b = 0; b < lane_size; ++b) out[i * lane_size + b] = (unsigned char)(pattern >> (8 * b));
}
// One lane as double, by run::Scalar: boolean int8 uint8 int16 uint16 int32 uint32 int64 uint64 half float32 float64
__device__ double lane_value(const unsigned char* p, int s) {
  switch (s) {
    case 0: case 2: return *p;
    case 1: return *(const signed char*)p;
    case 3: return *(const short*)p;
    case 4: return *(const unsigned short*)p;
    case 5: return *(const int*)p;
    case 6: return *(const unsigned*)p;
    case 7: return (double)*(const long long*)p;
    case 8: return (double)*(const u64*)p;
    case 9: return from_half(*(const unsigned short*)p);
    case 10: return *(const float*)p;
    default: return *(const double*)p;
  }
}
__device__ bool poisoned(const unsigned char* p, int bytes) {
  for (int b = 0; b < bytes; ++b) if (p[b] != 0xFF) return false;
  return true;
}
// out: [0] mismatches, [1] unwritten, [2] first mismatch (starts at ~0), [3] largest |diff| as bits
extern "C" __global__ void tune_compare(const unsigned char* a, const unsigned char* e, u64 n, int scalar,
                                        int lane_size, int lanes, int exact_int, double rel, double abs_, u64* out) {
  const int esize = lane_size * lanes;
  double worst = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x) {
    const unsigned char* ae = a + i * esize;
    const unsigned char* ee = e + i * esize;
    const bool unwritten = poisoned(ae, esize) && !poisoned(ee, esize);
    bool bad = unwritten;
    for (int l = 0; l < lanes && !unwritten; ++l) {
      const unsigned char* al = ae + l * lane_size;
      const unsigned char* el = ee + l * lane_size;
      const double x = lane_value(al, scalar), y = lane_value(el, scalar);
      bool ok;
      double d;
      if (exact_int) {
        ok = true;
        for (int b = 0; b < lane_size; ++b) ok = ok && al[b] == el[b];
        d = fabs(x - y);
      } else if (isnan(x) || isnan(y)) {
        ok = isnan(x) && isnan(y);
        d = ok ? 0.0 : __longlong_as_double(0x7FF0000000000000ll);
      } else {
        d = fabs(x - y);
        ok = x == y || d <= abs_ + rel * fabs(y);
      }
      if (!isinf(d) && d > worst) worst = d;
      bad = bad || !ok;
    }
    if (bad) {
      atomicAdd(&out[0], 1ull);
      if (unwritten) atomicAdd(&out[1], 1ull);
      atomicMin(&out[2], i);
    }
  }
  if (worst > 0) atomicMax(&out[3], (u64)__double_as_longlong(worst));
}
extern "C" __global__ void tune_count_unwritten(const unsigned char* a, u64 n, int esize, u64* out) {
  u64 mine = 0;
  for (u64 i = blockIdx.x * (u64)blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)
    mine += poisoned(a + i * esize, esize) ? 1 : 0;
  if (mine) atomicAdd(&out[0], mine);
}
// out (cols x rows) against in (rows x cols), row-major, bit for bit
extern "C" __global__ void tune_compare_transposed(const unsigned* in, const unsigned* out, u64 rows, u64 cols,
                                                   u64* result) {
  const u64 n = rows * cols;
  for (u64 k = blockIdx.x * (u64)blockDim.x + threadIdx.x; k < n; k += (u64)gridDim.x * blockDim.x) {
    const u64 i = k / cols, j = k % cols;
    if (out[j * rows + i] != in[k]) {
      atomicAdd(&result[0], 1ull);
      atomicMin(&result[1], k);
    }
  }
}
)";

struct Ops {
  int device = -1;
  Library library;
  DeviceBuffer result;  // 4 words for the comparisons, allocated once per context
  cudaKernel_t fill_random = nullptr, fill_constant = nullptr, compare = nullptr, unwritten = nullptr,
               transposed = nullptr;
  unsigned blocks = 1024;  // grid of the grid-stride loops: 8 blocks per SM
};

// The kernels for the current device, compiled on first use (and again for another device).
Ops& ops() {
  static std::mutex mutex;
  static Ops cached;
  std::lock_guard lock(mutex);
  int device = 0;
  check(cudaGetDevice(&device), "cudaGetDevice");
  if (cached.device == device && cached.fill_random != nullptr) return cached;
  int major = 0, minor = 0, sms = 0;
  check(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device), "cudaDeviceGetAttribute");
  check(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device), "cudaDeviceGetAttribute");
  auto res = compile::compile(device_ops_request("sm_" + std::to_string(major) + std::to_string(minor)));
  if (!res.ok()) throw Error("the device fill/compare kernels do not compile: " + res.log);
  Ops fresh;
  fresh.device = device;
  fresh.library = Library(std::span<const char>(res.cubin.data(), res.cubin.size()), "tune_device_ops");
  for (auto [slot, name] : {std::pair{&fresh.fill_random, "tune_fill_random"},
                            {&fresh.fill_constant, "tune_fill_constant"},
                            {&fresh.compare, "tune_compare"},
                            {&fresh.unwritten, "tune_count_unwritten"},
                            {&fresh.transposed, "tune_compare_transposed"}})
    check(cudaLibraryGetKernel(slot, fresh.library.get(), name), std::string("cudaLibraryGetKernel ") + name);
  fresh.blocks = static_cast<unsigned>(std::max(1, sms) * 8);
  cached = std::move(fresh);
  return cached;
}

// The comparisons' result words, reset to `init`.
void* result_words(Ops& o, const std::uint64_t (&init)[4]) {
  if (!o.result.valid() || o.result.bytes() == 0) o.result = DeviceBuffer(4 * sizeof(std::uint64_t));
  check(cudaMemcpy(o.result.data(), init, sizeof init, cudaMemcpyHostToDevice), "the device comparison");
  return o.result.data();
}

unsigned grid_for(const Ops& o, std::uint64_t work) {
  return static_cast<unsigned>(std::clamp<std::uint64_t>((work + 255) / 256, 1, o.blocks));
}

void launch(cudaKernel_t k, unsigned grid, void** args, const char* what) {
  check(cudaLaunchKernel(static_cast<const void*>(k), dim3(grid), dim3(256), args, 0, nullptr), what);
  check(cudaDeviceSynchronize(), what);
}

int value_bits(DType lane) {
  const int bits = static_cast<int>(lane.scalar_size()) * 8;
  return lane.is_signed() ? bits - 1 : bits;
}

}  // namespace

compile::CompileRequest device_ops_request(const std::string& arch) {
  compile::CompileRequest r;
  r.source = kSource;
  r.source_name = "tune_device_ops.cu";
  r.kernel_name = "tune_fill_random";
  r.arch = arch;
  return r;
}

void device_fill_random(void* data, DType dtype, std::size_t count, std::uint64_t seed, double scale) {
  const std::uint64_t lanes = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dtype.lanes);
  if (lanes == 0) return;
  Ops& o = ops();
  const Scalar s = dtype.scalar;
  int kind = 4;
  if (s == Scalar::float32)
    kind = 0;
  else if (s == Scalar::half)
    kind = 1;
  else if (s == Scalar::float64)
    kind = 2;
  else if (s == Scalar::boolean)
    kind = 3;
  int lane_size = static_cast<int>(dtype.scalar_size());
  int bits = kind == 4 ? value_bits(DType{s, 1}) : 0;
  const bool bounded = kind == 4 && scale >= 1.0 && std::log2(scale) < bits;
  std::uint64_t bound = bounded ? static_cast<std::uint64_t>(std::floor(scale)) : 0;
  unsigned char* out = static_cast<unsigned char*>(data);
  void* args[] = {&out, const_cast<std::uint64_t*>(&lanes), &kind, &lane_size, &bits, &bound, &scale, &seed};
  launch(o.fill_random, grid_for(o, lanes), args, "the device random fill");
}

void device_fill_constant(void* data, DType dtype, std::size_t count, double value) {
  const std::uint64_t lanes = static_cast<std::uint64_t>(count) * static_cast<std::uint64_t>(dtype.lanes);
  if (lanes == 0) return;
  const std::vector<std::byte> one = constant_data(DType{dtype.scalar, 1}, 1, value);
  std::uint64_t pattern = 0;
  std::memcpy(&pattern, one.data(), one.size());
  int lane_size = static_cast<int>(one.size());
  Ops& o = ops();
  unsigned char* out = static_cast<unsigned char*>(data);
  void* args[] = {&out, const_cast<std::uint64_t*>(&lanes), &lane_size, &pattern};
  launch(o.fill_constant, grid_for(o, lanes), args, "the device constant fill");
}

DeviceComparison device_compare(DType dtype, const void* actual, const void* expected, std::size_t count,
                                Tolerance tolerance) {
  DeviceComparison r;
  if (count == 0) return r;
  Ops& o = ops();
  const std::uint64_t init[4] = {0, 0, ~0ull, 0};
  void* res = result_words(o, init);
  std::uint64_t n = count;
  int scalar = static_cast<int>(dtype.scalar), lane_size = static_cast<int>(dtype.scalar_size()), lanes = dtype.lanes;
  int exact_int = !dtype.is_floating() && tolerance.is_exact() ? 1 : 0;
  double rel = tolerance.relative, abs = tolerance.absolute;
  void* args[] = {const_cast<void**>(&actual),
                  const_cast<void**>(&expected),
                  &n,
                  &scalar,
                  &lane_size,
                  &lanes,
                  &exact_int,
                  &rel,
                  &abs,
                  &res};
  launch(o.compare, grid_for(o, n), args, "the device comparison");
  std::uint64_t got[4];
  check(cudaMemcpy(got, res, sizeof got, cudaMemcpyDeviceToHost), "the device comparison");
  r.mismatches = got[0];
  r.unwritten = got[1];
  r.first_mismatch = got[0] > 0 ? got[2] : 0;
  r.max_abs_error = std::bit_cast<double>(got[3]);
  return r;
}

std::size_t device_count_unwritten(DType dtype, const void* data, std::size_t count) {
  if (count == 0) return 0;
  Ops& o = ops();
  void* res = result_words(o, {0, 0, 0, 0});
  std::uint64_t n = count;
  int esize = static_cast<int>(dtype.size());
  void* args[] = {const_cast<void**>(&data), &n, &esize, &res};
  launch(o.unwritten, grid_for(o, n), args, "the device count of unwritten elements");
  std::uint64_t got = 0;
  check(cudaMemcpy(&got, res, sizeof got, cudaMemcpyDeviceToHost), "the device count of unwritten elements");
  return got;
}

TransposeCheck device_compare_transposed(const float* in, const float* out, std::size_t rows, std::size_t cols) {
  TransposeCheck r;
  Ops& o = ops();
  void* res = result_words(o, {0, ~0ull, 0, 0});
  std::uint64_t nr = rows, nc = cols;
  void* args[] = {const_cast<float**>(&in), const_cast<float**>(&out), &nr, &nc, &res};
  launch(o.transposed, grid_for(o, nr * nc), args, "the transpose check");
  std::uint64_t got[2];
  check(cudaMemcpy(got, res, sizeof got, cudaMemcpyDeviceToHost), "the transpose check");
  r.mismatches = got[0];
  r.first = got[0] > 0 ? got[1] : 0;
  return r;
}

}  // namespace tune::run

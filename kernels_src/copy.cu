// Copy-family float32 kernels: the ceilings a transpose is measured against, and the access
// pattern experiments of the seeds. Compiled at run time by NVRTC (or Kernel Tuner): tuning
// parameters arrive as macros. The whole file is compiled for any one kernel, so every macro
// has a default under which the other kernels stay small: block_size_y = tile_size_y = 1 and
// vector = 1 keep a tile of block_size_x floats, valid for any block_size_x <= 1024.
//
//   copy          out = in, rows x cols, tiled like transpose.cu without the transposition:
//                 a block moves TY = block_size_y * tile_size_y rows of TX = block_size_x *
//                 vector columns; loads first, then stores (the seeds' `copy`, vectorized)
//   copy_shared   the same through a shared-memory tile with a barrier (the seeds' copySharedMem)
//   copy_vec      out = in as one flat array of rows * cols floats: block b of the (x, y) grid
//                 copies the b-th run of TX * TY floats (the grid of `copy` covers them all)
//                 with `vector`-wide accesses whose alignment never depends on cols; the copy
//                 ceiling
//   offset_access a[j] += 1 with j = i + access_offset, wrapped into [0, n)  (the seeds' offset)
//   stride_access a[j] += 1 where the threads of a warp touch elements access_stride apart
//                 (the seeds' stride kernel)
//   copy_reference, increment_reference   independent references for verification
// The seeds' offset and stride kernels touched n elements of an array of n + offset or
// n * stride; here every thread still makes the seeds' access, but the mapping from threads to
// elements is a bijection on [0, n), so each configuration computes a[i] + 1 for all i and
// one reference verifies them all.
//
// Parameters: block_size_x, block_size_y (thread-block dims), tile_size_y (rows or runs per
// thread), vector (1, 2, 4 floats per access), streaming (evict-first cache hints), access_offset,
// access_stride (elements).

#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef vector
#define vector 1
#endif
#ifndef streaming
#define streaming 0
#endif
#ifndef access_offset
#define access_offset 0
#endif
#ifndef access_stride
#define access_stride 1
#endif

#define CP_TX (block_size_x * vector)
#define CP_TY (block_size_y * tile_size_y)
#define CP_NT (block_size_x * block_size_y)
// An oversized block must not stop the file from compiling for another kernel.
#define CP_BOUNDS (CP_NT <= 1024 ? CP_NT : 1024)

static_assert(vector == 1 || vector == 2 || vector == 4, "vector must be 1, 2 or 4");
static_assert(access_offset >= 0 && access_stride >= 1, "access_offset >= 0 and access_stride >= 1");

namespace cp {

template <int N> struct Vec;
template <> struct Vec<1> { typedef float type; };
template <> struct Vec<2> { typedef float2 type; };
template <> struct Vec<4> { typedef float4 type; };

typedef Vec<vector>::type VecT;

__device__ __forceinline__ VecT load(const float* p) {
#if streaming
  return __ldcs(reinterpret_cast<const VecT*>(p));
#else
  return *reinterpret_cast<const VecT*>(p);
#endif
}

__device__ __forceinline__ void store(float* p, const VecT& v) {
#if streaming
  __stcs(reinterpret_cast<VecT*>(p), v);
#else
  *reinterpret_cast<VecT*>(p) = v;
#endif
}

// The scalar fallback where a vector access would leave the matrix or be misaligned.
union Frag {
  VecT v;
  float f[vector];
};

// Chunk of `vector` floats of row r from column c: p = base + r * cols + c.
__device__ __forceinline__ VecT load_chunk(const float* __restrict__ in, int r, int c, int rows,
                                           int cols) {
  const float* p = in + static_cast<size_t>(r) * cols + c;
  Frag u;
  if (r < rows && cols % vector == 0 && c < cols) {
    u.v = load(p);
  } else {
#pragma unroll
    for (int e = 0; e < vector; ++e) u.f[e] = (r < rows && c + e < cols) ? p[e] : 0.0f;
  }
  return u.v;
}

__device__ __forceinline__ void store_chunk(float* __restrict__ out, const VecT& v, int r, int c,
                                            int rows, int cols) {
  float* p = out + static_cast<size_t>(r) * cols + c;
  if (r >= rows) return;
  if (cols % vector == 0 && c < cols) {
    store(p, v);
  } else {
    Frag u;
    u.v = v;
#pragma unroll
    for (int e = 0; e < vector; ++e)
      if (c + e < cols) p[e] = u.f[e];
  }
}

}  // namespace cp

extern "C" __global__ void __launch_bounds__(CP_BOUNDS)
    copy(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
  const int r0 = blockIdx.y * CP_TY + threadIdx.y;
  const int c = blockIdx.x * CP_TX + threadIdx.x * vector;
  cp::VecT buf[tile_size_y];
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) buf[j] = cp::load_chunk(in, r0 + j * block_size_y, c, rows, cols);
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) cp::store_chunk(out, buf[j], r0 + j * block_size_y, c, rows, cols);
}

extern "C" __global__ void __launch_bounds__(CP_BOUNDS)
    copy_shared(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
#if CP_TY * CP_TX * 4 > 48 * 1024
  // Parameters meant for another kernel of this file would give this one a tile over the
  // 48 KiB of static shared memory and fail the whole compile; its own space excludes them.
  __trap();
#else
  __shared__ cp::VecT tile[CP_TY][block_size_x];
  const int r0 = blockIdx.y * CP_TY + threadIdx.y;
  const int c = blockIdx.x * CP_TX + threadIdx.x * vector;
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    tile[threadIdx.y + j * block_size_y][threadIdx.x] =
        cp::load_chunk(in, r0 + j * block_size_y, c, rows, cols);
  __syncthreads();  // not needed (each thread reads what it wrote); kept as in the seed
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    cp::store_chunk(out, tile[threadIdx.y + j * block_size_y][threadIdx.x], r0 + j * block_size_y,
                    c, rows, cols);
#endif
}

extern "C" __global__ void __launch_bounds__(CP_BOUNDS)
    copy_vec(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
  // The grid covers at least rows * cols floats: gridDim.x * CP_TX >= cols and
  // gridDim.y * tile_size_y >= rows, and each block copies CP_TX * tile_size_y of them.
  const size_t n = static_cast<size_t>(rows) * cols;
  const size_t block = static_cast<size_t>(blockIdx.y) * gridDim.x + blockIdx.x;
  const size_t t = static_cast<size_t>(threadIdx.y) * block_size_x + threadIdx.x;
  const size_t base = block * (static_cast<size_t>(CP_TX) * CP_TY) + t * vector;
  cp::VecT buf[tile_size_y];
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) {
    const size_t i = base + static_cast<size_t>(j) * (CP_NT * vector);
    if (i + vector <= n) {
      buf[j] = cp::load(in + i);
    } else {
      cp::Frag u;
#pragma unroll
      for (int e = 0; e < vector; ++e) u.f[e] = i + e < n ? in[i + e] : 0.0f;
      buf[j] = u.v;
    }
  }
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j) {
    const size_t i = base + static_cast<size_t>(j) * (CP_NT * vector);
    if (i + vector <= n) {
      cp::store(out + i, buf[j]);
    } else {
      cp::Frag u;
      u.v = buf[j];
#pragma unroll
      for (int e = 0; e < vector; ++e)
        if (i + e < n) out[i + e] = u.f[e];
    }
  }
}

extern "C" __global__ void __launch_bounds__(block_size_x) offset_access(float* a, int n) {
  const int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i >= n) return;
  // A warp's accesses start access_offset elements past its aligned segment.
  int j = i + access_offset;
  if (j >= n) j %= n;
  a[j] = a[j] + 1.0f;
}

extern "C" __global__ void __launch_bounds__(block_size_x) stride_access(float* a, int n) {
  const int i = blockIdx.x * block_size_x + threadIdx.x;
  if (i >= n) return;
  // Thread i of m * access_stride touches element (i % m) * access_stride + i / m, where
  // m = n / access_stride: consecutive threads are access_stride elements apart, as in the seed,
  // and the elements a warp skips are touched m threads later; the tail past m * access_stride
  // maps to itself.
  const unsigned m = static_cast<unsigned>(n) / access_stride;
  const unsigned u = static_cast<unsigned>(i);
  const unsigned j = u < m * access_stride ? (u % m) * access_stride + u / m : u;
  a[j] = a[j] + 1.0f;
}

// References for verification: one element per thread, no tuning parameter involved.
extern "C" __global__ void copy_reference(float* out, const float* in, int rows, int cols) {
  const size_t n = static_cast<size_t>(rows) * cols;
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}

extern "C" __global__ void increment_reference(float* a, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] = a[i] + 1.0f;
}

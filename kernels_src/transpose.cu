// Out-of-place float32 matrix transpose, one template for every variant of the seeds and more.
// Compiled at run time by NVRTC (or Kernel Tuner): each tuning parameter arrives as a macro
// (`-D name=value`); the defaults below are the seeds' classic 32x32 tile with 32x8 threads.
//
//   out[c * rows + r] = in[r * cols + c]   in: rows x cols row-major, out: cols x rows row-major
//
// A block moves one tile of TY input rows x TX input columns (several tiles with `tiles`):
//   TX = block_size_x * vector        (grid x = ceil(cols / TX))
//   TY = block_size_y * tile_size_y   (grid y = ceil(rows / (TY * tiles)))
// Parameters:
//   block_size_x, block_size_y  thread-block dims; a thread moves `vector` adjacent floats per
//                               access and tile_size_y rows of the tile ("BLOCK_ROWS" = block_size_y)
//   tile_size_y                 rows of the tile per thread (elements per thread = vector * tile_size_y)
//   vector        1, 2, 4       floats per global access (8- and 16-byte loads/stores); a chunk
//                               falls back to scalar accesses where alignment does not allow it
//                               (cols % vector != 0 for loads, rows % vector != 0 for stores)
//   use_shared    0, 1          1: coalesced transpose through a shared-memory tile;
//                               0: no shared memory; each thread transposes vector x vector
//                               blocks in registers (vector = 1 is the seeds' naive transpose)
//   padding       0, 1, ...     floats added to each shared tile row against bank conflicts
//   diagonal      0, 1          diagonal block mapping against partition camping
//   group         1, 2, ...     block swizzle: blocks run through groups of `group` tile rows
//                               column by column, so concurrent blocks read and write compact
//                               areas of both matrices (1: row by row; not with diagonal)
//   tiles         1, 2, ...     tiles per block along y; the next tile's loads are issued before
//                               the current tile is written out (register double buffering)
//   streaming     0, 1          evict-first cache hints (ld.global.cs / st.global.cs)
// Conditions a configuration must meet (the spec file states them): block_size_y * tile_size_y
// divisible by vector; with use_shared = 0 also tile_size_y divisible by vector.

#ifndef block_size_x
#define block_size_x 32
#endif
#ifndef block_size_y
#define block_size_y 8
#endif
#ifndef tile_size_y
#define tile_size_y 4
#endif
#ifndef vector
#define vector 1
#endif
#ifndef use_shared
#define use_shared 1
#endif
#ifndef padding
#define padding 1
#endif
#ifndef diagonal
#define diagonal 0
#endif
#ifndef group
#define group 1
#endif
#ifndef tiles
#define tiles 1
#endif
#ifndef streaming
#define streaming 0
#endif

#define TP_TX (block_size_x * vector)
#define TP_TY (block_size_y * tile_size_y)
#define TP_NT (block_size_x * block_size_y)

static_assert(vector == 1 || vector == 2 || vector == 4, "vector must be 1, 2 or 4");
static_assert(TP_TY % vector == 0, "block_size_y * tile_size_y must be a multiple of vector");
static_assert(use_shared || tile_size_y % vector == 0,
              "without shared memory tile_size_y must be a multiple of vector");
static_assert(tiles >= 1 && padding >= 0 && group >= 1, "tiles, group >= 1 and padding >= 0");
static_assert(!(diagonal && group > 1), "diagonal mapping and group swizzle exclude each other");

namespace tp {

template <int N> struct Vec;
template <> struct Vec<1> { typedef float type; };
template <> struct Vec<2> { typedef float2 type; };
template <> struct Vec<4> { typedef float4 type; };

// N adjacent floats; loads and stores one N-wide access (the address must be N*4-byte aligned).
template <int N> union Frag {
  typename Vec<N>::type v;
  float f[N];
};

template <int N>
__device__ __forceinline__ void load(float (&dst)[N], const float* p) {
  typedef typename Vec<N>::type T;
  Frag<N> u;
#if streaming
  u.v = __ldcs(reinterpret_cast<const T*>(p));
#else
  u.v = *reinterpret_cast<const T*>(p);
#endif
#pragma unroll
  for (int e = 0; e < N; ++e) dst[e] = u.f[e];
}

template <int N>
__device__ __forceinline__ void store(float* p, const float (&src)[N]) {
  typedef typename Vec<N>::type T;
  Frag<N> u;
#pragma unroll
  for (int e = 0; e < N; ++e) u.f[e] = src[e];
#if streaming
  __stcs(reinterpret_cast<T*>(p), u.v);
#else
  *reinterpret_cast<T*>(p) = u.v;
#endif
}

__device__ __forceinline__ float load1(const float* p) {
#if streaming
  return __ldcs(p);
#else
  return *p;
#endif
}

__device__ __forceinline__ void store1(float* p, float v) {
#if streaming
  __stcs(p, v);
#else
  *p = v;
#endif
}

// `vector` floats of input row r from column c on; zeros outside the matrix.
__device__ __forceinline__ void load_chunk(float (&dst)[vector], const float* __restrict__ in,
                                           int r, int c, int rows, int cols) {
  const float* p = in + static_cast<size_t>(r) * cols + c;
  if (r < rows && cols % vector == 0 && c < cols) {
    load<vector>(dst, p);  // c % vector == 0 and cols % vector == 0: aligned, all inside
  } else {
#pragma unroll
    for (int e = 0; e < vector; ++e) dst[e] = (r < rows && c + e < cols) ? load1(p + e) : 0.0f;
  }
}

// `vector` floats to output row c (input column) from column r (input row) on, inside only.
__device__ __forceinline__ void store_chunk(float* __restrict__ out, const float (&src)[vector],
                                            int c, int r, int rows, int cols) {
  if (c >= cols) return;
  float* p = out + static_cast<size_t>(c) * rows + r;
  if (rows % vector == 0 && r < rows) {
    store<vector>(p, src);
  } else {
#pragma unroll
    for (int e = 0; e < vector; ++e)
      if (r + e < rows) store1(p + e, src[e]);
  }
}

#if use_shared
// Loads the thread's tile_size_y chunks of the tile at (r0, c0): rows ty, ty+block_size_y, ...
__device__ __forceinline__ void load_tile(float (&buf)[tile_size_y][vector],
                                          const float* __restrict__ in, int r0, int c0, int rows,
                                          int cols) {
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    load_chunk(buf[j], in, r0 + threadIdx.y + j * block_size_y, c0 + threadIdx.x * vector, rows,
               cols);
}
#endif

}  // namespace tp

extern "C" __global__ void __launch_bounds__(TP_NT)
    transpose(float* __restrict__ out, const float* __restrict__ in, int rows, int cols) {
#if diagonal
  // Diagonal block mapping, a bijection for any grid shape: consecutive blocks take tiles
  // along a diagonal, so concurrent blocks spread over memory partitions.
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int by = bid % gridDim.y;
  const int bx = (bid / gridDim.y + by) % gridDim.x;
#elif group > 1
  // Groups of `group` tile rows; inside a group, consecutive blocks go down a tile column.
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int per_group = group * gridDim.x;
  const int first = bid / per_group * group;
  const int height = min(group, static_cast<int>(gridDim.y) - first);
  const int local = bid % per_group;
  const int by = first + local % height;
  const int bx = local / height;
#else
  const int bx = blockIdx.x;
  const int by = blockIdx.y;
#endif
  const int c0 = bx * TP_TX;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;

#if use_shared
  __shared__ float tile[TP_TY][TP_TX + padding];
  const int t = ty * block_size_x + tx;
  float buf[tile_size_y][vector];
  int r0 = by * tiles * TP_TY;
  tp::load_tile(buf, in, r0, c0, rows, cols);
#pragma unroll 1
  for (int k = 0; k < tiles; ++k, r0 += TP_TY) {
    if (r0 >= rows) break;  // uniform across the block
#pragma unroll
    for (int j = 0; j < tile_size_y; ++j)
#pragma unroll
      for (int e = 0; e < vector; ++e) tile[ty + j * block_size_y][tx * vector + e] = buf[j][e];
    __syncthreads();
    if (k + 1 < tiles && r0 + TP_TY < rows) tp::load_tile(buf, in, r0 + TP_TY, c0, rows, cols);
    // Write the transposed tile: TX output rows of TY/vector chunks; consecutive threads take
    // consecutive chunks of one output row, so stores are coalesced.
#pragma unroll
    for (int j = 0; j < tile_size_y; ++j) {
      const int q = t + j * TP_NT;
      const int orow = q / (TP_TY / vector);
      const int ochunk = q % (TP_TY / vector);
      float v[vector];
#pragma unroll
      for (int e = 0; e < vector; ++e) v[e] = tile[ochunk * vector + e][orow];
      tp::store_chunk(out, v, c0 + orow, r0 + ochunk * vector, rows, cols);
    }
    __syncthreads();
  }
#else
  // Each thread moves tile_size_y / vector blocks of vector x vector elements: `vector` loads
  // from adjacent input rows, a transpose in registers, `vector` stores to adjacent output rows.
  const int c = c0 + tx * vector;
#pragma unroll 1
  for (int k = 0; k < tiles; ++k) {
    const int r0 = (by * tiles + k) * TP_TY;
    if (r0 >= rows) break;
    float m[tile_size_y / vector][vector][vector];
#pragma unroll
    for (int g = 0; g < tile_size_y / vector; ++g)
#pragma unroll
      for (int i = 0; i < vector; ++i)
        tp::load_chunk(m[g][i], in, r0 + (ty + g * block_size_y) * vector + i, c, rows, cols);
#pragma unroll
    for (int g = 0; g < tile_size_y / vector; ++g) {
#pragma unroll
      for (int e = 0; e < vector; ++e) {
        float v[vector];
#pragma unroll
        for (int i = 0; i < vector; ++i) v[i] = m[g][i][e];
        tp::store_chunk(out, v, c + e, r0 + (ty + g * block_size_y) * vector, rows, cols);
      }
    }
  }
#endif
}

// The reference for verification: the plain definition, one element per thread (any block
// shape, grid covering cols x rows), independent of every tuning parameter.
extern "C" __global__ void transpose_reference(float* out, const float* in, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r < rows && c < cols) out[static_cast<size_t>(c) * rows + r] = in[static_cast<size_t>(r) * cols + c];
}

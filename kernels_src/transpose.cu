// Out-of-place float32 matrix transpose, one template for every variant of the seeds and more.
// Compiled at run time by NVRTC (or Kernel Tuner): each tuning parameter arrives as a macro
// (`-D name=value`); the defaults below are the seeds' classic 32x32 tile with 32x8 threads.
//
//   out[c * rows + r] = in[r * cols + c]   in: rows x cols row-major, out: cols x rows row-major
//
// A block moves one tile of TY input rows x TX input columns (several tiles with `tiles`):
//   TX = block_size_x * vector * tile_size_x   (grid x = ceil(cols / TX))
//   TY = block_size_y * tile_size_y   (grid y = ceil(rows / (TY * tiles)))
// Parameters:
//   block_size_x, block_size_y  thread-block dims; a thread moves `vector` adjacent floats per
//                               access and tile_size_y rows of the tile ("BLOCK_ROWS" = block_size_y)
//   tile_size_y                 rows of the tile per thread (elements per thread = vector * tile_size_y)
//   tile_size_x                 columns of the tile per thread, block_size_x apart (use_shared = 3
//                               only; TX = block_size_x * vector * tile_size_x)
//   vector        1, 2, 4       floats per global access (8- and 16-byte loads/stores) at every
//                               size: where rows do not start on a vector boundary (cols % vector
//                               != 0 for loads, rows % vector != 0 for stores) neighbouring lanes
//                               access the aligned chunks and exchange floats by warp shuffles
//                               (common/realign.cuh); only row and tile ends use single floats
//   use_shared    0, 1, 2, 3    1: coalesced transpose through a padded shared-memory tile;
//                               0: no shared memory; each thread transposes vector x vector
//                               blocks in registers (vector = 1 is the seeds' naive transpose);
//                               2: the 16-byte scheme described below; 3: 1's tile for vector = 1
//                               in lean code, fewer registers (common/transpose_scalar.cuh)
//   padding       0, 1, ...     floats added to each shared tile row against bank conflicts
//   diagonal      0, 1          diagonal block mapping against partition camping
//   group         1, 2, ...     block swizzle: blocks run through groups of `group` tile rows
//                               column by column, so concurrent blocks read and write compact
//                               areas of both matrices (1: row by row; not with diagonal). A
//                               group of at least the matrix's tile rows (1024 in the spaces) is
//                               column-major order: the blocks in flight write whole output rows
//                               one after another, as a copy does, and read a 4 * TX-byte piece of
//                               every input row; on the H200 the best order from 6912 x 6912 up
//                               (kernels_src/README.md)
//   tiles         1, 2, ...     tiles per block along y; the next tile's loads are issued before
//                               the current tile is written out (register double buffering)
//   streaming     0, 1, ...     cache hints: 1 evict-first on loads and stores (ld/st.global.cs);
//                               with use_shared = 2 also (loads / stores): 2 L2 evict-first policy
//                               / none; 3 evict-first / evict-last policy; 4 none / evict-last;
//                               5 none / evict-first policy; 6 L2::256B prefetch size / none
//   bands         1, 2, ...     band interleave: consecutive blocks alternate between `bands`
//                               equal parts of the (row-major) block order, so the blocks in flight
//                               read `bands` bands of input rows and write `bands` column strips of
//                               the output instead of one (not with diagonal or group)
//   use_shared = 2 (with vector = 4) selects a second scheme: an unpadded shared tile whose
//   16-byte chunks are XOR-swizzled per row, 16-byte shared stores on the load side and, on the
//   store side, each thread reads a 4 x 4 block (four 16-byte shared loads), transposes it in
//   registers and writes four 16-byte chunks to four output rows: every global and shared access
//   is 16 bytes wide and conflict-free. Extra parameters of that scheme:
//   cp_async      0, 1          1: loads by cp.async (LDGSTS, 16 bytes, straight to shared memory)
//   stages        1, 2, 3       shared buffers with cp_async = 1: the loads of the next stages - 1
//                               tiles are in flight while a tile is written out (needs tiles > 1
//                               or persist = 1 to overlap anything)
//   persist       0, 1          1: a block takes the tiles bid, bid + blocks, bid + 2 * blocks, ...
//                               of the whole matrix (row-major tile order, or grouped by `group`
//                               over tiles), so any grid is correct; with the spec's grid (tiles
//                               per block along y) each block moves about `tiles` tiles, which lie
//                               a 1/tiles of the matrix apart: the blocks in flight work on `tiles`
//                               separate regions. With group = 64 the order goes down 64 tile rows
//                               before the next tile column: the writes in flight are long runs of
//                               a few output rows, the reads short runs of many input rows; group
//                               128 with 128-row tiles is column-major up to 16384 rows.
// Conditions a configuration must meet (the spec file states them): block_size_y * tile_size_y
// divisible by vector; with use_shared = 0 also tile_size_y divisible by vector; with
// use_shared = 2: vector = 4, tile_size_y % 4 == 0, tile height and width multiples of 32.
// kernels_src/README.md says what shapes it; bench/journal.md ("Kernel notes") has the measurements.
// Every default leaves a configuration that names none of a parameter unchanged.

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
#ifndef cp_async
#define cp_async 0
#endif
#ifndef bands
#define bands 1
#endif
#ifndef stages
#define stages 1
#endif
#ifndef persist
#define persist 0
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif

#define TP_TX (block_size_x * vector * tile_size_x)
#define TP_TY (block_size_y * tile_size_y)
#define TP_NT (block_size_x * block_size_y)

static_assert(vector == 1 || vector == 2 || vector == 4, "vector must be 1, 2 or 4");
static_assert(TP_TY % vector == 0, "block_size_y * tile_size_y must be a multiple of vector");
static_assert(use_shared || tile_size_y % vector == 0,
              "without shared memory tile_size_y must be a multiple of vector");
static_assert(tiles >= 1 && padding >= 0 && group >= 1, "tiles, group >= 1 and padding >= 0");
static_assert(!(diagonal && group > 1), "diagonal mapping and group swizzle exclude each other");
static_assert(use_shared >= 0 && use_shared <= 3, "use_shared must be 0, 1, 2 or 3");
static_assert(use_shared != 3 || (vector == 1 && tiles == 1), "use_shared = 3 needs vector = 1, tiles = 1");
static_assert(tile_size_x == 1 || use_shared == 3, "tile_size_x > 1 needs use_shared = 3");
static_assert(use_shared == 2 || (cp_async == 0 && stages == 1 && persist == 0 && streaming <= 1),
              "cp_async, stages, persist and streaming > 1 need use_shared = 2");
static_assert(use_shared != 2 || (vector == 4 && tile_size_y % 4 == 0 && TP_TY % 32 == 0 && TP_TX % 32 == 0),
              "use_shared = 2 needs vector = 4, tile_size_y % 4 == 0, tile height and width multiples of 32");
static_assert(stages >= 1 && stages <= 3 && (stages == 1 || cp_async),
              "stages 1..3; stages > 1 needs cp_async = 1");
static_assert(!(persist && diagonal), "persist orders tiles itself (row-major or group), not diagonally");
static_assert(bands >= 1 && (bands == 1 || (!diagonal && group == 1 && !persist)),
              "bands >= 1; band interleave excludes diagonal, group and persist");
static_assert(streaming >= 0 && streaming <= 6, "streaming must be 0..6");
// use_shared = 2: the L2 policy (0 none, 1 evict-first, 2 evict-last) or prefetch (3) per side.
#define TP_LOAD_HINT (streaming == 2 || streaming == 3 ? 1 : streaming == 6 ? 3 : 0)
#define TP_STORE_HINT (streaming == 3 || streaming == 4 ? 2 : streaming == 5 ? 1 : 0)

#include "common/realign.cuh"

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
#if streaming == 1
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
#if streaming == 1
  __stcs(reinterpret_cast<T*>(p), u.v);
#else
  *reinterpret_cast<T*>(p) = u.v;
#endif
}

__device__ __forceinline__ float load1(const float* p) {
#if streaming == 1
  return __ldcs(p);
#else
  return *p;
#endif
}

__device__ __forceinline__ void store1(float* p, float v) {
#if streaming == 1
  __stcs(p, v);
#else
  *p = v;
#endif
}

// Rows of a matrix start on a `vector`-float boundary: its width and base pointer allow it.
__device__ __forceinline__ bool aligned_rows(const float* p, int width) {
  return width % vector == 0 && realign::misalignment<vector>(p) == 0;
}

// The global accesses of the chunks: `vector` floats (aligned) or one.
struct Access {
  __device__ __forceinline__ void operator()(float (&d)[vector], const float* p) const { load<vector>(d, p); }
  __device__ __forceinline__ float operator()(const float* p) const { return load1(p); }
  __device__ __forceinline__ void operator()(float* p, const float (&s)[vector]) const { store<vector>(p, s); }
  __device__ __forceinline__ void operator()(float* p, float v) const { store1(p, v); }
};

// `vector` floats of input row r from column c on; zeros outside the matrix. Lanes DELTA apart
// hold consecutive chunks of one row in segments of SEG lanes (common/realign.cuh): rows that do
// not start on a vector boundary still load by vectors.
template <int DELTA, int SEG>
__device__ __forceinline__ void load_chunk(float (&dst)[vector], const float* __restrict__ in, int r, int c,
                                           int rows, int cols) {
  const float* row = in + static_cast<size_t>(r) * cols;
  if (aligned_rows(in, cols)) {  // the same for the whole grid
    realign::fetch<vector>(dst, row, r < rows, c, cols, Access());
  } else {
    realign::load<vector, DELTA, SEG>(dst, row, r < rows, c, cols, Access());
  }
}

// `vector` floats to output row c (input column) from column r (input row) on, inside only;
// DELTA and SEG as for load_chunk, along the output row.
template <int DELTA, int SEG>
__device__ __forceinline__ void store_chunk(float* __restrict__ out, const float (&src)[vector], int c, int r,
                                            int rows, int cols) {
  float* row = out + static_cast<size_t>(c) * rows;
  if (aligned_rows(out, rows)) {
    if (c >= cols) return;
    if (r + vector <= rows) {
      store<vector>(row + r, src);
    } else {
#pragma unroll
      for (int e = 0; e < vector; ++e)
        if (r + e < rows) store1(row + r + e, src[e]);
    }
  } else {
    realign::store<vector, DELTA, SEG>(row, c < cols, r, rows, src, Access());
  }
}

// Segments of the chunk accesses: TX-wide tile rows by threadIdx.x; TY-long output rows by
// consecutive threads (shared-memory schemes) or by threadIdx.y (use_shared = 0).
#define TP_SEG_X (block_size_x < 32 ? block_size_x : 32)
#define TP_SEG_T (TP_TY / vector < 32 ? TP_TY / vector : 32)
#define TP_DELTA_Y (block_size_x < 32 ? block_size_x : 1)
#define TP_SEG_Y (block_size_x < 32 ? 32 / block_size_x : 1)

#if use_shared == 1
// Loads the thread's tile_size_y chunks of the tile at (r0, c0): rows ty, ty+block_size_y, ...
__device__ __forceinline__ void load_tile(float (&buf)[tile_size_y][vector],
                                          const float* __restrict__ in, int r0, int c0, int rows,
                                          int cols) {
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    load_chunk<1, TP_SEG_X>(buf[j], in, r0 + threadIdx.y + j * block_size_y, c0 + threadIdx.x * vector, rows,
                            cols);
}
#endif


#include "common/transpose_wide.cuh"  // use_shared = 2
#include "common/transpose_scalar.cuh"  // use_shared = 3

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
#elif bands > 1
  // Band interleave, a bijection for any grid: block id i goes to part i % bands, position
  // i / bands; part j holds q (+ 1 for the first nb % bands parts) consecutive row-major blocks.
  const int bid = blockIdx.x + gridDim.x * blockIdx.y;
  const int nb = gridDim.x * gridDim.y, q = nb / bands, j = bid % bands;
  const int b2 = j * q + min(j, nb % bands) + bid / bands;
  const int bx = b2 % gridDim.x;
  const int by = b2 / gridDim.x;
#else
  const int bx = blockIdx.x;
  const int by = blockIdx.y;
#endif
#if use_shared < 2  // the paths that address the tile here; 2 and 3 compute their own
  const int c0 = bx * TP_TX;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;
#endif

#if use_shared == 1
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
      tp::store_chunk<1, TP_SEG_T>(out, v, c0 + orow, r0 + ochunk * vector, rows, cols);
    }
    __syncthreads();
  }
#elif use_shared == 2
  __shared__ __align__(16) float stile[stages * TP_TY * TP_TX];
  const tp::Tiles T(rows, cols, bx, by);
  const unsigned long long pol_ld = tp::policy<TP_LOAD_HINT == 3 ? 0 : TP_LOAD_HINT>();
  const unsigned long long pol_st = tp::policy<TP_STORE_HINT>();
#if cp_async
  // Pipeline: the loads of tiles k + 1 .. k + stages - 1 are in flight while tile k is written.
#pragma unroll
  for (int s = 0; s < stages - 1; ++s) {
    if (s < T.n) {
      int r0, c0s;
      T.at(s, r0, c0s);
      tp::issue_tile(stile + s * TP_TY * TP_TX, in, r0, c0s, rows, cols, pol_ld);
    }
    tp::cp_commit();
  }
#pragma unroll 1
  for (int k = 0; k < T.n; ++k) {
    if (k + stages - 1 < T.n) {
      int r0, c0s;
      T.at(k + stages - 1, r0, c0s);
      tp::issue_tile(stile + (k + stages - 1) % stages * TP_TY * TP_TX, in, r0, c0s, rows, cols, pol_ld);
    }
    tp::cp_commit();
    tp::cp_wait<stages - 1>();
    __syncthreads();
    int r0, c0s;
    T.at(k, r0, c0s);
    tp::write_tile(out, stile + k % stages * TP_TY * TP_TX, r0, c0s, rows, cols, pol_st);
    __syncthreads();
  }
#else
  // Register double buffering: the next tile's loads are issued before this tile is written.
  float buf[tile_size_y][4];
  if (T.n > 0) {
    int r0, c0s;
    T.at(0, r0, c0s);
    tp::get_tile(buf, in, r0, c0s, rows, cols, pol_ld);
  }
#pragma unroll 1
  for (int k = 0; k < T.n; ++k) {
    tp::put_tile(stile, buf);
    __syncthreads();
    if (k + 1 < T.n) {
      int r0, c0s;
      T.at(k + 1, r0, c0s);
      tp::get_tile(buf, in, r0, c0s, rows, cols, pol_ld);
    }
    int r0, c0s;
    T.at(k, r0, c0s);
    tp::write_tile(out, stile, r0, c0s, rows, cols, pol_st);
    __syncthreads();
  }
#endif
#elif use_shared == 3
  tp::scalar_tile(out, in, rows, cols, bx, by);
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
        tp::load_chunk<1, TP_SEG_X>(m[g][i], in, r0 + (ty + g * block_size_y) * vector + i, c, rows, cols);
#pragma unroll
    for (int g = 0; g < tile_size_y / vector; ++g) {
#pragma unroll
      for (int e = 0; e < vector; ++e) {
        float v[vector];
#pragma unroll
        for (int i = 0; i < vector; ++i) v[i] = m[g][i][e];
        tp::store_chunk<TP_DELTA_Y, TP_SEG_Y>(out, v, c + e, r0 + (ty + g * block_size_y) * vector, rows, cols);
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

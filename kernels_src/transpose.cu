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
//   use_shared    0, 1, 2       1: coalesced transpose through a padded shared-memory tile;
//                               0: no shared memory; each thread transposes vector x vector
//                               blocks in registers (vector = 1 is the seeds' naive transpose);
//                               2: the 16-byte scheme described below
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

#define TP_TX (block_size_x * vector)
#define TP_TY (block_size_y * tile_size_y)
#define TP_NT (block_size_x * block_size_y)

static_assert(vector == 1 || vector == 2 || vector == 4, "vector must be 1, 2 or 4");
static_assert(TP_TY % vector == 0, "block_size_y * tile_size_y must be a multiple of vector");
static_assert(use_shared || tile_size_y % vector == 0,
              "without shared memory tile_size_y must be a multiple of vector");
static_assert(tiles >= 1 && padding >= 0 && group >= 1, "tiles, group >= 1 and padding >= 0");
static_assert(!(diagonal && group > 1), "diagonal mapping and group swizzle exclude each other");
static_assert(use_shared >= 0 && use_shared <= 2, "use_shared must be 0, 1 or 2");
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

#if use_shared == 1
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


#if use_shared == 2
// ---- use_shared = 2: 16-byte accesses everywhere, swizzled unpadded tile, 4 x 4 register blocks.

// Float offset of 16-byte chunk c of tile row r. Chunks are XOR-swizzled with bits 2..4 of the row:
// the 8 lanes of one 16-byte shared access phase then hit 8 different 16-byte bank groups both
// when a row is written (8 consecutive chunks of one row) and when 4 x 4 blocks are read (the
// same chunk of rows 4a + i for 8 consecutive a). Needs TP_TX / 4 to be a multiple of 8.
__device__ __forceinline__ int soff(int r, int c) { return r * TP_TX + ((c ^ ((r >> 2) & 7)) << 2); }

// createpolicy for the L2 hint of one side (0 when the side has none).
template <int HINT>
__device__ __forceinline__ unsigned long long policy() {
  unsigned long long p = 0;
  if (HINT == 1) asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(p));
  if (HINT == 2) asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(p));
  return p;
}

// 16-byte global load (aligned, inside the matrix) with the load hint of `streaming`.
__device__ __forceinline__ float4 ld16(const float* p, unsigned long long pol) {
  (void)pol;
#if streaming == 1
  return __ldcs(reinterpret_cast<const float4*>(p));
#elif TP_LOAD_HINT == 1 || TP_LOAD_HINT == 2
  float4 v;
  asm volatile("ld.global.L2::cache_hint.v4.f32 {%0, %1, %2, %3}, [%4], %5;"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p), "l"(pol));
  return v;
#elif TP_LOAD_HINT == 3
  float4 v;
  asm volatile("ld.global.nc.L2::256B.v4.f32 {%0, %1, %2, %3}, [%4];"
               : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w)
               : "l"(p));
  return v;
#else
  return *reinterpret_cast<const float4*>(p);
#endif
}

// 16-byte global store (aligned, inside the matrix) with the store hint of `streaming`.
__device__ __forceinline__ void st16(float* p, float4 v, unsigned long long pol) {
  (void)pol;
#if streaming == 1
  __stcs(reinterpret_cast<float4*>(p), v);
#elif TP_STORE_HINT != 0
  asm volatile("st.global.L2::cache_hint.v4.f32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "f"(v.x), "f"(v.y),
               "f"(v.z), "f"(v.w), "l"(pol)
               : "memory");
#else
  *reinterpret_cast<float4*>(p) = v;
#endif
}

#if cp_async
// cp.async of 16 bytes to shared memory; n = 0 writes zeros there and reads nothing.
__device__ __forceinline__ void cp16(float* dst, const float* src, int n, unsigned long long pol) {
  const unsigned d = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  (void)pol;
#if streaming == 1 || TP_LOAD_HINT == 1 || TP_LOAD_HINT == 2
  asm volatile("cp.async.cg.shared.global.L2::cache_hint [%0], [%1], 16, %2, %3;" ::"r"(d), "l"(src), "r"(n),
               "l"(streaming == 1 ? policy<1>() : pol)
               : "memory");
#elif TP_LOAD_HINT == 3
  asm volatile("cp.async.cg.shared.global.L2::256B [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(n)
               : "memory");
#else
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;" ::"r"(d), "l"(src), "r"(n) : "memory");
#endif
}
__device__ __forceinline__ void cp_commit() { asm volatile("cp.async.commit_group;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void cp_wait() {
  asm volatile("cp.async.wait_group %0;" ::"n"(N) : "memory");
}
#endif

// The tiles one block moves: k = 0 .. n - 1, tile k at tile row tr, tile column tc.
struct Tiles {
  int n, bid, step, gtx, gty, bx, by;
  __device__ __forceinline__ Tiles(int rows, int cols, int bx_, int by_) : bx(bx_), by(by_) {
    gtx = (cols + TP_TX - 1) / TP_TX;
    gty = (rows + TP_TY - 1) / TP_TY;
#if persist
    bid = blockIdx.x + gridDim.x * blockIdx.y;
    step = gridDim.x * gridDim.y;
    const int total = gtx * gty;
    n = bid < total ? (total - 1 - bid) / step + 1 : 0;
#else
    bid = step = 0;
    n = min(tiles, gty - by * tiles);
#endif
  }
  __device__ __forceinline__ void at(int k, int& r0, int& c0) const {
#if persist
    const int t = bid + k * step;
#if group > 1
    const int per_group = group * gtx;
    const int first = t / per_group * group;
    const int height = min(group, gty - first);
    const int local = t % per_group;
    r0 = (first + local % height) * TP_TY;
    c0 = local / height * TP_TX;
#else
    r0 = t / gtx * TP_TY;
    c0 = t % gtx * TP_TX;
#endif
#else
    r0 = (by * tiles + k) * TP_TY;
    c0 = bx * TP_TX;
#endif
  }
};

// 4 floats of input row r from column c on into registers (zeros outside the matrix).
__device__ __forceinline__ void load4(float (&d)[4], const float* __restrict__ in, int r, int c, int rows,
                                      int cols, unsigned long long pol) {
  if (r < rows && cols % 4 == 0 && c < cols) {
    const float4 v = ld16(in + static_cast<size_t>(r) * cols + c, pol);
    d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
  } else {
    const float* p = in + static_cast<size_t>(r) * cols + c;
#pragma unroll
    for (int e = 0; e < 4; ++e) d[e] = (r < rows && c + e < cols) ? load1(p + e) : 0.0f;
  }
}

// Registers of the thread's tile_size_y chunks (rows ty + j * block_size_y, chunk tx) to the tile.
__device__ __forceinline__ void put_tile(float* s, const float (&buf)[tile_size_y][4]) {
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    *reinterpret_cast<float4*>(s + soff(threadIdx.y + j * block_size_y, threadIdx.x)) =
        make_float4(buf[j][0], buf[j][1], buf[j][2], buf[j][3]);
}

__device__ __forceinline__ void get_tile(float (&buf)[tile_size_y][4], const float* __restrict__ in, int r0,
                                         int c0, int rows, int cols, unsigned long long pol) {
#pragma unroll
  for (int j = 0; j < tile_size_y; ++j)
    load4(buf[j], in, r0 + threadIdx.y + j * block_size_y, c0 + threadIdx.x * 4, rows, cols, pol);
}

#if cp_async
// Starts the loads of the tile at (r0, c0) into s (cp.async where rows are 16-byte aligned).
__device__ __forceinline__ void issue_tile(float* s, const float* __restrict__ in, int r0, int c0, int rows,
                                           int cols, unsigned long long pol) {
  if (cols % 4 == 0) {
#pragma unroll
    for (int j = 0; j < tile_size_y; ++j) {
      const int r = threadIdx.y + j * block_size_y, gr = r0 + r, gc = c0 + threadIdx.x * 4;
      const bool inside = gr < rows && gc < cols;
      const float* src = inside ? in + static_cast<size_t>(gr) * cols + gc : in;
      cp16(s + soff(r, threadIdx.x), src, inside ? 16 : 0, pol);
    }
  } else {
    float buf[tile_size_y][4];
    get_tile(buf, in, r0, c0, rows, cols, pol);
    put_tile(s, buf);
  }
}
#endif

// Writes the transposed tile at (r0, c0) from s: each thread takes tile_size_y / 4 blocks of
// 4 x 4, consecutive threads consecutive blocks down the tile (= along an output row).
__device__ __forceinline__ void write_tile(float* __restrict__ out, const float* s, int r0, int c0, int rows,
                                           int cols, unsigned long long pol) {
  const int t = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int j = 0; j < tile_size_y / 4; ++j) {
    const int q = t + j * TP_NT;
    const int a = q % (TP_TY / 4), b = q / (TP_TY / 4);
    float m[4][4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      const float4 v = *reinterpret_cast<const float4*>(s + soff(4 * a + i, b));
      m[i][0] = v.x, m[i][1] = v.y, m[i][2] = v.z, m[i][3] = v.w;
    }
    const int oc = r0 + 4 * a;  // output column of m[0][*]
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int orow = c0 + 4 * b + e;
      if (orow >= cols) continue;
      float* p = out + static_cast<size_t>(orow) * rows + oc;
      if (rows % 4 == 0 && oc < rows) {
        st16(p, make_float4(m[0][e], m[1][e], m[2][e], m[3][e]), pol);
      } else {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (oc + i < rows) store1(p + i, m[i][e]);
      }
    }
  }
}
#endif  // use_shared == 2

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
  const int c0 = bx * TP_TX;
  const int tx = threadIdx.x;
  const int ty = threadIdx.y;

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
      tp::store_chunk(out, v, c0 + orow, r0 + ochunk * vector, rows, cols);
    }
    __syncthreads();
  }
#elif use_shared == 2
  __shared__ __align__(16) float stile[stages * TP_TY * TP_TX];
  const tp::Tiles T(rows, cols, bx, by);
  const unsigned long long pol_ld = tp::policy<TP_LOAD_HINT == 3 ? 0 : TP_LOAD_HINT>();
  const unsigned long long pol_st = tp::policy<TP_STORE_HINT>();
  (void)tx, (void)ty, (void)c0;
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

// FP32 GEMM, row-major: C = alpha * A * B + beta * C with A M x K, B K x N, C M x N, any M, N, K.
// ProblemSize = [N, M, K] (x = columns of C). One template reaches every rung of the seeds'
// ladder (003, 004) and what Hopper rewards:
//   use_shared = 0        each thread reads its A rows and B columns from global memory (naive; with
//                         tile_size 1 x 1 the seeds' first kernel)
//   tile_size_x/y         outputs per thread (thread tile); columns are taken in runs of 4 (float4)
//                         spread over the block tile, so shared-memory reads are 128-bit and conflict-free
//   use_shared = 1        shared-memory tiles of BM x tile_k (A) and tile_k x BN (B),
//                         BM = block_size_y * tile_size_y, BN = block_size_x * tile_size_x
//   transpose_a           A's tile stored k-major (As[k][m]): a thread reads its rows with float4
//   vector = 4            128-bit global loads and stores (used when K and N are multiples of 4,
//                         checked at run time; otherwise the scalar path runs)
//   padding               floats added to each shared-memory row (0 or 4 keeps float4 alignment)
//   double_buffer         two shared-memory stages: one __syncthreads per k-tile
//   prefetch              the next k-tile's global loads issued into registers before this tile's FMAs
//   unroll                the inner k loop fully unrolled
//   group                 blocks walk the C tiles in column bands `group` tiles tall (L2 reuse of B)
//   min_blocks            __launch_bounds__ minimum blocks per SM (2 caps registers for two resident blocks)
//   mma = 1               tensor cores instead of FP32 FMAs: mma.sync m16n8k8 in 3xTF32, errors within
//                         FP32's dot-product bound; the same block tile and threads as mma = 0, on the
//                         shared, row-major A, float4 path (transpose_a 0, vector 4). Its warp and
//                         shared-memory layout: kernels_src/README.md ("The 3xTF32 GEMM family").
#ifndef block_size_x
#define block_size_x 16
#endif
#ifndef block_size_y
#define block_size_y 16
#endif
#ifndef tile_size_x
#define tile_size_x 1
#endif
#ifndef tile_size_y
#define tile_size_y 1
#endif
#ifndef tile_k
#define tile_k 16
#endif
#ifndef use_shared
#define use_shared 0
#endif
#ifndef transpose_a
#define transpose_a 0
#endif
#ifndef vector
#define vector 1
#endif
#ifndef padding
#define padding 0
#endif
#ifndef double_buffer
#define double_buffer 0
#endif
#ifndef prefetch
#define prefetch 0
#endif
#ifndef unroll
#define unroll 0
#endif
#ifndef group
#define group 1
#endif
#ifndef min_blocks
#define min_blocks 1
#endif
#ifndef mma
#define mma 0
#endif

#define NT (block_size_x * block_size_y)
#define BM (block_size_y * tile_size_y)
#define BN (block_size_x * tile_size_x)
#define BK tile_k
#define SUB_M (tile_size_y < 4 ? tile_size_y : 4)
#define SUB_N (tile_size_x < 4 ? tile_size_x : 4)
// Row i (0 <= i < tile_size_y) of thread ty within the block tile, and column j of thread tx.
#define ROW_OF(ty, i) (((i) / SUB_M) * (BM / (tile_size_y / SUB_M)) + (ty) * SUB_M + (i) % SUB_M)
#define COL_OF(tx, j) (((j) / SUB_N) * (BN / (tile_size_x / SUB_N)) + (tx) * SUB_N + (j) % SUB_N)

#if transpose_a
#define A_LD (BM + padding)  // As[k][m]
#else
#define A_LD (BK + padding)  // As[m][k]
#endif
#define B_LD (BN + padding)  // Bs[k][n]
#define A_TILE (transpose_a ? BK * A_LD : BM * A_LD)
#define B_TILE (BK * B_LD)
#define STAGES (double_buffer ? 2 : 1)
// float4 global loads per thread and k-tile (tile elements / 4 / threads); the scalar path moves
// the same elements one by one.
#define A_LOADS ((BM * BK / 4 + NT - 1) / NT)
#define B_LOADS ((BK * BN / 4 + NT - 1) / NT)

// The C tile this block computes: a remap of the launch grid in bands `group` tiles tall.
__device__ __forceinline__ void tile_of_block(int& tile_m, int& tile_n) {
#if group > 1
  const int tiles_n = gridDim.x, tiles_m = gridDim.y;
  const int id = blockIdx.y * tiles_n + blockIdx.x;
  const int band = id / (group * tiles_n);
  const int first = band * group;
  const int rows = min(tiles_m - first, group);
  tile_m = first + (id % (group * tiles_n)) % rows;
  tile_n = (id % (group * tiles_n)) / rows;
#else
  tile_m = blockIdx.y;
  tile_n = blockIdx.x;
#endif
}

#if use_shared

// One k-tile's global loads, held in registers until they are stored to shared memory.
struct Staged {
  float4 a[A_LOADS];
  float4 b[B_LOADS];
};

__device__ __forceinline__ float load1(const float* p, int r, int c, int rows, int cols, int ld) {
  return (r < rows && c < cols) ? __ldg(p + (size_t)r * ld + c) : 0.0f;
}

__device__ __forceinline__ float4 load4(const float* p, int r, int c, int rows, int cols, int ld, bool vec) {
  if (vec && r < rows && c + 3 < cols) return __ldg(reinterpret_cast<const float4*>(p + (size_t)r * ld + c));
  return make_float4(load1(p, r, c, rows, cols, ld), load1(p, r, c + 1, rows, cols, ld),
                     load1(p, r, c + 2, rows, cols, ld), load1(p, r, c + 3, rows, cols, ld));
}

__device__ __forceinline__ void load_tile(Staged& s, const float* A, const float* B, int M, int N, int K, int m0,
                                          int n0, int k0, bool vec) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT;  // float4 index within the BM x BK tile, row-major
    const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
    if (BM * BK / 4 % NT == 0 || e < BM * BK / 4) s.a[i] = load4(A, m0 + r, k0 + c, M, K, K, vec);
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT;  // float4 index within the BK x BN tile, row-major
    const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
    if (BK * BN / 4 % NT == 0 || e < BK * BN / 4) s.b[i] = load4(B, k0 + r, n0 + c, K, N, N, vec);
  }
}

__device__ __forceinline__ void store_tile(const Staged& s, float* As, float* Bs) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT;
    if (BM * BK / 4 % NT != 0 && e >= BM * BK / 4) continue;
    const int r = e / (BK / 4), c = (e % (BK / 4)) * 4;
#if transpose_a
    As[(c + 0) * A_LD + r] = s.a[i].x;
    As[(c + 1) * A_LD + r] = s.a[i].y;
    As[(c + 2) * A_LD + r] = s.a[i].z;
    As[(c + 3) * A_LD + r] = s.a[i].w;
#elif padding % 4 == 0
    *reinterpret_cast<float4*>(As + r * A_LD + c) = s.a[i];
#else
    As[r * A_LD + c + 0] = s.a[i].x;
    As[r * A_LD + c + 1] = s.a[i].y;
    As[r * A_LD + c + 2] = s.a[i].z;
    As[r * A_LD + c + 3] = s.a[i].w;
#endif
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT;
    if (BK * BN / 4 % NT != 0 && e >= BK * BN / 4) continue;
    const int r = e / (BN / 4), c = (e % (BN / 4)) * 4;
#if padding % 4 == 0
    *reinterpret_cast<float4*>(Bs + r * B_LD + c) = s.b[i];
#else
    Bs[r * B_LD + c + 0] = s.b[i].x;
    Bs[r * B_LD + c + 1] = s.b[i].y;
    Bs[r * B_LD + c + 2] = s.b[i].z;
    Bs[r * B_LD + c + 3] = s.b[i].w;
#endif
  }
}

// acc += As * Bs over one k-tile.
__device__ __forceinline__ void multiply_tile(const float* As, const float* Bs, float (&acc)[tile_size_y][tile_size_x]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#if unroll
#pragma unroll
#else
#pragma unroll 1
#endif
  for (int k = 0; k < BK; ++k) {
    float a[tile_size_y], b[tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; i += SUB_M) {
#if transpose_a
      if (SUB_M == 4 && A_LD % 4 == 0) {
        const float4 v = *reinterpret_cast<const float4*>(As + k * A_LD + ROW_OF(ty, i));
        a[i] = v.x, a[i + 1 < tile_size_y ? i + 1 : i] = v.y, a[i + 2 < tile_size_y ? i + 2 : i] = v.z,
        a[i + 3 < tile_size_y ? i + 3 : i] = v.w;
      } else {
#pragma unroll
        for (int u = 0; u < SUB_M; ++u) a[i + u] = As[k * A_LD + ROW_OF(ty, i + u)];
      }
#else
#pragma unroll
      for (int u = 0; u < SUB_M; ++u) a[i + u] = As[ROW_OF(ty, i + u) * A_LD + k];
#endif
    }
#pragma unroll
    for (int j = 0; j < tile_size_x; j += SUB_N) {
      if (SUB_N == 4 && B_LD % 4 == 0) {
        const float4 v = *reinterpret_cast<const float4*>(Bs + k * B_LD + COL_OF(tx, j));
        b[j] = v.x, b[j + 1 < tile_size_x ? j + 1 : j] = v.y, b[j + 2 < tile_size_x ? j + 2 : j] = v.z,
        b[j + 3 < tile_size_x ? j + 3 : j] = v.w;
      } else {
#pragma unroll
        for (int u = 0; u < SUB_N; ++u) b[j + u] = Bs[k * B_LD + COL_OF(tx, j + u)];
      }
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
      for (int j = 0; j < tile_size_x; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
}

#endif  // use_shared

#if mma
#define WARPS_N (block_size_x / 4)
#define FM (tile_size_y / 2)
#define FN (tile_size_x / 2)
#define WTM (16 * FM)
#define WTN (8 * FN)
#define T_LD (BK == 8 ? 8 : BK + 8)  // As rows: T_LD / 8 odd
#define TB_LD (BN + 4)               // Bs rows: 2 * TB_LD = 8 (mod 32)

__device__ __forceinline__ void store_mma(const Staged& s, float* As, float* Bs) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT;
    if (BM * BK / 4 % NT != 0 && e >= BM * BK / 4) continue;
    *reinterpret_cast<float4*>(As + (e / (BK / 4)) * T_LD + (e % (BK / 4)) * 4) = s.a[i];
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT;
    if (BK * BN / 4 % NT != 0 && e >= BK * BN / 4) continue;
    *reinterpret_cast<float4*>(Bs + (e / (BN / 4)) * TB_LD + (e % (BN / 4)) * 4) = s.b[i];
  }
}

#include "common/mma_tf32.cuh"

__device__ __forceinline__ void multiply_mma(const float* As, const float* Bs, float (&acc)[FM][FN][4], int wm, int wn,
                                             int g, int t) {
#pragma unroll
  for (int kk = 0; kk < BK; kk += 8) {
    unsigned ab[FM][4], as[FM][4], bb[FN][2], bs[FN][2];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      const float* p = As + (wm * WTM + i * 16 + g) * T_LD + kk + 2 * t;
      const float2 lo = *reinterpret_cast<const float2*>(p), hi = *reinterpret_cast<const float2*>(p + 8 * T_LD);
      split(lo.x, ab[i][0], as[i][0]);
      split(hi.x, ab[i][1], as[i][1]);
      split(lo.y, ab[i][2], as[i][2]);
      split(hi.y, ab[i][3], as[i][3]);
    }
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const float* q = Bs + (kk + 2 * t) * TB_LD + wn * WTN + j * 8 + g;
      split(q[0], bb[j][0], bs[j][0]);
      split(q[TB_LD], bb[j][1], bs[j][1]);
    }
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        mma_tf32(acc[i][j], as[i], bb[j]);
        mma_tf32(acc[i][j], ab[i], bs[j]);
        mma_tf32(acc[i][j], ab[i], bb[j]);
      }
  }
}

__device__ __forceinline__ void gemm_body(float* C, const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                          int K, float alpha, float beta) {
  int tile_m, tile_n;
  tile_of_block(tile_m, tile_n);
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
  const int lane = tid % 32, g = lane >> 2, t = lane & 3;
  const int wm = (tid / 32) / WARPS_N, wn = (tid / 32) % WARPS_N;
  float acc[FM][FN][4];
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;

  __shared__ __align__(16) float As[STAGES][BM * T_LD];
  __shared__ __align__(16) float Bs[STAGES][BK * TB_LD];
  const bool vec = K % 4 == 0 && N % 4 == 0;
  const int tiles = (K + BK - 1) / BK;
  Staged s;
  load_tile(s, A, B, M, N, K, m0, n0, 0, vec);
  store_mma(s, As[0], Bs[0]);
  __syncthreads();
  for (int kt = 0; kt < tiles; ++kt) {
    const int cur = double_buffer ? (kt & 1) : 0;
    const bool more = kt + 1 < tiles;
    if (prefetch && more) load_tile(s, A, B, M, N, K, m0, n0, (kt + 1) * BK, vec);
    multiply_mma(As[cur], Bs[cur], acc, wm, wn, g, t);
    if (more) {
      if (!prefetch) load_tile(s, A, B, M, N, K, m0, n0, (kt + 1) * BK, vec);
      if (!double_buffer) __syncthreads();
      store_mma(s, As[double_buffer ? cur ^ 1 : 0], Bs[double_buffer ? cur ^ 1 : 0]);
    }
    __syncthreads();
  }

  // Epilogue: C = alpha * acc + beta * C; each lane holds column pairs (2t, 2t + 1).
#pragma unroll
  for (int i = 0; i < FM; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int r = m0 + wm * WTM + i * 16 + h * 8 + g;
      if (r >= M) continue;
      float* row = C + (size_t)r * N;
#pragma unroll
      for (int j = 0; j < FN; ++j) {
        const int c = n0 + wn * WTN + j * 8 + 2 * t;
        const float v0 = acc[i][j][2 * h], v1 = acc[i][j][2 * h + 1];
        if (N % 2 == 0 && c + 1 < N) {
          float2 old = beta != 0.0f ? *reinterpret_cast<const float2*>(row + c) : make_float2(0, 0);
          *reinterpret_cast<float2*>(row + c) = make_float2(alpha * v0 + beta * old.x, alpha * v1 + beta * old.y);
        } else {
          if (c < N) row[c] = alpha * v0 + (beta != 0.0f ? beta * row[c] : 0.0f);
          if (c + 1 < N) row[c + 1] = alpha * v1 + (beta != 0.0f ? beta * row[c + 1] : 0.0f);
        }
      }
    }
}
#else
__device__ __forceinline__ void gemm_body(float* C, const float* __restrict__ A, const float* __restrict__ B, int M, int N,
                                          int K, float alpha, float beta) {
  int tile_m, tile_n;
  tile_of_block(tile_m, tile_n);
  const int m0 = tile_m * BM, n0 = tile_n * BN;
  const int tx = threadIdx.x, ty = threadIdx.y;
  float acc[tile_size_y][tile_size_x];
#pragma unroll
  for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
    for (int j = 0; j < tile_size_x; ++j) acc[i][j] = 0.0f;

#if use_shared
  __shared__ __align__(16) float As[STAGES][A_TILE];
  __shared__ __align__(16) float Bs[STAGES][B_TILE];
  const bool vec = vector == 4 && K % 4 == 0 && N % 4 == 0;
  const int tiles = (K + BK - 1) / BK;
  Staged s;
  load_tile(s, A, B, M, N, K, m0, n0, 0, vec);
  store_tile(s, As[0], Bs[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int cur = double_buffer ? (t & 1) : 0;
    const bool more = t + 1 < tiles;
    if (prefetch && more) load_tile(s, A, B, M, N, K, m0, n0, (t + 1) * BK, vec);
    multiply_tile(As[cur], Bs[cur], acc);
    if (more) {
      if (!prefetch) load_tile(s, A, B, M, N, K, m0, n0, (t + 1) * BK, vec);
      if (!double_buffer) __syncthreads();
      store_tile(s, As[double_buffer ? cur ^ 1 : 0], Bs[double_buffer ? cur ^ 1 : 0]);
    }
    __syncthreads();
  }
#else
  // Naive: every operand straight from global memory (L1/L2 catch the reuse).
  for (int k = 0; k < K; ++k) {
    float a[tile_size_y], b[tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i) {
      const int r = m0 + ROW_OF(ty, i);
      a[i] = r < M ? A[(size_t)r * K + k] : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < tile_size_x; ++j) {
      const int c = n0 + COL_OF(tx, j);
      b[j] = c < N ? B[(size_t)k * N + c] : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
      for (int j = 0; j < tile_size_x; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
  const bool vec = vector == 4 && N % 4 == 0;
#endif

  // Epilogue: C = alpha * acc + beta * C, float4 where a run of 4 columns is inside C.
#pragma unroll
  for (int i = 0; i < tile_size_y; ++i) {
    const int r = m0 + ROW_OF(ty, i);
    if (r >= M) continue;
    float* row = C + (size_t)r * N;
#pragma unroll
    for (int j = 0; j < tile_size_x; j += SUB_N) {
      const int c = n0 + COL_OF(tx, j);
      if (SUB_N == 4 && vec && c + 3 < N) {
        float4 old = beta != 0.0f ? *reinterpret_cast<const float4*>(row + c) : make_float4(0, 0, 0, 0);
        float4 v;
        v.x = alpha * acc[i][j] + beta * old.x;
        v.y = alpha * acc[i][j + 1 < tile_size_x ? j + 1 : j] + beta * old.y;
        v.z = alpha * acc[i][j + 2 < tile_size_x ? j + 2 : j] + beta * old.z;
        v.w = alpha * acc[i][j + 3 < tile_size_x ? j + 3 : j] + beta * old.w;
        *reinterpret_cast<float4*>(row + c) = v;
      } else {
#pragma unroll
        for (int u = 0; u < SUB_N; ++u)
          if (c + u < N) row[c + u] = alpha * acc[i][j + u] + (beta != 0.0f ? beta * row[c + u] : 0.0f);
      }
    }
  }
}
#endif  // mma

extern "C" __global__ void __launch_bounds__(NT, min_blocks) gemm(float* C, const float* __restrict__ A, const float* __restrict__ B,
                                                      int M, int N, int K, float alpha, float beta) {
  gemm_body(C, A, B, M, N, K, alpha, beta);
}

#include "common/gemm_reference.cuh"

// The reference (common/gemm_reference.cuh).
extern "C" __global__ void gemm_reference(float* C, const float* A, const float* B, int M, int N, int K, float alpha,
                                          float beta) {
  gemm_reference_body(C, A, B, M, N, K, alpha, beta);
}

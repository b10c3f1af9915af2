// Pairwise squared Euclidean distance (seed 002): out[i][j] = sum_d (a[i][d] - b[j][d])^2 for m
// points a (m x dim, row-major) and n points b (n x dim, row-major); out is m x n, row-major.
// ProblemSize = [n, m, dim] (x = columns of out). The seed's case: 2048 x 1024, dim 1 to 128.
//
// Parameters:
//   block_size_x, block_size_y   threads per block along b (x) and a (y)
//   tile_size_x, tile_size_y     outputs per thread (x: stored as float4 runs when 4 or more)
//   use_shared = 0               each thread reads its points straight from global memory, in the
//                                data's own layout (the seed's first kernels)
//   use_shared = 1               tiles of tile_k features transposed through shared memory
//                                (coalesced global reads; As[k][m], Bs[k][n])
//   padding                      floats added to each shared-memory row: the bank-conflict-free layout
//   expand = 0                   the direct form, one subtract and one FMA per feature and pair
//   expand = 1                   |a|^2 + |b|^2 - 2 a.b: one FMA per feature and pair, the norms
//                                accumulated once per block from the same shared tiles
//   double_buffer, prefetch      as in gemm.cu
//   mma = 1                      the expanded form on tensor cores: a.b by mma.sync m16n8k8 in 3xTF32
//                                (FP32-class accuracy, as in gemm.cu), the norms summed in
//                                FP32 from the same fragments; same block tile and thread count, warps
//                                in a (block_size_y / 8) x (block_size_x / 4) grid
// The flop count reported is that of the direct form (3 per feature and pair) whatever the form.
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
#define tile_k 8
#endif
#ifndef use_shared
#define use_shared 0
#endif
#ifndef padding
#define padding 0
#endif
#ifndef expand
#define expand 0
#endif
#ifndef double_buffer
#define double_buffer 0
#endif
#ifndef prefetch
#define prefetch 0
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
#define ROW_OF(ty, i) (((i) / SUB_M) * (BM / (tile_size_y / SUB_M)) + (ty) * SUB_M + (i) % SUB_M)
#define COL_OF(tx, j) (((j) / SUB_N) * (BN / (tile_size_x / SUB_N)) + (tx) * SUB_N + (j) % SUB_N)

#if use_shared
#define A_LD (BM + padding)
#define B_LD (BN + padding)
#define STAGES (double_buffer ? 2 : 1)
#define A_LOADS ((BM * BK / 4 + NT - 1) / NT)
#define B_LOADS ((BN * BK / 4 + NT - 1) / NT)
#define NORMS ((BM + BN + NT - 1) / NT)

#include "common/row_stages.cuh"

__device__ __forceinline__ void fragment(const float* As, const float* Bs, int k, float (&x)[tile_size_y],
                                         float (&y)[tile_size_x]) {
  const int tx = threadIdx.x, ty = threadIdx.y;
#pragma unroll
  for (int i = 0; i < tile_size_y; i += SUB_M) {
    if (SUB_M == 4 && A_LD % 4 == 0) {
      const float4 v = *reinterpret_cast<const float4*>(As + k * A_LD + ROW_OF(ty, i));
      x[i] = v.x, x[i + 1 < tile_size_y ? i + 1 : i] = v.y, x[i + 2 < tile_size_y ? i + 2 : i] = v.z,
      x[i + 3 < tile_size_y ? i + 3 : i] = v.w;
    } else {
#pragma unroll
      for (int u = 0; u < SUB_M; ++u) x[i + u] = As[k * A_LD + ROW_OF(ty, i + u)];
    }
  }
#pragma unroll
  for (int j = 0; j < tile_size_x; j += SUB_N) {
    if (SUB_N == 4 && B_LD % 4 == 0) {
      const float4 v = *reinterpret_cast<const float4*>(Bs + k * B_LD + COL_OF(tx, j));
      y[j] = v.x, y[j + 1 < tile_size_x ? j + 1 : j] = v.y, y[j + 2 < tile_size_x ? j + 2 : j] = v.z,
      y[j + 3 < tile_size_x ? j + 3 : j] = v.w;
    } else {
#pragma unroll
      for (int u = 0; u < SUB_N; ++u) y[j + u] = Bs[k * B_LD + COL_OF(tx, j + u)];
    }
  }
}

// One stage: the pair terms, and (expand) this thread's share of the block's squared norms.
__device__ __forceinline__ void accumulate(const float* As, const float* Bs, float (&acc)[tile_size_y][tile_size_x],
                                           float (&norm)[NORMS]) {
#pragma unroll
  for (int k = 0; k < BK; ++k) {
    float x[tile_size_y], y[tile_size_x];
    fragment(As, Bs, k, x, y);
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
      for (int j = 0; j < tile_size_x; ++j) {
#if expand
        acc[i][j] = fmaf(x[i], y[j], acc[i][j]);
#else
        const float d = x[i] - y[j];
        acc[i][j] = fmaf(d, d, acc[i][j]);
#endif
      }
  }
#if expand
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int u = 0; u < NORMS; ++u) {
    const int t = tid + u * NT;
    if (t < BM + BN)
#pragma unroll
      for (int k = 0; k < BK; ++k) {
        const float v = t < BM ? As[k * A_LD + t] : Bs[k * B_LD + t - BM];
        norm[u] = fmaf(v, v, norm[u]);
      }
  }
#endif
}
#endif  // use_shared

#if mma
#define WARPS_N (block_size_x / 4)
#define FM (tile_size_y / 2)
#define FN (tile_size_x / 2)
#define WTM (16 * FM)
#define WTN (8 * FN)
#define T_LD (BK == 8 ? 8 : BK + 8)  // rows [point][feature]; T_LD / 8 odd: conflict-free 64-bit loads

#include "common/mma_tf32.cuh"

// One stage: dot products on tensor cores, and this lane's share of its rows' and columns' norms
// (lane t holds physical features 2t and 2t + 1 of every 8, for rows g, g + 8 and column g).
__device__ __forceinline__ void accumulate_mma(const float* As, const float* Bs, float (&acc)[FM][FN][4],
                                               float (&na)[FM][2], float (&nb)[FN], int wm, int wn, int g, int t) {
#pragma unroll
  for (int kk = 0; kk < BK; kk += 8) {
    unsigned ab[FM][4], as[FM][4], bb[FN][2], bs[FN][2];
#pragma unroll
    for (int i = 0; i < FM; ++i) {
      const float* p = As + (wm * WTM + i * 16 + g) * T_LD + kk + 2 * t;
      const float2 lo = *reinterpret_cast<const float2*>(p), hi = *reinterpret_cast<const float2*>(p + 8 * T_LD);
      na[i][0] = fmaf(lo.x, lo.x, fmaf(lo.y, lo.y, na[i][0]));
      na[i][1] = fmaf(hi.x, hi.x, fmaf(hi.y, hi.y, na[i][1]));
      split(lo.x, ab[i][0], as[i][0]);
      split(hi.x, ab[i][1], as[i][1]);
      split(lo.y, ab[i][2], as[i][2]);
      split(hi.y, ab[i][3], as[i][3]);
    }
#pragma unroll
    for (int j = 0; j < FN; ++j) {
      const float2 q = *reinterpret_cast<const float2*>(Bs + (wn * WTN + j * 8 + g) * T_LD + kk + 2 * t);
      nb[j] = fmaf(q.x, q.x, fmaf(q.y, q.y, nb[j]));
      split(q.x, bb[j][0], bs[j][0]);
      split(q.y, bb[j][1], bs[j][1]);
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

__device__ __forceinline__ void pairwise_body(float* out, const float* __restrict__ a, const float* __restrict__ b, int m,
                                              int n, int dim) {
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
  const int lane = tid % 32, g = lane >> 2, t = lane & 3;
  const int wm = (tid / 32) / WARPS_N, wn = (tid / 32) % WARPS_N;
  float acc[FM][FN][4], na[FM][2], nb[FN];
#pragma unroll
  for (int i = 0; i < FM; ++i) {
    na[i][0] = na[i][1] = 0.0f;
#pragma unroll
    for (int j = 0; j < FN; ++j)
#pragma unroll
      for (int r = 0; r < 4; ++r) acc[i][j][r] = 0.0f;
  }
#pragma unroll
  for (int j = 0; j < FN; ++j) nb[j] = 0.0f;

  __shared__ __align__(16) float As[STAGES][BM * T_LD];
  __shared__ __align__(16) float Bs[STAGES][BN * T_LD];
  const bool vec = dim % 4 == 0;
  const int tiles = (dim + BK - 1) / BK;
  Staged s;
  load_stage(s, a, b, m, n, dim, m0, n0, 0, vec);
  store_rows<T_LD>(s, As[0], Bs[0]);
  __syncthreads();
  for (int kt = 0; kt < tiles; ++kt) {
    const int cur = double_buffer ? (kt & 1) : 0;
    const bool more = kt + 1 < tiles;
    if (prefetch && more) load_stage(s, a, b, m, n, dim, m0, n0, (kt + 1) * BK, vec);
    accumulate_mma(As[cur], Bs[cur], acc, na, nb, wm, wn, g, t);
    if (more) {
      if (!prefetch) load_stage(s, a, b, m, n, dim, m0, n0, (kt + 1) * BK, vec);
      if (!double_buffer) __syncthreads();
      store_rows<T_LD>(s, As[double_buffer ? cur ^ 1 : 0], Bs[double_buffer ? cur ^ 1 : 0]);
    }
    __syncthreads();
  }

  // Whole norms: sum over the four lanes of a group; a lane's output columns are 2t and 2t + 1,
  // whose norms lanes 4 (2t) and 4 (2t + 1) hold.
#pragma unroll
  for (int off = 1; off < 4; off *= 2) {
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) na[i][h] += __shfl_xor_sync(0xffffffffu, na[i][h], off);
#pragma unroll
    for (int j = 0; j < FN; ++j) nb[j] += __shfl_xor_sync(0xffffffffu, nb[j], off);
  }
  const bool vec_out = n % 2 == 0;
#pragma unroll
  for (int j = 0; j < FN; ++j) {
    const float nb0 = __shfl_sync(0xffffffffu, nb[j], 8 * t), nb1 = __shfl_sync(0xffffffffu, nb[j], 8 * t + 4);
    const int c = n0 + wn * WTN + j * 8 + 2 * t;
#pragma unroll
    for (int i = 0; i < FM; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = m0 + wm * WTM + i * 16 + h * 8 + g;
        if (r >= m) continue;
        const float v0 = fmaxf(na[i][h] + nb0 - 2.0f * acc[i][j][2 * h], 0.0f);
        const float v1 = fmaxf(na[i][h] + nb1 - 2.0f * acc[i][j][2 * h + 1], 0.0f);
        float* row = out + (size_t)r * n;
        if (vec_out && c + 1 < n) {
          *reinterpret_cast<float2*>(row + c) = make_float2(v0, v1);
        } else {
          if (c < n) row[c] = v0;
          if (c + 1 < n) row[c + 1] = v1;
        }
      }
  }
}
#else
__device__ __forceinline__ void pairwise_body(float* out, const float* __restrict__ a, const float* __restrict__ b, int m,
                                              int n, int dim) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[tile_size_y][tile_size_x];
#pragma unroll
  for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
    for (int j = 0; j < tile_size_x; ++j) acc[i][j] = 0.0f;

#if use_shared
  __shared__ __align__(16) float As[STAGES][BK * A_LD];
  __shared__ __align__(16) float Bs[STAGES][BK * B_LD];
  float norm[NORMS];
#pragma unroll
  for (int u = 0; u < NORMS; ++u) norm[u] = 0.0f;
  const bool vec = dim % 4 == 0;
  const int tiles = (dim + BK - 1) / BK;
  Staged s;
  load_stage(s, a, b, m, n, dim, m0, n0, 0, vec);
  store_stage(s, As[0], Bs[0]);
  __syncthreads();
  for (int t = 0; t < tiles; ++t) {
    const int cur = double_buffer ? (t & 1) : 0;
    const bool more = t + 1 < tiles;
    if (prefetch && more) load_stage(s, a, b, m, n, dim, m0, n0, (t + 1) * BK, vec);
    accumulate(As[cur], Bs[cur], acc, norm);
    if (more) {
      if (!prefetch) load_stage(s, a, b, m, n, dim, m0, n0, (t + 1) * BK, vec);
      if (!double_buffer) __syncthreads();
      store_stage(s, As[double_buffer ? cur ^ 1 : 0], Bs[double_buffer ? cur ^ 1 : 0]);
    }
    __syncthreads();
  }
#if expand
  // Every thread's share of the norms, then the expansion.
  float* norms = As[0];  // BM + BN floats; the stages are no longer read
  {
    const int tid = ty * block_size_x + tx;
#pragma unroll
    for (int u = 0; u < NORMS; ++u)
      if (tid + u * NT < BM + BN) norms[tid + u * NT] = norm[u];
  }
  __syncthreads();
#pragma unroll
  for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
    for (int j = 0; j < tile_size_x; ++j)
      acc[i][j] = fmaxf(norms[ROW_OF(ty, i)] + norms[BM + COL_OF(tx, j)] - 2.0f * acc[i][j], 0.0f);
#endif
#else
  // Straight from global memory, in the data's layout: a thread walks its points' features.
  for (int k = 0; k < dim; ++k) {
    float x[tile_size_y], y[tile_size_x];
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i) {
      const int r = m0 + ROW_OF(ty, i);
      x[i] = r < m ? __ldg(a + (size_t)r * dim + k) : 0.0f;
    }
#pragma unroll
    for (int j = 0; j < tile_size_x; ++j) {
      const int c = n0 + COL_OF(tx, j);
      y[j] = c < n ? __ldg(b + (size_t)c * dim + k) : 0.0f;
    }
#pragma unroll
    for (int i = 0; i < tile_size_y; ++i)
#pragma unroll
      for (int j = 0; j < tile_size_x; ++j) {
        const float d = x[i] - y[j];
        acc[i][j] = fmaf(d, d, acc[i][j]);
      }
  }
#endif

  const bool vec_out = n % 4 == 0;
#pragma unroll
  for (int i = 0; i < tile_size_y; ++i) {
    const int r = m0 + ROW_OF(ty, i);
    if (r >= m) continue;
    float* row = out + (size_t)r * n;
#pragma unroll
    for (int j = 0; j < tile_size_x; j += SUB_N) {
      const int c = n0 + COL_OF(tx, j);
      if (SUB_N == 4 && vec_out && c + 3 < n) {
        *reinterpret_cast<float4*>(row + c) =
            make_float4(acc[i][j], acc[i][j + 1 < tile_size_x ? j + 1 : j], acc[i][j + 2 < tile_size_x ? j + 2 : j],
                        acc[i][j + 3 < tile_size_x ? j + 3 : j]);
      } else {
#pragma unroll
        for (int u = 0; u < SUB_N; ++u)
          if (c + u < n) row[c + u] = acc[i][j + u];
      }
    }
  }
}
#endif  // mma

extern "C" __global__ void __launch_bounds__(NT) pairwise(float* out, const float* __restrict__ a,
                                                          const float* __restrict__ b, int m, int n, int dim) {
  pairwise_body(out, a, b, m, n, dim);
}

// The reference: one thread per output, the direct form in double.
extern "C" __global__ void pairwise_reference(float* out, const float* a, const float* b, int m, int n, int dim) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, r = blockIdx.y * blockDim.y + threadIdx.y;
  if (r >= m || c >= n) return;
  double sum = 0.0;
  for (int k = 0; k < dim; ++k) {
    const double d = (double)a[(size_t)r * dim + k] - (double)b[(size_t)c * dim + k];
    sum += d * d;
  }
  out[(size_t)r * n + c] = (float)sum;
}

// Feature matching (matching.cu's problem and output) on Hopper's tensor cores: for every point of
// set 1 (n1 x dim, row-major) its best dot-product match in set 2 (n2 x dim): scores = set1 set2^T
// in 3xTF32 by the wgmma engine of gemm_wgmma.cu (common/wgmma_tf32.cuh; its header describes the
// warp roles), and the row argmax fused into the epilogue, so the n1 x n2 score matrix is never
// written. ProblemSize = [n2, n1, dim]; dim must be a multiple of 4 (the maps' row strides).
// Both sets are K-major in memory, so set 2's fragments load from its TMA tile (rows of 32
// features, 128-byte swizzle) without a transpose and without bank conflicts.
//
// Output: match[i] packs the best score and its index (common/match.cuh): each block folds its
// tile's columns per row in registers and across the lanes that share the row, then through a
// shared-memory atomicMin per warp, then one global atomicMin per row and tile. The poison (all
// ones) means "nothing yet", so no initialisation pass; launches are idempotent.
// Parameters: tile_m (set-1 points a tile, wgmma's N: 128 or 256), tile_n (set-2 points a tile),
// consumers, stages, group: as in gemm_wgmma.cu (split_ring 0: one small-part buffer a stage);
// persistent (common/wgmma_tf32.cuh): 1, a block per multiprocessor loops over the tiles (at a
// short dim the fill of the pipeline and the epilogue are a large part of a tile's time); 2, as 1
// with the block's band of set 1 held whole in shared memory (common/wgmma_tf32_resident.cuh);
// fold: 0, the warps fold their rows into the tile's best by shared-memory atomicMin; 1, each
// warp stores its rows and one pass folds them (64-bit shared atomics are compare-and-swap loops).
#ifndef tile_m
#define tile_m 128
#endif
#ifndef tile_n
#define tile_n 128
#endif
#ifndef consumers
#define consumers 2
#endif
#ifndef stages
#define stages 4
#endif
#ifndef group
#define group 1
#endif
#ifndef persistent
#define persistent 0
#endif
#ifndef fold
#define fold 1
#endif
#define split_ring 0
#define B_K_MAJOR 1  // set 2 is n2 x dim: its tile's rows are points, K-major
#include "common/wgmma_tf32_resident.cuh"
#include "common/match.cuh"

extern "C" __global__ void __launch_bounds__(kThreads, 1)
    matching_wgmma(const __grid_constant__ TensorMap128 set1_map, const __grid_constant__ TensorMap128 set2_map,
                   float* match_out, const float* __restrict__ set1, const float* __restrict__ set2, int n1, int n2,
                   int dim) {
  (void)set1;  // both read through their maps
  (void)set2;
  unsigned long long* match = reinterpret_cast<unsigned long long*>(match_out);  // n1 packed pairs
#if fold
  // Each warp's best per row of the tile, folded across the warps after the group's barrier.
  __shared__ unsigned long long warp_best[kRings][4 * kTileGroups][tile_m];
#else
  // The best per row of a tile, a pair of buffers per group of warpgroups sharing a tile: tile j's
  // is flushed and reset after the group's barrier while tile j + 1 may already be folding in.
  __shared__ unsigned long long best[kRings][2][tile_m];
  for (int i = threadIdx.x; i < kRings * 2 * tile_m; i += kThreads) best[0][0][i] = ~0ull;  // the body's barrier
#endif
  int tile_count = 0;  // this thread's tiles so far: which buffer
#if persistent == 2
  wgmma_tf32_resident_body(set1_map, set2_map, n1, n2, dim,
#else
  wgmma_tf32_body(set1_map, set2_map, n1, n2, dim,
#endif
                  [&](float (&acc)[kBlocks][kAcc], int m0, int n0, int nw, int t) {
                    const int lane = threadIdx.x % 32;
                    const int ring = kRings == 1 ? 0 : (threadIdx.x - 128) / 128;
#if fold
                    unsigned long long* const row_best = warp_best[ring][(threadIdx.x - 128) / 32 % (4 * kTileGroups)];
#else
                    unsigned long long* const row_best = best[ring][tile_count++ & 1];
#endif
#pragma unroll
                    for (int j = 0; j < kAcc / 4; ++j)
#pragma unroll
                      for (int h = 0; h < 2; ++h) {  // row m0 + 8 j + 2 t + h: columns in increasing order
                        float score = 0.0f;
                        int at = -1;
#pragma unroll
                        for (int r = 0; r < kBlocks; ++r)
#pragma unroll
                          for (int u = 0; u < 2; ++u) {
                            const int n = n0 + nw + 64 * r + 8 * u;
                            const float s = acc[r][4 * j + 2 * u + h];
                            if (n < n2 && (at < 0 || s > score)) {  // NaN never wins
                              score = s;
                              at = s == s ? n : at;
                            }
                          }
                        unsigned long long packed = at < 0 ? ~0ull : match_pack(score, static_cast<unsigned>(at));
#pragma unroll
                        for (int off = 4; off < 32; off *= 2) {  // the 8 lanes (g) that share the row
                          const unsigned long long other = __shfl_xor_sync(0xffffffffu, packed, off);
                          packed = other < packed ? other : packed;
                        }
#if fold
                        if (lane < 4) row_best[8 * j + 2 * t + h] = packed;
#else
                        if (lane < 4 && packed != ~0ull) atomicMin(&row_best[8 * j + 2 * t + h], packed);
#endif
                      }
                    constexpr int kGroupThreads = 128 * kTileGroups;  // the warpgroups of this tile
                    asm volatile("bar.sync %0, %1;" ::"r"(1 + ring), "n"(kGroupThreads) : "memory");
#if fold
                    for (int i = (threadIdx.x - 128) % kGroupThreads; i < tile_m; i += kGroupThreads) {
                      unsigned long long b = ~0ull;
#pragma unroll
                      for (int w = 0; w < 4 * kTileGroups; ++w) b = min(b, warp_best[ring][w][i]);
                      if (b != ~0ull && m0 + i < n1) atomicMin(match + m0 + i, b);
                    }
                    asm volatile("bar.sync %0, %1;" ::"r"(1 + ring), "n"(kGroupThreads) : "memory");  // read before reuse
                    (void)tile_count;
#else
                    for (int i = (threadIdx.x - 128) % kGroupThreads; i < tile_m; i += kGroupThreads) {
                      const unsigned long long b = row_best[i];
                      if (b != ~0ull) {
                        if (m0 + i < n1) atomicMin(match + m0 + i, b);
                        row_best[i] = ~0ull;  // for this buffer's next tile, two barriers on
                      }
                    }
#endif
                  });
}

// The reference and the check of matching.cu, with this kernel's arguments.
extern "C" __global__ void matching_wgmma_reference(const __grid_constant__ TensorMap128 set1_map,
                                                    const __grid_constant__ TensorMap128 set2_map,
                                                    unsigned long long* match, const float* set1, const float* set2,
                                                    int n1, int n2, int dim) {
  (void)set1_map;
  (void)set2_map;
  match_reference(match, set1, set2, n1, n2, dim);
}

extern "C" __global__ void matching_wgmma_check(const __grid_constant__ TensorMap128 set1_map,
                                                const __grid_constant__ TensorMap128 set2_map,
                                                const unsigned long long* match, const float* set1, const float* set2,
                                                int n1, int n2, int dim, const unsigned long long* ref,
                                                unsigned long long* result) {
  (void)set1_map;
  (void)set2_map;
  match_check(match, set1, set2, n1, n2, dim, ref, result);
}

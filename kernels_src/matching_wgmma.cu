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
// shared-memory atomicMin per warp, then one global atomicMin per row and block. The poison (all
// ones) means "nothing yet", so no initialisation pass; launches are idempotent.
// Parameters: tile_m (set-1 points a block, wgmma's N: 128 or 256), tile_n (set-2 points a block),
// consumers, stages, group: as in gemm_wgmma.cu (split_ring 0: one small-part buffer a stage).
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
#define split_ring 0
#define B_K_MAJOR 1  // set 2 is n2 x dim: its tile's rows are points, K-major
#include "common/wgmma_tf32.cuh"
#include "common/match.cuh"

extern "C" __global__ void __launch_bounds__(kThreads, 1)
    matching_wgmma(const __grid_constant__ TensorMap128 set1_map, const __grid_constant__ TensorMap128 set2_map,
                   float* match_out, const float* __restrict__ set1, const float* __restrict__ set2, int n1, int n2,
                   int dim) {
  (void)set1;  // both read through their maps
  (void)set2;
  unsigned long long* match = reinterpret_cast<unsigned long long*>(match_out);  // n1 packed pairs
  __shared__ unsigned long long best[tile_m];  // the block's best per row of its tile
  for (int i = threadIdx.x; i < tile_m; i += kThreads) best[i] = ~0ull;  // ordered by the body's barrier
  wgmma_tf32_body(set1_map, set2_map, n1, n2, dim,
                  [&](float (&acc)[kBlocks][kAcc], int m0, int n0, int nw, int t) {
                    const int lane = threadIdx.x % 32;
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
                        if (lane < 4 && packed != ~0ull) atomicMin(&best[8 * j + 2 * t + h], packed);
                      }
                    asm volatile("bar.sync 1, %0;" ::"n"(128 * consumers) : "memory");  // consumers only
                    for (int i = threadIdx.x - 128; i < tile_m; i += 128 * consumers)
                      if (m0 + i < n1 && best[i] != ~0ull) atomicMin(match + m0 + i, best[i]);
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

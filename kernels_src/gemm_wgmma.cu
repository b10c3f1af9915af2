// FP32 GEMM in 3xTF32 on Hopper's tensor cores (wgmma) fed by the tensor memory accelerator (TMA),
// row-major: C = alpha * A * B + beta * C with A M x K, B K x N, C M x N; ProblemSize = [N, M, K]
// and the arguments of gemm.cu (plus the two tensor maps), so its figures compare with gemm.json's.
// Needs sm_90a (wgmma, setmaxnreg); K and N multiples of 4 (the maps' row strides).
//
// TF32 wgmma reads both shared-memory operands K-major only, and B is N-major in memory, so the
// block computes C^T = B^T A^T: wgmma's A operand is B^T, loaded from shared memory into registers
// (any layout is free there, and the split into big and small TF32 parts happens in registers);
// wgmma's B operand is A's tile as TMA lays it out (rows of 32 floats, K-major, 128-byte swizzle).
// 3xTF32: x = big + small with big = tf32(x) (cvt.rna) and small = x - big; per k step
// small_B * big_A + big_B * small_A, then big_B * big_A, accumulated in FP32 (the dropped
// small * small is below 2^-22 relative), as common/mma_tf32.cuh does for mma.sync.
//
// Warp specialisation (the engine is common/wgmma_tf32.cuh, shared with matching_wgmma.cu), one
// block of 128 * (consumers + 1) threads per tile_m x tile_n tile of C:
//   warpgroup 0, warp 0   the producer: one thread issues the TMA loads of each K slice (A:
//                         tile_m x 32, B: 32 x tile_n in boxes of 32 x 32) into a ring of `stages`
//                         buffers, each guarded by a `full` and an `empty` mbarrier;
//   warpgroup 0, warps 1-3  the split of A: per stage, each float of A's tile rounded to TF32 in
//                         place and its remainder written to a second buffer at the same offset
//                         (the swizzle is the same), then `ready`;
//   warpgroups 1..consumers  per stage: B's fragments loaded and split, 12 wgmma per m64 block of
//                         C^T (4 k steps of 8, 3 products), committed and waited for, `empty`
//                         released. Two consumer warpgroups overlap one's loads with the other's
//                         wgmma. With two, setmaxnreg gives the consumers 232 registers.
// Parameters:
//   tile_m     rows of C per block: wgmma's N (128 or 256)
//   tile_n     columns of C per block: m64 blocks of C^T, tile_n / (64 consumers) per warpgroup
//   consumers  consumer warpgroups (1 or 2)
//   stages     depth of the shared-memory ring ((tile_m + tile_n) * 128 bytes a stage, and the
//              small part of A below)
//   split_ring 0: A's small part has a buffer per stage (tile_m * 128 bytes each); 2: a ring of two,
//              which the split waits to reuse (small_free), so that a tile fits more stages
//   group      blocks walk the tiles in bands `group` tile rows tall (L2 reuse of B); 1: row order
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
#ifndef split_ring
#define split_ring 0
#endif

#define B_K_MAJOR 0  // B is K x N (row-major): the split loads it transposed
#include "common/wgmma_tf32.cuh"

extern "C" __global__ void __launch_bounds__(kThreads, 1)
    gemm_wgmma(const __grid_constant__ TensorMap128 a_map, const __grid_constant__ TensorMap128 b_map, float* C,
               const float* __restrict__ A, const float* __restrict__ B, int M, int N, int K, float alpha,
               float beta) {
  (void)A;  // both read through their maps
  (void)B;
  wgmma_tf32_body(a_map, b_map, M, N, K, [&](float (&acc)[kBlocks][kAcc], int m0, int n0, int nw, int t) {
#pragma unroll
    for (int r = 0; r < kBlocks; ++r)
#pragma unroll
      for (int j = 0; j < kAcc / 4; ++j)
#pragma unroll
        for (int v = 0; v < 4; ++v) {
          const int n = n0 + nw + 64 * r + 8 * (v / 2), m = m0 + 8 * j + 2 * t + v % 2;
          if (m < M && n < N) {
            const size_t at = static_cast<size_t>(m) * N + n;
            C[at] = alpha * acc[r][4 * j + v] + beta * C[at];
          }
        }
  });
}

#include "common/gemm_reference.cuh"

// The reference (common/gemm_reference.cuh, as gemm.cu's); the maps are the kernel's arguments.
extern "C" __global__ void gemm_wgmma_reference(const __grid_constant__ TensorMap128 a_map,
                                                const __grid_constant__ TensorMap128 b_map, float* C, const float* A,
                                                const float* B, int M, int N, int K, float alpha, float beta) {
  (void)a_map;
  (void)b_map;
  gemm_reference_body(C, A, B, M, N, K, alpha, beta);
}

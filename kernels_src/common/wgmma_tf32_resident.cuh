// The wgmma 3xTF32 engine (common/wgmma_tf32.cuh) with A's rows held whole: for a short K (feature
// matching's dim), a persistent block keeps its band of tile_m rows of A, all of K, in shared
// memory, split into its TF32 parts once, and streams only B's tiles through the stage ring. Each
// block takes a contiguous run of the tiles in band order, so it loads and splits a band once or
// twice instead of once per tile. Shared memory: 2 * ceil(K / 32) * tile_m * 128 bytes for the band
// plus the ring's stages of B (the caller's dynamic shared memory; K up to about 150 at tile_m 128).
// Roles as in wgmma_tf32_body: thread 0 loads, warps 1-3 split the band, the consumer warpgroups
// compute (with two, each takes every other tile of the run, with a ring of its own).
#pragma once
#include "wgmma_tf32.cuh"  // beside this file: tune writes includes in relative to the includer

// As wgmma_tf32_body (the same epilogue contract), with B_K_MAJOR 1 and split_ring 0.
template <class Epilogue>
__device__ __forceinline__ void wgmma_tf32_resident_body(const TensorMap128& a_map, const TensorMap128& b_map, int M,
                                                         int N, int K, Epilogue&& epilogue) {
  static_assert(B_K_MAJOR == 1 && split_ring == 0, "the resident band streams B's K-major tiles");
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) unsigned long long full[kSlots], empty[kSlots], band_full, band_ready, band_empty;
  const unsigned raw = smem(smem_raw);
  const unsigned base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const int kt = (K + kBK - 1) / kBK;
  const unsigned a_big = base, a_small = base + kt * kABytes, b_ring = a_small + kt * kABytes;

  const int gx = (N + tile_n - 1) / tile_n, gy = (M + tile_m - 1) / tile_m, tiles = gx * gy;
  const int first = static_cast<int>(static_cast<long long>(tiles) * blockIdx.x / gridDim.x);
  const int last = static_cast<int>(static_cast<long long>(tiles) * (blockIdx.x + 1) / gridDim.x);
  const int tid = threadIdx.x;

  if (tid == 0) {
    for (int s = 0; s < kSlots; ++s) {
      bar_init(smem(&full[s]), 1);
      bar_init(smem(&empty[s]), 4 * kTileGroups);
    }
    bar_init(smem(&band_full), 1);
    bar_init(smem(&band_ready), kSplitThreads);
    bar_init(smem(&band_empty), 4 * consumers);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  // The run [first, last) in bands: tile id lies in band id / gx, column id % gx. Tile j of the run
  // goes to ring j % kRings; its k-step k is that ring's step j / kRings * kt + k.
  if (tid < 128) {
#if consumers == 2
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
#endif
    if (tid == 0) {
      for (int id = first, band = 0; id < last; ++band) {
        const int bm = id / gx, end = min(last, (bm + 1) * gx);
        bar_wait(smem(&band_empty), (band & 1) ^ 1);
        const unsigned bar = smem(&band_full);
        asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kt * kABytes) : "memory");
        for (int k = 0; k < kt; ++k) tma_load(a_big + k * kABytes, a_map, k * kBK, bm * tile_m, bar);
        for (; id < end; ++id) {
          const int j = id - first;
          for (int k = 0; k < kt; ++k) {
            const int step = j / kRings * kt + k, s = j % kRings * stages + step % stages;
            bar_wait(smem(&empty[s]), ((step / stages) & 1) ^ 1);
            const unsigned b = smem(&full[s]);
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(b), "r"(kBBytes) : "memory");
            tma_load(b_ring + s * kBBytes, b_map, k * kBK, id % gx * tile_n, b);
          }
        }
      }
    } else if (tid >= 32) {
      for (int id = first, band = 0; id < last; ++band) {
        id = min(last, (id / gx + 1) * gx);
        bar_wait(smem(&band_full), band & 1);
        split_tile(a_big, a_small, kt * kABytes, tid - 32, kSplitThreads);
        asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // wgmma reads what we wrote
        bar_arrive(smem(&band_ready));
      }
    }
  } else {
#if consumers == 2
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
#endif
    const int ct = tid - 128, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int ring = kRings == 1 ? 0 : ct / 128;
    const int nw = (kRings == 1 ? ct / 128 : 0) * 64 * kBlocks + (ct / 32 % 4) * 16 + g;  // first column of C^T rows
    for (int id = first, band = 0; id < last; ++band) {
      const int bm = id / gx, end = min(last, (bm + 1) * gx);
      bar_wait(smem(&band_ready), band & 1);
      for (; id < end; ++id) {
        const int j = id - first;
        if (j % kRings != ring) continue;
        float acc[kBlocks][kAcc];
#pragma unroll
        for (int r = 0; r < kBlocks; ++r)
#pragma unroll
          for (int i = 0; i < kAcc; ++i) acc[r][i] = 0.0f;
        for (int k = 0; k < kt; ++k) {
          const int step = j / kRings * kt + k, s = ring * stages + step % stages;
          bar_wait(smem(&full[s]), (step / stages) & 1);
          k_step(acc, b_ring + s * kBBytes, a_big + k * kABytes, a_small + k * kABytes, nw, t);
          __syncwarp();
          if (lane == 0) bar_arrive(smem(&empty[s]));
        }
        epilogue(acc, bm * tile_m, id % gx * tile_n, nw, t);
      }
      __syncwarp();
      if (lane == 0) bar_arrive(smem(&band_empty));  // this warp is done with the band
    }
  }
}

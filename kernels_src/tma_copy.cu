// A Hopper test kernel (spaces/tma_copy.json): out = in, rows x cols float32, moved by the
// tensor memory accelerator into shared memory and read back across a thread-block cluster.
// It exercises what the engine launches for Hopper kernels, each checked by its verification:
//   - a TMA tensor map (`const __grid_constant__` parameter, encoded by the runner from `in`,
//     its dims, the box tile_x x tile_y and the swizzle): cp.async.bulk.tensor completing on
//     an mbarrier, `stages` tiles in flight per block;
//   - more than 48 KiB of dynamic shared memory (stages * tile_x * tile_y * 4 bytes + 1 KiB);
//   - a cluster of cluster_x blocks along x: each block stores the tiles of the next block of its
//     cluster, read from that block's shared memory (distributed shared memory), so a launch
//     without the cluster shape writes nothing and fails verification.
// Parameters: tile_x, tile_y (the TMA box, floats), stages, swizzle (0, 32, 64 or 128 bytes:
// the box row is that wide), cluster_x, block_size_x (threads).
// Arguments: in_map (the tensor map of in), out, in, cols, rows; cols * 4 must be a multiple of
// 16 bytes (the tensor map's row stride), else the configuration is refused at that size.

#ifndef tile_x
#define tile_x 32
#endif
#ifndef tile_y
#define tile_y 64
#endif
#ifndef stages
#define stages 1
#endif
#ifndef swizzle
#define swizzle 0
#endif
#ifndef cluster_x
#define cluster_x 1
#endif
#ifndef block_size_x
#define block_size_x 128
#endif

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned (no cuda.h under NVRTC).
struct alignas(64) TensorMap128 {
  unsigned long long opaque[16];
};

namespace {

constexpr unsigned kTileFloats = tile_x * tile_y;
constexpr unsigned kTileBytes = kTileFloats * 4;

// The TMA's swizzle of a byte offset within a 1024-byte-aligned tile: the 16-byte chunk index
// (bits 4..6) XOR the 128-byte row index (bits 7..9), masked to the swizzle's span.
__device__ __forceinline__ unsigned swizzled(unsigned offset) {
  constexpr unsigned mask = swizzle == 0 ? 0u : swizzle / 16u - 1u;
  return offset ^ (((offset >> 7) & mask) << 4);
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n\tbarrier.cluster.wait.acquire.aligned;" ::: "memory");
}

}  // namespace

extern "C" __global__ void __launch_bounds__(block_size_x)
    tma_copy(const __grid_constant__ TensorMap128 in_map, float* __restrict__ out, const float* __restrict__ in,
             int cols, int rows) {
  (void)in;  // read through in_map
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) unsigned long long full;  // the mbarrier: every stage's bytes arrived
  unsigned nrank, rank;
  asm("mov.u32 %0, %%cluster_nctarank;" : "=r"(nrank));
  asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
  if (nrank != cluster_x) return;  // launched without the cluster shape: write nothing

  const unsigned raw = static_cast<unsigned>(__cvta_generic_to_shared(smem_raw));
  const unsigned base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const unsigned bar = static_cast<unsigned>(__cvta_generic_to_shared(&full));
  const int x0 = blockIdx.x * (tile_x * stages);
  const int y0 = blockIdx.y * tile_y;
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kTileBytes * stages)
                 : "memory");
#pragma unroll
    for (int s = 0; s < stages; ++s)
      asm volatile(
          "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], "
          "[%4];" ::"r"(base + s * kTileBytes),
          "l"(&in_map), "r"(x0 + s * tile_x), "r"(y0), "r"(bar)
          : "memory");
  }
  for (unsigned done = 0; !done;)
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], 0;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(bar)
        : "memory");
  cluster_sync();  // every block's tiles have landed

  // Store the tiles of the next block of the cluster, read from its shared memory.
  const unsigned src = (rank + 1) % cluster_x;
  const int sx0 = (static_cast<int>(blockIdx.x - rank + src)) * (tile_x * stages);
  unsigned remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(base), "r"(src));
  for (unsigned i = threadIdx.x; i < stages * kTileFloats; i += block_size_x) {
    const unsigned s = i / kTileFloats, r = (i / tile_x) % tile_y, c = i % tile_x;
    float v;
    asm volatile("ld.shared::cluster.f32 %0, [%1];"
                 : "=f"(v)
                 : "r"(remote + s * kTileBytes + swizzled(r * tile_x * 4 + c * 4))
                 : "memory");
    const int gx = sx0 + static_cast<int>(s * tile_x + c), gy = y0 + static_cast<int>(r);
    if (gx < cols && gy < rows) out[static_cast<size_t>(gy) * cols + gx] = v;
  }
  cluster_sync();  // no block leaves while another reads its shared memory
}

// The independent reference: one thread per element, straight from `in`.
extern "C" __global__ void tma_copy_reference(const __grid_constant__ TensorMap128 in_map, float* __restrict__ out,
                                              const float* __restrict__ in, int cols, int rows) {
  (void)in_map;
  const size_t i = static_cast<size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < static_cast<size_t>(cols) * rows) out[i] = in[i];
}

// The 3xTF32 GEMM engine on Hopper's wgmma and TMA, shared by gemm_wgmma.cu and matching_wgmma.cu
// (gemm_wgmma.cu describes the design; tune writes this file into each program). It uses the
// includer's macros tile_m, tile_n, consumers, stages, split_ring, group and B_K_MAJOR (how B's
// tensor map lays out its tile: 0, K x N row-major; 1, N x K row-major), and persistent if defined
// (1: the grid's blocks loop over the tiles, the producer loading the next tile while the consumers
// finish the last; with two consumer warpgroups each takes every other tile whole, with a ring of
// `stages` stages of its own, so that one's epilogue overlaps the other's products), and needs sm_90a.
#pragma once
#ifndef persistent
#define persistent 0
#endif

// The driver's CUtensorMap: 128 opaque bytes, 64-byte aligned (no cuda.h under NVRTC).
struct alignas(64) TensorMap128 {
  unsigned long long opaque[16];
};

namespace {

constexpr int kBK = 32;                              // floats of K a stage: one 128-byte swizzled row
constexpr int kRings = persistent && consumers == 2 ? 2 : 1;  // stage rings: one per tile in flight
constexpr int kTileGroups = consumers / kRings;      // consumer warpgroups sharing a tile
constexpr int kBlocks = tile_n / (64 * kTileGroups);  // m64 blocks of C^T a consumer warpgroup owns
constexpr int kSlots = stages * kRings;              // stages in all rings
constexpr int kAcc = tile_m / 2;                     // accumulator floats a thread holds per block
constexpr unsigned kABytes = tile_m * kBK * 4;       // A's tile (and its small part) a stage
constexpr unsigned kBBytes = tile_n * kBK * 4;       // B's tile a stage: tile_n / 32 boxes of 4 KiB
constexpr unsigned kSplitThreads = 96;               // warps 1-3 of the producer warpgroup
constexpr int kSmall = split_ring == 0 ? kSlots : split_ring;  // buffers of A's small part
static_assert(!persistent || split_ring == 0, "persistent blocks keep one small-part buffer a stage");
constexpr int kThreads = 128 * (consumers + 1);

__device__ __forceinline__ unsigned smem(const void* p) { return static_cast<unsigned>(__cvta_generic_to_shared(p)); }

// Shared-memory accesses by 32-bit shared address. NVRTC forms the address of a plain access to
// shared memory in 64 bits where nvcc uses 32 (bench/journal.md, 2026-11-29): the B fragments'
// loads and the split of A go through these, so that both compilers emit the same code.
__device__ __forceinline__ float lds_f32(unsigned addr) {
  float v;
  asm volatile("ld.shared.f32 %0, [%1];" : "=f"(v) : "r"(addr));
  return v;
}
__device__ __forceinline__ float4 lds_f32x4(unsigned addr) {
  float4 v;
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];" : "=f"(v.x), "=f"(v.y), "=f"(v.z), "=f"(v.w) : "r"(addr));
  return v;
}
__device__ __forceinline__ void sts_f32x4(unsigned addr, float4 v) {
  asm volatile("st.shared.v4.f32 [%0], {%1, %2, %3, %4};" ::"r"(addr), "f"(v.x), "f"(v.y), "f"(v.z), "f"(v.w)
               : "memory");
}

__device__ __forceinline__ void bar_init(unsigned bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void bar_wait(unsigned bar, unsigned parity) {
  for (unsigned done = 0; !done;)
    asm volatile(
        "{\n\t.reg .pred p;\n\tmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n\tselp.u32 %0, 1, 0, p;\n\t}"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
}

__device__ __forceinline__ void bar_arrive(unsigned bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void tma_load(unsigned dst, const TensorMap128& map, int x, int y, unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3}], [%4];" ::"r"(
          dst),
      "l"(&map), "r"(x), "r"(y), "r"(bar)
      : "memory");
}

__device__ __forceinline__ float tf32(float x) {
  unsigned r;
  asm("cvt.rna.tf32.f32 %0, %1;" : "=r"(r) : "f"(x));
  return __uint_as_float(r);
}

// A's tile split in place: big = tf32(x) where x was, small = x - big at `small` (bytes apart).
__device__ __forceinline__ void split_tile(unsigned big, unsigned small, unsigned bytes, unsigned first,
                                           unsigned stride) {
  for (unsigned i = first; i < bytes / 16; i += stride) {
    const float4 x = lds_f32x4(big + 16 * i);
    const float4 b = make_float4(tf32(x.x), tf32(x.y), tf32(x.z), tf32(x.w));
    sts_f32x4(small + 16 * i, make_float4(x.x - b.x, x.y - b.y, x.z - b.z, x.w - b.w));
    sts_f32x4(big + 16 * i, b);
  }
}

// A shared-memory matrix descriptor: K-major, 128-byte swizzle, 8-row groups 1024 bytes apart
// (start address and offsets in 16-byte units; the leading offset is unused by this layout).
__device__ __forceinline__ unsigned long long descriptor(unsigned addr) {
  return static_cast<unsigned long long>((addr & 0x3FFFFu) >> 4) | (1ull << 16) | (64ull << 32) | (1ull << 62);
}

// Byte offset of B(k, n) in a stage's B tile, as TMA lays it out with the 128-byte swizzle (each
// row's 16-byte chunks XOR the row index): B_K_MAJOR 0, B is K x N in memory: boxes of 32 columns,
// 32 rows (k) of 128 bytes each; B_K_MAJOR 1, B^T is N x K in memory: tile_n rows (n) of 32 k.
__device__ __forceinline__ unsigned b_offset(unsigned k, unsigned n) {
#if B_K_MAJOR
  return n * 128u + (((k >> 2) ^ (n & 7u)) << 4) + (k & 3u) * 4u;
#else
  return (n >> 5) * 4096u + k * 128u + ((((n & 31u) >> 2) ^ (k & 7u)) << 4) + (n & 3u) * 4u;
#endif
}

// d += a * b for one m64 x tile_m x k8 product: a in registers (wgmma's m64k8 TF32 fragment:
// a0 (g, t), a1 (g + 8, t), a2 (g, t + 4), a3 (g + 8, t + 4)), b by its descriptor.
__device__ __forceinline__ void wgmma(float (&d)[kAcc], const unsigned (&a)[4], unsigned long long b) {
#if tile_m == 128
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n128k8.f32.tf32.tf32 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
      "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63"
      "}, {%64,%65,%66,%67}, %68, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1u));
#else  // tile_m == 256
  asm volatile(
      "{\n.reg .pred p;\nsetp.ne.b32 p, %133, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k8.f32.tf32.tf32 {"
      "%0,%1,%2,%3,%4,%5,%6,%7,%8,%9,%10,%11,%12,%13,%14,%15,"
      "%16,%17,%18,%19,%20,%21,%22,%23,%24,%25,%26,%27,%28,%29,%30,%31,"
      "%32,%33,%34,%35,%36,%37,%38,%39,%40,%41,%42,%43,%44,%45,%46,%47,"
      "%48,%49,%50,%51,%52,%53,%54,%55,%56,%57,%58,%59,%60,%61,%62,%63,"
      "%64,%65,%66,%67,%68,%69,%70,%71,%72,%73,%74,%75,%76,%77,%78,%79,"
      "%80,%81,%82,%83,%84,%85,%86,%87,%88,%89,%90,%91,%92,%93,%94,%95,"
      "%96,%97,%98,%99,%100,%101,%102,%103,%104,%105,%106,%107,%108,%109,%110,%111,"
      "%112,%113,%114,%115,%116,%117,%118,%119,%120,%121,%122,%123,%124,%125,%126,%127"
      "}, {%128,%129,%130,%131}, %132, p, 1, 1;\n}\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]),
        "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]),
        "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]),
        "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]),
        "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]),
        "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]),
        "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]),
        "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]),
        "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]),
        "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]),
        "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]),
        "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]),
        "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]),
        "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]),
        "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]),
        "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(b), "r"(1u));
#endif
}

}  // namespace

// Where tile `id` of a gx x gy grid of tiles lies: group > 1 walks `group` tile rows at a time
// down each column (rasterisation), so that the blocks in flight share A's and B's tiles in L2.
__device__ __forceinline__ void tile_origin(int id, int gx, int gy, int& bm, int& bn) {
#if group > 1
  const int per = group * gx, first = id / per * group, rows = min(gy - first, group);
  bm = first + id % per % rows;
  bn = id % per / rows;
#else
  (void)gy;
  bm = id / gx;
  bn = id % gx;
#endif
}

// One k-step of a consumer warpgroup (kBK = 32 of K): its B fragments loaded from the stage at
// `b` and split into big and small TF32 parts in registers, then per k8 and m64 block the three
// products small_B big_A + big_B small_A + big_B big_A against A's parts at `a_big` and `a_small`;
// returns when they are done. nw: the warp's first column of C^T rows, t: its lane % 4.
__device__ __forceinline__ void k_step(float (&acc)[kBlocks][kAcc], unsigned b, unsigned a_big, unsigned a_small,
                                       int nw, int t) {
  unsigned big[kBlocks][4][4], small[kBlocks][4][4];
#pragma unroll
  for (int r = 0; r < kBlocks; ++r)
#pragma unroll
    for (int kk = 0; kk < 4; ++kk)
#pragma unroll
      for (int v = 0; v < 4; ++v) {
        const unsigned kx = kk * 8 + t + (v / 2) * 4, n = nw + r * 64 + (v % 2) * 8;
        const float x = lds_f32(b + b_offset(kx, n));
        const float bx = tf32(x);
        big[r][kk][v] = __float_as_uint(bx);
        small[r][kk][v] = __float_as_uint(x - bx);
      }
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
#pragma unroll
  for (int kk = 0; kk < 4; ++kk) {
    const unsigned long long db = descriptor(a_big + kk * 32);
    const unsigned long long ds = descriptor(a_small + kk * 32);
#pragma unroll
    for (int r = 0; r < kBlocks; ++r) {
      wgmma(acc[r], small[r][kk], db);
      wgmma(acc[r], big[r][kk], ds);
      wgmma(acc[r], big[r][kk], db);
    }
  }
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
}

// The block's tiles of D = A B (M x N; A M x K row-major through a_map, box 32 x tile_m; B through
// b_map as B_K_MAJOR says, box 32 x 32 or 32 x tile_n; wgmma computes D^T): its one tile, or with
// persistent tiles blockIdx.x, + gridDim.x, ... Per tile, epilogue(acc, m0, n0, nw, t) in each
// consumer thread of the warpgroups that computed it: acc[r][4 j + v] is
// D(m0 + 8 j + 2 t + v % 2, n0 + nw + 64 r + 8 (v / 2)). Called by all kThreads threads of the block.
template <class Epilogue>
__device__ __forceinline__ void wgmma_tf32_body(const TensorMap128& a_map, const TensorMap128& b_map, int M, int N,
                                                int K, Epilogue&& epilogue) {
  extern __shared__ unsigned char smem_raw[];
  __shared__ __align__(8) unsigned long long full[kSlots], ready[kSlots], empty[kSlots], small_free[kSmall];
  const unsigned raw = smem(smem_raw);
  const unsigned base = (raw + 1023u) & ~1023u;  // swizzled tiles need 1024-byte alignment
  const unsigned a_big = base, a_small = base + kSlots * kABytes, b_tile = a_small + kSmall * kABytes;

#if persistent
  const int gx = (N + tile_n - 1) / tile_n, gy = (M + tile_m - 1) / tile_m;
  const int tiles = gx * gy, first_tile = blockIdx.x, tile_step = gridDim.x;
#else
  (void)M;  // the maps bound the loads; the epilogue bounds the stores
  (void)N;
  const int gx = gridDim.x, gy = gridDim.y;
  const int first_tile = blockIdx.y * gridDim.x + blockIdx.x, tiles = first_tile + 1, tile_step = 1;
#endif
  const int kt = (K + kBK - 1) / kBK;
  const int tid = threadIdx.x;

  if (tid == 0) {
    for (int s = 0; s < kSlots; ++s) {
      bar_init(smem(&full[s]), 1);
      bar_init(smem(&ready[s]), kSplitThreads);
      bar_init(smem(&empty[s]), 4 * kTileGroups);
    }
    for (int q = 0; q < kSmall; ++q) bar_init(smem(&small_free[q]), 4 * consumers);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  __syncthreads();

  // Tile j of the block (0, 1, ...) goes to ring j % kRings; its k-step k is that ring's step
  // j / kRings * kt + k, in slot ring * stages + step % stages, phase step / stages.
  if (tid < 128) {
#if consumers == 2
    asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
#endif
    if (tid == 0) {
      for (int id = first_tile, j = 0; id < tiles; id += tile_step, ++j) {
        int bm, bn;
        tile_origin(id, gx, gy, bm, bn);
        const int m0 = bm * tile_m, n0 = bn * tile_n;
        for (int k = 0; k < kt; ++k) {
          const int step = j / kRings * kt + k, s = j % kRings * stages + step % stages;
          bar_wait(smem(&empty[s]), ((step / stages) & 1) ^ 1);
          const unsigned bar = smem(&full[s]);
          asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(kABytes + kBBytes)
                       : "memory");
          tma_load(a_big + s * kABytes, a_map, k * kBK, m0, bar);
#if B_K_MAJOR
          tma_load(b_tile + s * kBBytes, b_map, k * kBK, n0, bar);
#else
#pragma unroll
          for (int b = 0; b < tile_n / 32; ++b)
            tma_load(b_tile + s * kBBytes + b * 4096, b_map, n0 + 32 * b, k * kBK, bar);
#endif
        }
      }
    } else if (tid >= 32) {
      for (int id = first_tile, j = 0; id < tiles; id += tile_step, ++j)
        for (int k = 0; k < kt; ++k) {
          const int step = j / kRings * kt + k, s = j % kRings * stages + step % stages;
          const int q = split_ring == 0 ? s : step % kSmall;
          bar_wait(smem(&full[s]), (step / stages) & 1);
#if split_ring
          bar_wait(smem(&small_free[q]), ((step / kSmall) & 1) ^ 1);  // the wgmma that read it are done
#endif
          split_tile(a_big + s * kABytes, a_small + q * kABytes, kABytes, tid - 32, kSplitThreads);
          asm volatile("fence.proxy.async.shared::cta;" ::: "memory");  // wgmma reads what we wrote
          bar_arrive(smem(&ready[s]));
        }
    }
  } else {
#if consumers == 2
    asm volatile("setmaxnreg.inc.sync.aligned.u32 232;");
#endif
    const int ct = tid - 128, lane = tid % 32, g = lane / 4, t = lane % 4;
    const int ring = kRings == 1 ? 0 : ct / 128;  // with two rings, warpgroup c takes tiles c, c + 2, ...
    const int nw = (kRings == 1 ? ct / 128 : 0) * 64 * kBlocks + (ct / 32 % 4) * 16 + g;  // first column of C^T rows
    for (int id = first_tile + ring * tile_step, j = ring; id < tiles; id += kRings * tile_step, j += kRings) {
      int bm, bn;
      tile_origin(id, gx, gy, bm, bn);
      float acc[kBlocks][kAcc];
#pragma unroll
      for (int r = 0; r < kBlocks; ++r)
#pragma unroll
        for (int i = 0; i < kAcc; ++i) acc[r][i] = 0.0f;

      for (int k = 0; k < kt; ++k) {
        const int step = j / kRings * kt + k, s = ring * stages + step % stages;
        const int q = split_ring == 0 ? s : step % kSmall;
        bar_wait(smem(&ready[s]), (step / stages) & 1);
        k_step(acc, b_tile + s * kBBytes, a_big + s * kABytes, a_small + q * kABytes, nw, t);
        __syncwarp();
        if (lane == 0) {
          bar_arrive(smem(&empty[s]));
#if split_ring
          bar_arrive(smem(&small_free[q]));
#endif
        }
      }

      epilogue(acc, bm * tile_m, bn * tile_n, nw, t);
    }
  }
}

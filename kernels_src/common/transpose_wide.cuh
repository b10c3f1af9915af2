// use_shared = 2 of kernels_src/transpose.cu (included inside its namespace tp, after the
// macros and the chunk helpers): 16-byte accesses everywhere, a swizzled unpadded tile and 4 x 4
// register blocks, with cp.async pipelines and persistent blocks.
// tune writes this file into each kernel's program (tuner/compile/source.h).
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

// The 16-byte global accesses with the L2 hints of `streaming`, and single floats.
struct Access16 {
  unsigned long long pol;
  __device__ __forceinline__ void operator()(float (&d)[4], const float* p) const {
    const float4 v = ld16(p, pol);
    d[0] = v.x, d[1] = v.y, d[2] = v.z, d[3] = v.w;
  }
  __device__ __forceinline__ float operator()(const float* p) const { return load1(p); }
  __device__ __forceinline__ void operator()(float* p, const float (&v)[4]) const {
    st16(p, make_float4(v[0], v[1], v[2], v[3]), pol);
  }
  __device__ __forceinline__ void operator()(float* p, float v) const { store1(p, v); }
};

// 4 floats of input row r from column c on into registers (zeros outside the matrix); rows that
// do not start on a 16-byte boundary by aligned loads and shuffles (common/realign.cuh).
__device__ __forceinline__ void load4(float (&d)[4], const float* __restrict__ in, int r, int c, int rows,
                                      int cols, unsigned long long pol) {
  const float* row = in + static_cast<size_t>(r) * cols;
  if (aligned_rows(in, cols))
    realign::fetch<4>(d, row, r < rows, c, cols, Access16{pol});
  else
    realign::load<4, 1, TP_SEG_X>(d, row, r < rows, c, cols, Access16{pol});
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
  if (aligned_rows(in, cols)) {
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
    const bool aligned = aligned_rows(out, rows);  // the same for the whole grid
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int orow = c0 + 4 * b + e;
      float* row = out + static_cast<size_t>(orow) * rows;
      const float v[4] = {m[0][e], m[1][e], m[2][e], m[3][e]};
      if (!aligned) {
        realign::store<4, 1, TP_SEG_T>(row, orow < cols, oc, rows, v, Access16{pol});
      } else if (orow < cols && oc + 4 <= rows) {
        st16(row + oc, make_float4(v[0], v[1], v[2], v[3]), pol);
      } else if (orow < cols) {
#pragma unroll
        for (int i = 0; i < 4; ++i)
          if (oc + i < rows) store1(row + oc + i, v[i]);
      }
    }
  }
}
#endif  // use_shared == 2

// Staging of two row-major point sets through shared memory, shared by matching.cu and pairwise.cu:
// each stage is BM rows of set A and BN rows of set B, BK features each, loaded from global memory
// as float4 runs into registers (load_stage), then stored transposed for the FMA path
// (store_stage: As[k][m], Bs[k][n]) or as loaded for the tensor-core path (store_rows: As[m][k],
// Bs[n][k] in rows of LD floats).
// The including kernel defines block_size_x, NT, BK, A_LD, B_LD, A_LOADS and B_LOADS first.
// tune writes this file into each kernel's program (tuner/compile/source.h).
#pragma once

struct Staged {
  float4 a[A_LOADS];
  float4 b[B_LOADS];
};

// The four floats at row r, column c of a rows x cols matrix; zero outside it.
__device__ __forceinline__ float4 load4(const float* p, int r, int c, int rows, int cols, bool vec) {
  if (r >= rows) return make_float4(0, 0, 0, 0);
  const float* q = p + (size_t)r * cols + c;
  if (vec && c + 3 < cols) return __ldg(reinterpret_cast<const float4*>(q));
  return make_float4(c < cols ? __ldg(q) : 0.0f, c + 1 < cols ? __ldg(q + 1) : 0.0f, c + 2 < cols ? __ldg(q + 2) : 0.0f,
                     c + 3 < cols ? __ldg(q + 3) : 0.0f);
}

// Global loads of one stage: BM x BK of set a (m rows) from row m0, BN x BK of set b (n rows) from
// row n0, at feature k0.
__device__ __forceinline__ void load_stage(Staged& s, const float* a, const float* b, int m, int n, int dim, int m0,
                                           int n0, int k0, bool vec) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT;
    s.a[i] = load4(a, m0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, m, dim, vec);
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT;
    s.b[i] = load4(b, n0 + e / (BK / 4), k0 + (e % (BK / 4)) * 4, n, dim, vec);
  }
}

// Stores a stage transposed: As[k][m], Bs[k][n].
__device__ __forceinline__ void store_stage(const Staged& s, float* As, float* Bs) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
    As[(c + 0) * A_LD + r] = s.a[i].x;
    As[(c + 1) * A_LD + r] = s.a[i].y;
    As[(c + 2) * A_LD + r] = s.a[i].z;
    As[(c + 3) * A_LD + r] = s.a[i].w;
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT, r = e / (BK / 4), c = (e % (BK / 4)) * 4;
    Bs[(c + 0) * B_LD + r] = s.b[i].x;
    Bs[(c + 1) * B_LD + r] = s.b[i].y;
    Bs[(c + 2) * B_LD + r] = s.b[i].z;
    Bs[(c + 3) * B_LD + r] = s.b[i].w;
  }
}

// Stores a stage as loaded: As[m][k], Bs[n][k], rows of LD floats.
template <int LD>
__device__ __forceinline__ void store_rows(const Staged& s, float* As, float* Bs) {
  const int tid = threadIdx.y * block_size_x + threadIdx.x;
#pragma unroll
  for (int i = 0; i < A_LOADS; ++i) {
    const int e = tid + i * NT;
    *reinterpret_cast<float4*>(As + (e / (BK / 4)) * LD + (e % (BK / 4)) * 4) = s.a[i];
  }
#pragma unroll
  for (int i = 0; i < B_LOADS; ++i) {
    const int e = tid + i * NT;
    *reinterpret_cast<float4*>(Bs + (e / (BK / 4)) * LD + (e % (BK / 4)) * 4) = s.b[i];
  }
}

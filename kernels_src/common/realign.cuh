// Vector accesses to rows that do not start on a vector boundary: a row-major matrix whose width
// is not a multiple of V (or a base pointer that is not 4 * V-byte aligned). A V-float access
// (8 or 16 bytes) needs an address that is a multiple of its width, so the chunk a thread owns,
// columns [c, c + V), is aligned only in the rows where (row start + c) % V == 0.
//
// Both helpers keep each thread's chunk where it is and move data between neighbouring lanes
// instead: the lanes of a segment (SEG lanes DELTA apart in a warp, lane p holding the chunk
// after lane p - 1's, all in one row) access the aligned chunks that overlap theirs, with one
// warp shuffle per float. Only the row's ends and the segment's ends use single floats:
// - load: lane p reads the aligned chunk starting m = (row start + c) % V floats before c; its
//   floats are the last V - m of that chunk and the first m of lane p + 1's (the segment's last
//   lane reads that second chunk itself). Floats outside [0, n) read as zero.
// - store: lane p writes the aligned chunk that starts V - m floats into its own chunk, made of
//   its last m floats and lane p + 1's first V - m; the first V - m floats of a chunk go out one
//   by one only where no previous lane wrote them (segment start, row end).
// Every lane of the warp must call a helper (it shuffles), with the same V, DELTA and SEG.
// ACCESS is a functor: operator()(float (&)[V], const float*) loads V aligned floats,
// operator()(const float*) one float; STORE likewise with (float*, const float (&)[V]) and
// (float*, float).
// tune writes this file into each kernel's program (tuner/compile/source.h).
#pragma once

namespace realign {

__device__ __forceinline__ int lane() { return (threadIdx.x + threadIdx.y * blockDim.x) & 31; }

// Floats between the previous 4 * V-byte boundary and p.
template <int V>
__device__ __forceinline__ int misalignment(const float* p) {
  return static_cast<int>((reinterpret_cast<unsigned long long>(p) >> 2) % V);
}

// The lane's place in its segment: segments are SEG lanes, DELTA lanes apart.
template <int DELTA, int SEG>
__device__ __forceinline__ int position() {
  return (lane() / DELTA) % SEG;
}

// V floats of row from column a on (a chunk that is aligned when inside the row); zeros outside.
template <int V, class ACCESS>
__device__ __forceinline__ void fetch(float (&d)[V], const float* row, bool inside, int a, int n, ACCESS access) {
  if (inside && a >= 0 && a + V <= n) {
    access(d, row + a);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e) d[e] = (inside && a + e >= 0 && a + e < n) ? access(row + a + e) : 0.0f;
  }
}

// d = floats [m, m + V) of the 2V floats lo ++ hi (m a run-time value below V).
template <int V>
__device__ __forceinline__ void window(float (&d)[V], const float (&lo)[V], const float (&hi)[V], int m) {
#pragma unroll
  for (int e = 0; e < V; ++e) {
    float v = lo[e];
#pragma unroll
    for (int s = 1; s < V; ++s)
      if (m == s) v = e + s < V ? lo[e + s] : hi[e + s - V];
    d[e] = v;
  }
}

// dst = row[c .. c + V) (zeros outside the row or when !inside); n floats in the row.
template <int V, int DELTA, int SEG, class ACCESS>
__device__ __forceinline__ void load(float (&dst)[V], const float* row, bool inside, int c, int n, ACCESS access) {
  const int m = misalignment<V>(row + c);
  float lo[V], hi[V];
  fetch<V>(lo, row, inside, c - m, n, access);
#pragma unroll
  for (int e = 0; e < V; ++e) hi[e] = __shfl_down_sync(0xffffffffu, lo[e], DELTA);
  if (m != 0 && position<DELTA, SEG>() == SEG - 1) fetch<V>(hi, row, inside, c - m + V, n, access);
  window<V>(dst, lo, hi, m);
}

// row[c .. c + V) = src, inside the row only (nothing when !inside); n floats in the row.
template <int V, int DELTA, int SEG, class STORE>
__device__ __forceinline__ void store(float* row, bool inside, int c, int n, const float (&src)[V], STORE put) {
  const int m = misalignment<V>(row + c);
  float next[V];
#pragma unroll
  for (int e = 0; e < V; ++e) next[e] = __shfl_down_sync(0xffffffffu, src[e], DELTA);
  if (!inside) return;
  if (m == 0) {
    if (c + V <= n) {
      put(row + c, src);
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e)
        if (c + e < n) put(row + c + e, src[e]);
    }
    return;
  }
  const int p = position<DELTA, SEG>();
  const int w = c - m + V;  // the aligned chunk holding this lane's last m floats
  // The first V - m floats: the previous lane wrote them with its aligned chunk unless it is
  // not there (segment start) or that chunk passes the row's end.
  if (!(p > 0 && w <= n)) {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e < V - m && c + e < n) put(row + c + e, src[e]);
  }
  if (p < SEG - 1 && w + V <= n) {
    float chunk[V];
    window<V>(chunk, src, next, V - m);
    put(row + w, chunk);
  } else {
#pragma unroll
    for (int e = 0; e < V; ++e)
      if (e >= V - m && c + e < n) put(row + c + e, src[e]);
  }
}

}  // namespace realign

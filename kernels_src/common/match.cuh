// Feature matching's output and its judges, shared by matching.cu and matching_wgmma.cu (tune
// writes this file into each kernel's program): the packed (score, index) of a row's best match,
// the reference (one thread per set-1 point, scores in double) and the check (Tune.check). Uses
// none of the includer's macros.
#pragma once

__host__ __device__ inline unsigned long long match_pack(float score, unsigned index) {
  unsigned bits = __float_as_uint(score);
  bits = (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u);  // order-preserving
  return ((unsigned long long)(~bits) << 32) | index;
}
__host__ __device__ inline float match_score(unsigned long long m) {
  unsigned bits = ~(unsigned)(m >> 32);
  bits = (bits & 0x80000000u) ? (bits & 0x7fffffffu) : ~bits;
  return __uint_as_float(bits);
}
__host__ __device__ inline unsigned match_index(unsigned long long m) { return (unsigned)m; }


// The reference: one thread per set-1 point, set 2 staged through shared memory, scores in double;
// the best score (rounded to float) and the lowest index among equal scores.
__device__ __forceinline__ void match_reference(unsigned long long* match, const float* set1, const float* set2, int n1,
                                                int n2, int dim) {
  __shared__ float tile[32][257];  // 32 set-2 points of up to 256 features
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  double best = -1e300;
  int best_at = -1;
  for (int n0 = 0; n0 < n2; n0 += 32) {
    __syncthreads();
    for (int e = threadIdx.x; e < 32 * dim; e += blockDim.x) {
      const int p = e / dim, k = e % dim;
      tile[p][k] = n0 + p < n2 ? set2[(size_t)(n0 + p) * dim + k] : 0.0f;
    }
    __syncthreads();
    if (r < n1) {  // each set-1 feature read once per 32 set-2 points; every sum in k's order as before
      double sum[32];
#pragma unroll
      for (int p = 0; p < 32; ++p) sum[p] = 0.0;
      for (int k = 0; k < dim; ++k) {
        const double a = (double)set1[(size_t)r * dim + k];
#pragma unroll
        for (int p = 0; p < 32; ++p) sum[p] += a * (double)tile[p][k];
      }
      for (int p = 0; p < 32 && n0 + p < n2; ++p)
        if (sum[p] > best) best = sum[p], best_at = n0 + p;
    }
  }
  if (r < n1) match[r] = match_pack((float)best, (unsigned)best_at);
}

// The check (Tune.check): a configuration's match is right when its index is in range, its score
// is that index's FP32 dot product (within FP32 rounding), and that index's exact score is within
// FP32 rounding of the reference's best. So a different index is accepted only for a near tie.
// result[0] counts wrong rows, result[1] is the first.
__device__ __forceinline__ void match_check(const unsigned long long* match, const float* set1, const float* set2, int n1,
                                            int n2, int dim, const unsigned long long* ref, unsigned long long* result) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= n1) return;
  const unsigned long long m = match[r];
  const unsigned at = match_index(m);
  bool ok = at < (unsigned)n2;
  if (ok) {
    double exact = 0.0, magnitude = 0.0;
    for (int k = 0; k < dim; ++k) {
      const double t = (double)set1[(size_t)r * dim + k] * (double)set2[(size_t)at * dim + k];
      exact += t;
      magnitude += fabs(t);
    }
    // FP32's summation bound (2 dim u), plus 16 u for the tensor-core family: in 3xTF32 each product
    // carries up to about 9 u of its own (the truncated small parts, the dropped small*small), which
    // the plain bound leaves no room for at a short dim (at dim 1 it is 2 u); 16 u is under 7 % of
    // the bound at dim 128.
    const double tol = (2.0 * dim + 16.0) * 5.96e-8 * magnitude + 1e-30;
    const double best = (double)match_score(ref[r]);
    ok = fabs((double)match_score(m) - exact) <= tol && best - exact <= tol + 5.96e-8 * fabs(best);
  }
  if (!ok) {
    atomicAdd(result, 1ull);
    atomicMin(result + 1, (unsigned long long)r);
  }
}

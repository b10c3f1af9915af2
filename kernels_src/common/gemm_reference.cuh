// The FP32 GEMM's verification reference, shared by gemm.cu and gemm_wgmma.cu: C = alpha * A * B
// + beta * C, row-major, one thread per element of C (16 x 16 blocks, grid covering N x M), A and
// B staged through shared memory in 16 x 16 tiles, the dot product accumulated in double.
// Independent of every tuning parameter; uses none of the includer's macros.
#pragma once

__device__ __forceinline__ void gemm_reference_body(float* C, const float* A, const float* B, int M, int N, int K,
                                                    float alpha, float beta) {
  __shared__ float as[16][17], bs[16][17];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * 16 + tx, r = blockIdx.y * 16 + ty;
  double sum = 0.0;
  for (int k0 = 0; k0 < K; k0 += 16) {
    as[ty][tx] = r < M && k0 + tx < K ? A[(size_t)r * K + k0 + tx] : 0.0f;
    bs[ty][tx] = k0 + ty < K && c < N ? B[(size_t)(k0 + ty) * N + c] : 0.0f;
    __syncthreads();
    for (int k = 0; k < 16; ++k) sum += (double)as[ty][k] * (double)bs[k][tx];
    __syncthreads();
  }
  if (r >= M || c >= N) return;
  const size_t at = (size_t)r * N + c;
  C[at] = (float)((double)alpha * sum + (double)beta * (double)C[at]);
}

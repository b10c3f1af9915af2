// How a short kernel's time per launch depends on the stream it is launched on: the same 32x32-tile
// transpose, timed as tune and examples/transpose time (batches of back-to-back launches of at
// least 50 us behind a stream-holding kernel, the host waiting for each batch), on the legacy
// default stream, the per-thread default stream and eight created streams, in three CUDA contexts
// one after the other (cudaDeviceReset between them). Prints one line per context, microseconds per
// launch. Built and run by bench/bench_channels.sh.
//   channel_cost [N]     N x N floats (default 128)
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

bool ok(cudaError_t e, const char* what) {
  if (e != cudaSuccess) std::fprintf(stderr, "channel_cost: %s: %s\n", what, cudaGetErrorString(e));
  return e == cudaSuccess;
}

__global__ void transpose(float* __restrict__ out, const float* __restrict__ in, int n) {
  __shared__ float tile[32][33];
  int x = blockIdx.x * 32 + threadIdx.x, y = blockIdx.y * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * n + x];
  __syncthreads();
  x = blockIdx.y * 32 + threadIdx.x;
  y = blockIdx.x * 32 + threadIdx.y;
  for (int j = 0; j < 32; j += 8)
    if (x < n && y + j < n) out[(y + j) * n + x] = tile[threadIdx.x][threadIdx.y + j];
}

// Holds a stream for `ns` nanoseconds, so the launches queued behind it run back to back.
__global__ void hold(long long ns) {
  long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// Microseconds per launch on `s`: the mean of 10 batches after one untimed, or -1 on an error.
double per_launch_us(cudaStream_t s, float* out, const float* in, int n, cudaEvent_t a, cudaEvent_t b) {
  const dim3 grid((n + 31) / 32, (n + 31) / 32), block(32, 8);
  auto batch = [&](int k) -> double {
    hold<<<1, 1, 0, s>>>(200000 + 4000LL * k);
    cudaEventRecord(a, s);
    for (int r = 0; r < k; ++r) transpose<<<grid, block, 0, s>>>(out, in, n);
    cudaEventRecord(b, s);
    if (!ok(cudaEventSynchronize(b), "timed launches")) return -1;
    float ms = 0;
    cudaEventElapsedTime(&ms, a, b);
    return ms;
  };
  const double one = batch(1);
  if (one < 0) return -1;
  const int k = std::clamp(static_cast<int>(0.05 / std::max(one, 1e-4)) + 1, 1, 200);
  (void)batch(k);
  double total = 0;
  for (int i = 0; i < 10; ++i) {
    const double t = batch(k);
    if (t < 0) return -1;
    total += t;
  }
  return 1000.0 * total / (10.0 * k);
}

bool one_context(int n) {
  float *in = nullptr, *out = nullptr;
  const size_t bytes = sizeof(float) * n * n;
  if (!ok(cudaMalloc(&in, bytes), "cudaMalloc") || !ok(cudaMalloc(&out, bytes), "cudaMalloc") ||
      !ok(cudaMemset(in, 0, bytes), "cudaMemset"))
    return false;
  cudaEvent_t a, b;
  if (!ok(cudaEventCreate(&a), "cudaEventCreate") || !ok(cudaEventCreate(&b), "cudaEventCreate")) return false;
  std::printf("legacy %.3f  per-thread %.3f  created:", per_launch_us(nullptr, out, in, n, a, b),
              per_launch_us(cudaStreamPerThread, out, in, n, a, b));
  for (int i = 0; i < 8; ++i) {
    cudaStream_t s;
    if (!ok(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking), "cudaStreamCreateWithFlags")) return false;
    std::printf(" %.3f", per_launch_us(s, out, in, n, a, b));
  }
  std::printf("\n");
  return ok(cudaDeviceReset(), "cudaDeviceReset");
}

}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 128;
  if (n < 32 || n > 16384) {
    std::fprintf(stderr, "channel_cost: N must be in 32..16384\n");
    return 2;
  }
  for (int c = 0; c < 3; ++c)
    if (!one_context(n)) return 1;
  return 0;
}

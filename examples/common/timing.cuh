// The examples' timing of a launch, as `tune` times (run/timing.h): batches of back-to-back
// launches between a pair of CUDA events, each batch queued behind a kernel that holds the stream
// (so the host's time per launch does not reach the GPU's), warm L2, the mean over `batches`
// batches after a warm-up batch.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace tune_example {

inline void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "example: %s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

// Holds the stream for `ns` nanoseconds, so that the launches queued behind it run back to back
// on the GPU, whatever the host's time per launch (as tune's timing does).
__global__ void hold(long long ns) {
  long long t0 = 0, t = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t0));
  do {
    __nanosleep(1000);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
  } while (t - t0 < ns);
}

// Milliseconds per launch: batches of back-to-back launches of at least 50 us each (one launch
// when it takes longer), the stream held while a batch is queued; the mean over `batches`.
template <class F>
double mean_ms(F launch, int batches) {
  cudaEvent_t start = nullptr, stop = nullptr;
  check(cudaEventCreate(&start), "cudaEventCreate");
  check(cudaEventCreate(&stop), "cudaEventCreate");
  auto batch = [&](int k) {
    hold<<<1, 1>>>(200000 + 4000LL * k);  // longer than queuing k launches takes the host
    check(cudaEventRecord(start, nullptr), "cudaEventRecord");
    for (int i = 0; i < k; ++i) launch();
    check(cudaEventRecord(stop, nullptr), "cudaEventRecord");
    check(cudaEventSynchronize(stop), "timed launches");
    float ms = 0;
    check(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return double(ms);
  };
  const double one = batch(1);
  const int k = std::clamp(static_cast<int>(0.05 / std::max(one, 1e-4)) + 1, 1, 1000);
  (void)batch(k);  // warm-up
  double total = 0;
  for (int b = 0; b < batches; ++b) total += batch(k);
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return total / (double(batches) * k);
}

// Host microseconds per call of `launch`, median over `batches` batches of `calls` calls (the GPU
// drains between batches, outside the timing).
template <class F>
double host_us(F launch, int calls = 256, int batches = 40) {
  using Clock = std::chrono::steady_clock;
  std::vector<double> per_call;
  for (int batch = 0; batch < batches; ++batch) {
    check(cudaDeviceSynchronize(), "drain");
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) launch();
    per_call.push_back(std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / calls);
  }
  check(cudaDeviceSynchronize(), "drain");
  std::sort(per_call.begin(), per_call.end());
  return per_call[per_call.size() / 2];
}

}  // namespace tune_example

// The NVML energy counter's behaviour under a steady load, for the noise of tune's energy windows
// (docs/performance.md, "Energy"): every counter update and every change of the instantaneous power
// field, with the host's time, first idle, then under back-to-back copies, then idle again.
//   nvcc -O2 -arch=sm_90 -o energy_probe bench/energy_probe.cu -ldl
//   energy_probe IDLE_MS LOAD_MS > probe.csv      (columns: phase,t_ms,what,value)
// what: E (counter, mJ), P (NVML_FI_DEV_POWER_INSTANT, mW), T (GPU temperature, C). bench/
// energy_noise.py reads it. Read-only: no clock or power setting is touched.
#include <cuda_runtime.h>
#include <dlfcn.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace {

struct FieldValue {  // nvmlFieldValue_t
  unsigned fieldId, scopeId;
  long long timestamp, latencyUsec;
  int valueType, nvmlReturn;
  union {
    double d;
    unsigned ui;
    unsigned long ul;
    unsigned long long ull;
    long long sll;
    int si;
  } value;
};
constexpr unsigned kPowerInstant = 186;  // NVML_FI_DEV_POWER_INSTANT

using Init = int (*)();
using Handle = int (*)(unsigned, void**);
using Energy = int (*)(void*, unsigned long long*);
using Fields = int (*)(void*, int, FieldValue*);
using Temp = int (*)(void*, int, unsigned*);

__global__ void copy(const float4* in, float4* out, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x)
    out[i] = in[i];
}

double now_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

int main(int argc, char** argv) {
  const double idle_ms = argc > 1 ? std::atof(argv[1]) : 1000, load_ms = argc > 2 ? std::atof(argv[2]) : 10000;
  void* lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) return std::fprintf(stderr, "no NVML: %s\n", dlerror()), 3;
  auto init = reinterpret_cast<Init>(dlsym(lib, "nvmlInit_v2"));
  auto handle = reinterpret_cast<Handle>(dlsym(lib, "nvmlDeviceGetHandleByIndex_v2"));
  auto energy = reinterpret_cast<Energy>(dlsym(lib, "nvmlDeviceGetTotalEnergyConsumption"));
  auto fields = reinterpret_cast<Fields>(dlsym(lib, "nvmlDeviceGetFieldValues"));
  auto temp = reinterpret_cast<Temp>(dlsym(lib, "nvmlDeviceGetTemperature"));
  void* dev = nullptr;
  if (!init || !handle || !energy || init() != 0 || handle(0, &dev) != 0) return std::fprintf(stderr, "NVML init\n"), 3;
  const size_t n = (256u << 20) / sizeof(float4);  // 256 MiB each way: well past the L2
  float4 *in = nullptr, *out = nullptr;
  if (cudaMalloc(&in, n * sizeof(float4)) != cudaSuccess || cudaMalloc(&out, n * sizeof(float4)) != cudaSuccess)
    return std::fprintf(stderr, "cudaMalloc\n"), 1;
  cudaMemset(in, 1, n * sizeof(float4));
  constexpr int kAhead = 20;  // batches of ~1 ms queued ahead: an NVML read takes milliseconds
  cudaEvent_t marks[kAhead + 2];
  for (auto& e : marks) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
  cudaDeviceSynchronize();
  std::printf("phase,t_ms,what,value\n");
  const auto t0 = std::chrono::steady_clock::now();
  unsigned long long last_e = 0;
  long long last_p = -1;
  double e_ms = 0, f_ms = 0;  // time spent in NVML's energy and field reads, and how many
  long e_n = 0, f_n = 0;
  auto poll = [&](const char* phase) {
    unsigned long long e = 0;
    const double a = now_ms(t0);
    const int got = energy(dev, &e);
    e_ms += now_ms(t0) - a, ++e_n;
    if (got == 0 && e != last_e) {
      const double t = now_ms(t0);
      std::printf("%s,%.3f,E,%llu\n", phase, t, e);
      last_e = e;
      unsigned c = 0;
      if (temp && temp(dev, 0, &c) == 0) std::printf("%s,%.3f,T,%u\n", phase, t, c);
    }
    FieldValue f{};
    f.fieldId = kPowerInstant;
    const double b = now_ms(t0);
    const int fok = fields ? fields(dev, 1, &f) : -1;
    f_ms += now_ms(t0) - b, ++f_n;
    if (fok == 0 && f.nvmlReturn == 0) {
      long long p = -1;  // mW, by nvmlValueType_t
      if (f.valueType == 0) p = static_cast<long long>(f.value.d);
      if (f.valueType == 1) p = f.value.ui;
      if (f.valueType == 2 || f.valueType == 3) p = static_cast<long long>(f.value.ull);
      if (f.valueType == 4) p = f.value.sll;
      if (p != last_p) std::printf("%s,%.3f,P,%lld\n", phase, now_ms(t0), p), last_p = p;
    }
  };
  while (now_ms(t0) < idle_ms) poll("idle");
  // back to back, kAhead batches of 8 launches (~1 ms each) queued ahead of the host
  const double start = now_ms(t0);
  int batch = 0;
  while (now_ms(t0) - start < load_ms) {
    // topped up to kAhead batches before each NVML read, which takes milliseconds
    while (batch < kAhead || cudaEventQuery(marks[(batch - kAhead) % (kAhead + 2)]) == cudaSuccess) {
      for (int i = 0; i < 8; ++i) copy<<<132 * 8, 512>>>(in, out, n);
      cudaEventRecord(marks[batch % (kAhead + 2)]);
      ++batch;
    }
    poll("load");
  }
  cudaDeviceSynchronize();
  const double end = now_ms(t0);
  while (now_ms(t0) - end < idle_ms) poll("after");
  std::fprintf(stderr,
               "%d batches of 8 copies of 256 MiB in %.0f ms; NVML energy read %.3f ms (%ld), field read %.3f ms (%ld) "
               "on average\n",
               batch, end - start, e_ms / static_cast<double>(e_n), e_n, f_ms / static_cast<double>(f_n), f_n);
  return cudaGetLastError() == cudaSuccess ? 0 : 1;
}

// A tuned Hopper kernel inside an application: the 3xTF32 GEMM on wgmma and TMA
// (spaces/gemm_wgmma.json), launched two ways side by side, with cuBLAS's pedantic FP32 Sgemm as
// the yardstick when the toolkit has it (TUNE_EXAMPLE_CUBLAS):
//   run time:       tune::runtime::Kernel k(spec, table);
//                   k.launch(stream, {N, M, K}, {Arg::tensor_map(), Arg::tensor_map(), C, A, B, ...})
//                   (the runtime encodes both tensor maps from A and B, opts in to the dynamic
//                   shared memory over 48 KiB, compiles for sm_90a with NVRTC on first use)
//   ahead of time:  #include "gemm_wgmma_dispatch.cuh";
//                   tune_tuned::gemm_wgmma::launch(stream, N, M, K, C, A, B, M, N, K, alpha, beta)
// Row-major C = alpha A B + beta C with A M x K, B K x N; a size is N x M x K (the spec's
// ProblemSize order). Needs a compute capability 9.0 GPU; without a GPU it exits 3.
//
// Usage: gemm_wgmma_example SPEC TABLE [--sizes 4096x4096x4096,1000x777x260] [--reps 30]
//                           [--cache DIR] [--overhead] [--json]
// For every size both tuned paths start from the same C; each output is checked against a
// double-precision product on the host (every entry up to 2^28 multiply-adds, else 4096 sampled
// entries and the last row and column) within the FP32 dot-product bound K u sum |alpha a b| +
// |beta c|, u = 2^-24. Then each path and cuBLAS are timed as `tune` times (examples/common:
// legacy default stream, warm L2, the mean over --reps batches of back-to-back launches of at least
// 50 us each, the stream held while a batch is queued). --overhead: at the last size, the host's
// time per launch call of each path (the median over batches of 64 calls).
#ifdef TUNE_EXAMPLE_CUBLAS
#include <cublas_v2.h>
#endif
#include <cuda_runtime.h>
#include <tune/runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "gemm_wgmma_dispatch.cuh"
#include "timing.cuh"  // examples/common: mean_ms, timed as tune times

namespace {

using Clock = std::chrono::steady_clock;
using tune::runtime::Arg;
using tune_example::check;
using tune_example::host_us;
using tune_example::mean_ms;

[[noreturn]] void die(const std::string& why, int code = 1) {
  std::fprintf(stderr, "gemm_wgmma_example: %s\n", why.c_str());
  std::exit(code);
}

struct Size {
  int n, m, k;  // ProblemSize = [N, M, K]
  std::string label() const { return std::to_string(n) + "x" + std::to_string(m) + "x" + std::to_string(k); }
};

// "4096x4096x4096,1000x777x260" (NxMxK) or "4096" (a cube)
std::vector<Size> parse_sizes(const std::string& text) {
  std::vector<Size> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    int n = 0, m = 0, k = 0;
    if (std::sscanf(item.c_str(), "%dx%dx%d", &n, &m, &k) == 3 && n > 0 && m > 0 && k > 0)
      out.push_back({n, m, k});
    else if (std::sscanf(item.c_str(), "%d", &n) == 1 && n > 0 && item.find('x') == std::string::npos)
      out.push_back({n, n, n});
    else
      die("bad size '" + item + "' (NxMxK)", 2);
    if (out.back().n % 4 || out.back().k % 4) die("size " + item + ": N and K must be multiples of 4 (TMA rows)", 2);
    pos = end + 1;
  }
  return out;
}

// Uniform in [0, 1), as tune's Random fill with FillValue 1 (a counter-based splitmix64).
__global__ void fill(float* p, long long n, unsigned long long seed) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
    unsigned long long z = seed + 0x9E3779B97F4A7C15ull * (unsigned long long)(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    p[i] = float(z >> 40) * 0x1.0p-24f;
  }
}

struct DeviceBuffer {  // one cudaMalloc, freed with it
  float* p = nullptr;
  explicit DeviceBuffer(long long n) { check(cudaMalloc(&p, std::size_t(n) * sizeof(float)), "cudaMalloc"); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { cudaFree(p); }
};

std::vector<float> download(const float* p, long long n) {
  std::vector<float> h(static_cast<std::size_t>(n));
  check(cudaMemcpy(h.data(), p, std::size_t(n) * sizeof(float), cudaMemcpyDeviceToHost), "copy to the host");
  return h;
}

std::string number(double v) {  // JSON has no nan: null
  if (std::isnan(v)) return "null";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", v);
  return text;
}

struct Check {
  long long entries = 0;
  double worst = 0;  // max |c - exact| / (sum |alpha a b| + |beta c0|)
  bool ok = true;
};

// Each output against a double product at the same entries, within K u (FP32 dot-product bound).
std::vector<Check> verify(const Size& s, float alpha, float beta, const std::vector<const float*>& outputs,
                          const float* a, const float* b, const float* c0) {
  std::vector<std::pair<int, int>> at;
  if ((double)s.m * s.n * s.k <= double(1 << 28)) {
    for (int r = 0; r < s.m; ++r)
      for (int c = 0; c < s.n; ++c) at.emplace_back(r, c);
  } else {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 4096; ++i) at.emplace_back(int(rng() % s.m), int(rng() % s.n));
    for (int c = 0; c < s.n; c += std::max(1, s.n / 256)) at.emplace_back(s.m - 1, c);
    for (int r = 0; r < s.m; r += std::max(1, s.m / 256)) at.emplace_back(r, s.n - 1);
    at.emplace_back(s.m - 1, s.n - 1);
  }
  const double bound = s.k * 0x1.0p-24;
  std::vector<Check> out(outputs.size());
  for (const auto& [r, c] : at) {
    double sum = 0, mag = 0;
    for (int k = 0; k < s.k; ++k) {
      const double p = double(a[(long long)r * s.k + k]) * double(b[(long long)k * s.n + c]);
      sum += p;
      mag += std::fabs(p);
    }
    const long long i = (long long)r * s.n + c;
    const double exact = double(alpha) * sum + double(beta) * double(c0[i]);
    const double scale = std::fabs(double(alpha)) * mag + std::fabs(double(beta) * double(c0[i]));
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      const double e = std::fabs(double(outputs[o][i]) - exact) / std::max(scale, 1e-30);
      out[o].worst = std::max(out[o].worst, std::isnan(e) ? INFINITY : e);
      ++out[o].entries;
    }
  }
  for (auto& c : out) c.ok = c.worst <= bound;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) die("usage: gemm_wgmma_example SPEC TABLE [--sizes NxMxK,...] [--reps N] [--cache DIR] [--json]", 2);
  std::string sizes_text = "4096x4096x4096,8192x8192x8192,1000x777x260";
  int reps = 30;
  bool json = false, overhead = false;
  tune::runtime::Options options;
  for (int i = 3; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--sizes" && i + 1 < argc)
      sizes_text = argv[++i];
    else if (a == "--reps" && i + 1 < argc)
      reps = std::max(1, std::atoi(argv[++i]));
    else if (a == "--cache" && i + 1 < argc)
      options.cache_dir = argv[++i];
    else if (a == "--json")
      json = true;
    else if (a == "--overhead")
      overhead = true;
    else
      die("unknown option " + a, 2);
  }
  const std::vector<Size> sizes = parse_sizes(sizes_text);
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) die("no CUDA device", 3);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");
  if (prop.major != 9 || prop.minor != 0) die(std::string(prop.name) + " is not compute capability 9.0 (sm_90a)", 3);

  try {
    tune::runtime::Kernel kernel(argv[1], argv[2], options);
#ifdef TUNE_EXAMPLE_CUBLAS
    cublasHandle_t blas = nullptr;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) die("cublasCreate failed");
    if (cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH) != CUBLAS_STATUS_SUCCESS) die("cublasSetMathMode failed");
#endif
    if (!json)
      std::printf("%s\n%-16s %-9s %-9s %11s %11s %11s %9s %9s %10s %s\n", prop.name, "size", "runtime", "dispatch",
                  "runtime ms", "dispatch ms", "cublas ms", "rt TF/s", "aot TF/s", "max error", "first launch ms");
    bool all_ok = true;
    const float alpha = 1.0f, beta = 0.5f;  // the spec's FillValues
    for (const Size& s : sizes) {
      const long long na = (long long)s.m * s.k, nb = (long long)s.k * s.n, nc = (long long)s.m * s.n;
      DeviceBuffer a(na), b(nb), c0(nc), c_rt(nc), c_aot(nc), c_blas(nc);
      fill<<<1024, 256>>>(a.p, na, 1);
      fill<<<1024, 256>>>(b.p, nb, 2);
      fill<<<1024, 256>>>(c0.p, nc, 3);
      check(cudaMemcpy(c_rt.p, c0.p, nc * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
      check(cudaMemcpy(c_aot.p, c0.p, nc * sizeof(float), cudaMemcpyDeviceToDevice), "copy");
      check(cudaDeviceSynchronize(), "fill");
      const float* ca = a.p;
      const float* cb = b.p;
      auto runtime_launch = [&] {
        return kernel.launch(
            nullptr, {s.n, s.m, s.k},
            {Arg::tensor_map(), Arg::tensor_map(), Arg::buffer(c_rt.p, nc), Arg::buffer(ca, na), Arg::buffer(cb, nb),
             Arg::scalar(s.m), Arg::scalar(s.n), Arg::scalar(s.k), Arg::scalar(alpha), Arg::scalar(beta)});
      };
      const auto t0 = Clock::now();
      const tune::runtime::Selection sel = runtime_launch();
      check(cudaDeviceSynchronize(), "runtime launch");
      const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

      // Ahead of time: the configuration the header's table picks, compiled into this binary by nvcc.
      tune_tuned::gemm_wgmma::Selection aot{};
      check(tune_tuned::gemm_wgmma::select_current(aot, s.n, s.m, s.k), "select_current");
      auto dispatch_launch = [&] {
        check(tune_tuned::gemm_wgmma::launch(aot, nullptr, s.n, s.m, s.k, c_aot.p, ca, cb, s.m, s.n, s.k, alpha, beta),
              "dispatch launch");
      };
      dispatch_launch();
      check(cudaDeviceSynchronize(), "dispatch launch");

      const auto ha = download(a.p, na), hb = download(b.p, nb), hc0 = download(c0.p, nc);
      const auto hrt = download(c_rt.p, nc), haot = download(c_aot.p, nc);
      const auto checks = verify(s, alpha, beta, {hrt.data(), haot.data()}, ha.data(), hb.data(), hc0.data());
      const bool same = std::memcmp(hrt.data(), haot.data(), hrt.size() * sizeof(float)) == 0;
      const bool ok = checks[0].ok && checks[1].ok;
      all_ok = all_ok && ok;

      const double rt = mean_ms([&] { (void)runtime_launch(); }, reps);
      const double ahead = mean_ms(dispatch_launch, reps);
#ifdef TUNE_EXAMPLE_CUBLAS
      const double cublas = mean_ms(
          [&] {
            if (cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &alpha, cb, s.n, ca, s.k, &beta, c_blas.p,
                            s.n) != CUBLAS_STATUS_SUCCESS)
              die("cublasSgemm failed");
          },
          reps);
#else
      const double cublas = NAN;
#endif
      const auto& cfg = aot.config();
      char aot_config[160];
      std::snprintf(aot_config, sizeof aot_config, "tile_m=%d tile_n=%d consumers=%d stages=%d group=%d split_ring=%d",
                    int(cfg.tile_m), int(cfg.tile_n), int(cfg.consumers), int(cfg.stages), int(cfg.group),
                    int(cfg.split_ring));
      double rt_us = NAN, aot_us = NAN;
      if (overhead && &s == &sizes.back()) {
        rt_us = host_us([&] { (void)runtime_launch(); }, 64, 20);
        aot_us = host_us(dispatch_launch, 64, 20);
      }
      const double tflop = 2.0 * s.n * s.m * s.k * 1e-9;  // TFLOP/s = this / ms
      if (json) {
        char cublas_text[32] = "null";
        if (!std::isnan(cublas)) std::snprintf(cublas_text, sizeof cublas_text, "%.6f", cublas);
        std::printf(
            "{\"size\": \"%s\", \"runtime_match\": \"%s\", \"dispatch_match\": \"%s\", \"runtime_ms\": %.6f, "
            "\"dispatch_ms\": %.6f, \"cublas_ms\": %s, \"first_launch_ms\": %.3f, \"config\": \"%s\", "
            "\"dispatch_config\": \"%s\", \"dynamic_smem\": %u, \"checked\": %lld, \"runtime_error\": %.3e, "
            "\"dispatch_error\": %.3e, \"bound\": %.3e, \"verified\": %s, \"same_output\": %s, "
            "\"runtime_host_us\": %s, \"dispatch_host_us\": %s}\n",
            s.label().c_str(), tune::runtime::match_name(sel.match), tune_tuned::match_name(aot.match), rt, ahead,
            cublas_text, first_ms, sel.config.c_str(), aot_config, sel.dynamic_smem, checks[0].entries, checks[0].worst,
            checks[1].worst, s.k * 0x1.0p-24, ok ? "true" : "false", same ? "true" : "false", number(rt_us).c_str(),
            number(aot_us).c_str());
      } else {
        std::printf("%-16s %-9s %-9s %11.4f %11.4f %11.4f %9.1f %9.1f %10.2e %.1f\n", s.label().c_str(),
                    tune::runtime::match_name(sel.match), tune_tuned::match_name(aot.match), rt, ahead, cublas,
                    tflop / rt, tflop / ahead, std::max(checks[0].worst, checks[1].worst), first_ms);
        if (!std::isnan(rt_us))
          std::printf("  host time per launch call: runtime %.2f us, dispatch %.2f us\n", rt_us, aot_us);
        std::printf("  runtime:  %s\n  dispatch: %s%s\n", sel.config.c_str(), aot_config,
                    ok ? "" : "   OUTPUT OUTSIDE THE BOUND");
      }
      std::fflush(stdout);
    }
    const auto st = kernel.stats();
    if (json)
      std::printf("{\"compiled\": %zu, \"from_disk\": %zu, \"disk_refused\": %zu, \"compile_ms\": %.1f}\n", st.compiled,
                  st.from_disk, st.disk_refused, st.compile_ms);
#ifdef TUNE_EXAMPLE_CUBLAS
    cublasDestroy(blas);
#endif
    if (!all_ok) die("an output is outside the FP32 dot-product bound");
  } catch (const tune::runtime::Error& e) {
    die(e.what());
  }
  return 0;
}

// A tuned transpose inside an application, used two ways side by side (README, "Using a tuned
// kernel"), with cuBLAS as the yardstick when it is there (TUNE_EXAMPLE_CUBLAS, set by CMake when
// the toolkit has it; without it the outputs are checked against a transpose on the host):
//   run time:       tune::runtime::Kernel k(spec, table);  k.launch(stream, {cols, rows}, args)
//   ahead of time:  #include "transpose_dispatch.cuh";  tune_tuned::transpose::launch(stream, cols, rows, 1, ...)
//   capture:        TUNE_CAPTURE=dir transpose_example ...  (the runtime writes one file per size)
//
// Usage: transpose_example SPEC TABLE [--sizes 128:4096:128,8192,16384] [--reps 30] [--cache DIR]
//                          [--overhead] [--json]
// For every size (square n x n, or CxR): both tuned paths and cublasSgeam transpose the same
// input; their outputs must be identical; each is timed as `tune` times (legacy default stream,
// warm L2, the mean over --reps batches of back-to-back launches of at least 50 us each, the
// stream held while a batch is queued: examples/common/timing.cuh). --overhead measures the host
// time of a cached launch through the runtime against a plain cudaLaunchKernel of the same kernel.
// --json prints one JSON object per line.
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
#include <string>
#include <vector>

#include "timing.cuh"  // examples/common: mean_ms, timed as tune times
#include "transpose_dispatch.cuh"

namespace {

using Clock = std::chrono::steady_clock;
using tune::runtime::Arg;
using tune_example::host_us;
using tune_example::mean_ms;

[[noreturn]] void die(const std::string& why, int code = 1) {
  std::fprintf(stderr, "transpose_example: %s\n", why.c_str());
  std::exit(code);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Size {
  long long cols, rows;
};

// "128:4096:128,8192,4097x1000"
std::vector<Size> parse_sizes(const std::string& text) {
  std::vector<Size> out;
  std::size_t pos = 0;
  while (pos <= text.size()) {
    const std::size_t end = std::min(text.find(',', pos), text.size());
    const std::string item = text.substr(pos, end - pos);
    long long a = 0, b = 0, s = 0;
    if (std::sscanf(item.c_str(), "%lld:%lld:%lld", &a, &b, &s) == 3 && a > 0 && s > 0) {
      for (long long n = a; n <= b; n += s) out.push_back({n, n});
    } else if (std::sscanf(item.c_str(), "%lldx%lld", &a, &b) == 2 && a > 0 && b > 0) {
      out.push_back({a, b});
    } else if (std::sscanf(item.c_str(), "%lld", &a) == 1 && a > 0) {
      out.push_back({a, a});
    } else {
      die("bad size '" + item + "'", 2);
    }
    pos = end + 1;
  }
  return out;
}

__global__ void fill(float* p, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = float(i % 65521) * 0.25f - 100.0f;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3)
    die("usage: transpose_example SPEC TABLE [--sizes LIST] [--reps N] [--cache DIR] [--overhead] [--json]", 2);
  std::string sizes_text = "128:4096:128,8192,16384";
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

  try {
    // Run time: the spec and the table `tune header --table` wrote; NVRTC compiles on first use.
    tune::runtime::Kernel kernel(argv[1], argv[2], options);
#ifdef TUNE_EXAMPLE_CUBLAS
    cublasHandle_t blas = nullptr;
    if (cublasCreate(&blas) != CUBLAS_STATUS_SUCCESS) die("cublasCreate failed");
#endif
    long long most = 0;
    for (const Size& s : sizes) most = std::max(most, s.cols * s.rows);
    float *in = nullptr, *out_rt = nullptr, *out_aot = nullptr, *out_blas = nullptr;
    for (float** p : {&in, &out_rt, &out_aot, &out_blas}) check(cudaMalloc(p, most * sizeof(float)), "cudaMalloc");
    if (!json)
      std::printf("%s\n%-12s %-13s %-13s %11s %11s %11s %9s %9s  %s\n", prop.name, "size", "runtime", "dispatch",
                  "runtime ms", "dispatch ms", "cublas ms", "blas/rt", "blas/aot", "first launch ms");

    for (const Size& s : sizes) {
      const long long n = s.cols * s.rows;
      const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
      fill<<<1024, 256>>>(in, n);
      check(cudaDeviceSynchronize(), "fill");

      const auto t0 = Clock::now();
      const auto& sel = kernel.launch(nullptr, {s.cols, s.rows},
                                      {Arg::buffer(out_rt, n), Arg::buffer(static_cast<const float*>(in), n),
                                       Arg::scalar(rows), Arg::scalar(cols)});
      check(cudaDeviceSynchronize(), "runtime launch");
      const double first_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();

      // Ahead of time: the same configuration, compiled into this binary by nvcc.
      tune_tuned::transpose::Selection aot{};
      check(tune_tuned::transpose::select_current(aot, s.cols, s.rows), "select_current");
      check(tune_tuned::transpose::launch(aot, nullptr, s.cols, s.rows, 1, out_aot, in, rows, cols), "dispatch launch");
      const float one = 1, zero = 0;
#ifdef TUNE_EXAMPLE_CUBLAS
      auto blas_launch = [&] {
        if (cublasSgeam(blas, CUBLAS_OP_T, CUBLAS_OP_N, rows, cols, &one, in, cols, &zero, out_blas, rows, out_blas,
                        rows) != CUBLAS_STATUS_SUCCESS)
          die("cublasSgeam failed");
      };
      blas_launch();
#else
      (void)one, (void)zero;
      {  // the reference on the host: out[c * rows + r] = in[r * cols + c]
        std::vector<float> host(n), ref(n);
        check(cudaMemcpy(host.data(), in, n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
        for (long long r = 0; r < s.rows; ++r)
          for (long long c = 0; c < s.cols; ++c) ref[c * s.rows + r] = host[r * s.cols + c];
        check(cudaMemcpy(out_blas, ref.data(), n * sizeof(float), cudaMemcpyHostToDevice), "copy");
      }
#endif
      check(cudaDeviceSynchronize(), "launches");
      std::vector<float> a(n), b(n), c(n);
      check(cudaMemcpy(a.data(), out_rt, n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
      check(cudaMemcpy(b.data(), out_aot, n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
      check(cudaMemcpy(c.data(), out_blas, n * sizeof(float), cudaMemcpyDeviceToHost), "copy");
      const bool ok = std::memcmp(a.data(), c.data(), n * sizeof(float)) == 0 &&
                      std::memcmp(b.data(), c.data(), n * sizeof(float)) == 0;
      if (!ok)
        die("size " + std::to_string(s.cols) + "x" + std::to_string(s.rows) +
            ": a tuned output differs from the reference");

      const double rt = mean_ms(
          [&] {
            kernel.launch(nullptr, {s.cols, s.rows},
                          {Arg::buffer(out_rt, n), Arg::buffer(static_cast<const float*>(in), n), Arg::scalar(rows),
                           Arg::scalar(cols)});
          },
          reps);
      const double ahead = mean_ms(
          [&] { (void)tune_tuned::transpose::launch(aot, nullptr, s.cols, s.rows, 1, out_aot, in, rows, cols); }, reps);
#ifdef TUNE_EXAMPLE_CUBLAS
      const double cublas = mean_ms(blas_launch, reps);
#else
      const double cublas = NAN;  // no cuBLAS: nan in the table, null in JSON
#endif
      const std::string size = std::to_string(s.cols) + "x" + std::to_string(s.rows);
      if (json) {
        char blas_ms[32] = "null";  // JSON has no nan: null without cuBLAS
        if (!std::isnan(cublas)) std::snprintf(blas_ms, sizeof blas_ms, "%.6f", cublas);
        std::printf(
            "{\"size\": \"%s\", \"runtime_match\": \"%s\", \"dispatch_match\": \"%s\", \"runtime_variant\": %zu, "
            "\"dispatch_variant\": %u, \"runtime_ms\": %.6f, \"dispatch_ms\": %.6f, \"cublas_ms\": %s, "
            "\"first_launch_ms\": %.3f, \"config\": \"%s\"}\n",
            size.c_str(), tune::runtime::match_name(sel.match), tune_tuned::match_name(aot.match), sel.variant,
            aot.variant, rt, ahead, blas_ms, first_ms, sel.config.c_str());
      } else {
        std::printf("%-12s %-13s %-13s %11.4f %11.4f %11.4f %9.3f %9.3f  %.1f\n", size.c_str(),
                    tune::runtime::match_name(sel.match), tune_tuned::match_name(aot.match), rt, ahead, cublas,
                    cublas / rt, cublas / ahead, first_ms);
      }
    }

    if (overhead) {  // host time per cached launch, at the first size
      const Size s = sizes.front();
      const long long n = s.cols * s.rows;
      const int rows = static_cast<int>(s.rows), cols = static_cast<int>(s.cols);
      tune_tuned::transpose::Selection aot{};
      check(tune_tuned::transpose::select_current(aot, s.cols, s.rows), "select_current");
      const auto& v = tune_tuned::transpose::variants[aot.variant];
      const auto g = tune_tuned::transpose::grid(v, s.cols, s.rows);
      const void* fn = tune_tuned::transpose::kernels[aot.variant];
      const float* cin = in;
      void* args[] = {&out_aot, &cin, const_cast<int*>(&rows), const_cast<int*>(&cols)};
      const double plain = host_us([&] {
        (void)cudaLaunchKernel(fn, dim3(g.x, g.y, g.z), dim3(v.block.x, v.block.y, v.block.z), args, 0, nullptr);
      });
      const double dispatch =
          host_us([&] { (void)tune_tuned::transpose::launch(nullptr, s.cols, s.rows, 1, out_aot, in, rows, cols); });
      const double runtime = host_us([&] {
        kernel.launch(nullptr, {s.cols, s.rows},
                      {Arg::buffer(out_rt, n), Arg::buffer(static_cast<const float*>(in), n), Arg::scalar(rows),
                       Arg::scalar(cols)});
      });
      if (json)
        std::printf(
            "{\"overhead_size\": \"%lldx%lld\", \"cudaLaunchKernel_us\": %.3f, \"dispatch_us\": %.3f, "
            "\"runtime_us\": %.3f}\n",
            s.cols, s.rows, plain, dispatch, runtime);
      else
        std::printf(
            "host time per launch at %lldx%lld: cudaLaunchKernel %.3f us, dispatch launch() %.3f us (+%.3f), "
            "runtime launch() %.3f us (+%.3f)\n",
            s.cols, s.rows, plain, dispatch, dispatch - plain, runtime, runtime - plain);
    }
    const auto st = kernel.stats();
    if (json)
      std::printf(
          "{\"compiled\": %zu, \"from_disk\": %zu, \"disk_refused\": %zu, \"captures\": %zu, \"compile_ms\": %.1f, "
          "\"cache_dir\": \"%s\"}\n",
          st.compiled, st.from_disk, st.disk_refused, st.captures, st.compile_ms, st.cache_dir.c_str());
    else
      std::printf(
          "runtime: %zu configurations compiled (%.1f ms of NVRTC), %zu from the on-disk cache %s%s, %zu refused, "
          "%zu captures written\n",
          st.compiled, st.compile_ms, st.from_disk, st.cache_dir.c_str(),
          st.cache_note.empty() ? "" : (" (" + st.cache_note + ")").c_str(), st.disk_refused, st.captures);
    for (float* p : {in, out_rt, out_aot, out_blas}) cudaFree(p);
#ifdef TUNE_EXAMPLE_CUBLAS
    cublasDestroy(blas);
#endif
  } catch (const tune::runtime::Error& e) {
    die(e.what());
  }
  return 0;
}

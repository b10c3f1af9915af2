// GPU tests of the run module. Without a GPU each test skips with the reason; on the GPU machine
// they compile kernels with NVRTC, launch, verify and time them, measure the ceilings, and check
// that faulting kernels cost a Session::recover() or, where the driver refuses that, a fresh
// supervised worker process — and nothing more.
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>

#include "run/run.h"
#include "run/test_args.h"

namespace tune::run {
namespace {

constexpr const char* kSource = R"(
extern "C" __global__ void saxpy(float* y, const float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
extern "C" __global__ void twice(float* out, const float* in, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = 2.0f * in[i];
}
extern "C" __global__ void copy4(float4* out, const float4* in, int n4) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += gridDim.x * blockDim.x) out[i] = in[i];
}
extern "C" __global__ void __launch_bounds__(128) bounded(float* out) { out[threadIdx.x] = 1.0f; }
extern "C" __global__ void reverse_smem(float* out, int n) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) s[i] = (float)i;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = s[n - 1 - i];
}
extern "C" __global__ void write_to(unsigned long long address) {
  ((volatile float*)address)[threadIdx.x] = 1.0f;
}
extern "C" __global__ void misaligned(float* p) { *(volatile float*)((char*)p + 1) = 1.0f; }
)";

// RAII nvrtcProgram (the test compiles its own kernels; the tuner uses tune_compile).
struct Program {
  nvrtcProgram p = nullptr;
  ~Program() {
    if (p != nullptr) nvrtcDestroyProgram(&p);
  }
};

std::vector<char> compile_cubin(const std::string& arch) {
  Program prog;
  if (nvrtcCreateProgram(&prog.p, kSource, "gpu_test.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS)
    throw Error("nvrtcCreateProgram failed");
  const std::string target = "--gpu-architecture=" + arch;
  const char* options[] = {target.c_str()};
  const nvrtcResult r = nvrtcCompileProgram(prog.p, 1, options);
  if (r != NVRTC_SUCCESS) {
    std::size_t size = 0;
    nvrtcGetProgramLogSize(prog.p, &size);
    std::string log(size, '\0');
    nvrtcGetProgramLog(prog.p, log.data());
    throw Error(std::string("NVRTC: ") + nvrtcGetErrorString(r) + "\n" + log);
  }
  std::size_t size = 0;
  nvrtcGetCUBINSize(prog.p, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog.p, cubin.data());
  return cubin;
}

using testing::buffer;
using testing::scalar;

class Gpu : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!gpu_available()) return;
    session_ = std::make_unique<Session>(0);
    cubin_ = compile_cubin(session_->device().arch);
  }
  static void TearDownTestSuite() { session_.reset(); }
  void SetUp() override {
    if (!gpu_available()) GTEST_SKIP() << "no GPU: " << gpu_unavailable_reason();
  }
  static Session& session() { return *session_; }
  static std::unique_ptr<Session> session_;
  static std::vector<char> cubin_;
};
std::unique_ptr<Session> Gpu::session_;
std::vector<char> Gpu::cubin_;

std::vector<float> host_floats(const ArgSet& args, std::size_t index) {
  const std::vector<std::byte> b = initial_data(args.spec(index), index, args.seed());
  std::vector<float> f(b.size() / sizeof(float));
  std::memcpy(f.data(), b.data(), b.size());
  return f;
}

TEST_F(Gpu, DeviceInfoIsPlausible) {
  const DeviceInfo& d = session().device();
  std::printf("device: %s, cc %s, L2 %zu B, smem %zu / opt-in %zu B, regs/block %d\n", d.summary().c_str(),
              d.compute_capability.c_str(), d.l2_bytes, d.smem_per_block, d.smem_per_block_optin, d.regs_per_block);
  EXPECT_EQ(d.arch, "sm_" + std::to_string(d.cc_major) + std::to_string(d.cc_minor));
  EXPECT_GT(d.sm_count, 0);
  EXPECT_GT(d.l2_bytes, std::size_t{1} << 20);
  EXPECT_GE(d.smem_per_block_optin, d.smem_per_block);
  EXPECT_EQ(d.max_threads_per_block, 1024);
  EXPECT_NE(d.driver_version, "none");
  EXPECT_FALSE(d.name.empty());
}

TEST_F(Gpu, BufferRoundTripFillAndPoison) {
  DeviceBuffer b(1000 * sizeof(float));
  const DType f32{Scalar::float32, 1};
  b.fill_random(f32, 11, 3.0);
  EXPECT_EQ(b.download(), random_data(f32, 1000, 11, 3.0));
  b.fill_constant(f32, 0.5);
  EXPECT_EQ(b.download_as<float>(), std::vector<float>(1000, 0.5f));
  b.fill_constant(f32, 0.0);  // memset path
  EXPECT_EQ(b.download_as<float>(), std::vector<float>(1000, 0.0f));
  b.poison();
  EXPECT_EQ(count_unwritten(f32, b), 1000u);
  std::vector<std::int32_t> ints = {1, -2, 3};
  DeviceBuffer c(ints.size() * 4);
  c.upload<std::int32_t>(ints);
  EXPECT_EQ(c.download_as<std::int32_t>(), ints);
  EXPECT_THROW(c.upload<std::int32_t>(std::vector<std::int32_t>{1}), Error);
}

TEST_F(Gpu, LaunchesAndVerifiesAKernel) {
  const int n = 1 << 20;
  ArgSet args(session(),
              {buffer("y", n, FillKind::random, 1.0, true), buffer("x", n, FillKind::random, 1.0),
               scalar("a", "float", 3.0), scalar("n", "int32", n)},
              2024);
  LoadedKernel k(session(), cubin_, "saxpy");
  EXPECT_GT(k.attributes().num_regs, 0);
  EXPECT_EQ(k.attributes().param_sizes, (std::vector<std::size_t>{8, 8, 4, 4}));
  std::printf("saxpy: %d regs, max %d threads/block\n", k.attributes().num_regs, k.attributes().max_threads_per_block);
  const LaunchStatus st = k.launch({n / 256}, {256}, 0, args);
  ASSERT_TRUE(st.ok()) << st.message;
  const std::vector<float> y0 = host_floats(args, 0), x = host_floats(args, 1);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::fma(3.0f, x[i], y0[i]);
  const Comparison c = compare<float>(DType{}, args.buffer("y").download_as<float>(), ref, Tolerance::rel(1e-6), "y");
  EXPECT_TRUE(c.ok) << c.message;
  // refill() restores the initial contents.
  args.refill();
  EXPECT_EQ(args.buffer("y").download_as<float>(), y0);
  // Arguments that do not match the parameters are a spec error, found before launching.
  ArgSet wrong(session(), {buffer("y", n, FillKind::random, 1.0), scalar("n", "int64", n)}, 1);
  EXPECT_THROW(k.launch({1}, {1}, 0, wrong), InputError);
}

TEST_F(Gpu, UnwrittenOutputIsDetected) {
  const int count = 4096, n = count - 10;
  ArgSet args(session(),
              {buffer("out", count, FillKind::constant, 0.0, true), buffer("in", count, FillKind::random, 1.0),
               scalar("n", "int32", n)},
              3);
  LoadedKernel k(session(), cubin_, "twice");
  args.poison_outputs();
  ASSERT_TRUE(k.launch({count / 128}, {128}, 0, args).ok());
  const std::vector<float> in = host_floats(args, 1);
  std::vector<float> ref(count);
  for (int i = 0; i < count; ++i) ref[i] = 2.0f * in[i];
  const Comparison c = compare<float>(DType{}, args.buffer("out").download_as<float>(), ref, Tolerance::exact(), "out");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.unwritten, 10u);
  EXPECT_EQ(c.mismatches, 10u);
  EXPECT_EQ(c.first_mismatch, static_cast<std::size_t>(n));
  EXPECT_EQ(count_unwritten(DType{}, args.buffer("out")), 10u);
  EXPECT_NE(c.message.find("unwritten (still poisoned)"), std::string::npos) << c.message;
}

TEST_F(Gpu, ResourceAndConfigurationFailuresAreStatusesNotExceptions) {
  ArgSet args(session(), {buffer("out", 1 << 16, FillKind::constant, 0.0, true)}, 1);
  LoadedKernel bounded(session(), cubin_, "bounded");
  EXPECT_EQ(bounded.attributes().max_threads_per_block, 128);
  EXPECT_TRUE(bounded.launch({1}, {128}, 0, args).ok());
  LaunchStatus st = bounded.launch({1}, {256}, 0, args);
  EXPECT_EQ(st.outcome, Outcome::out_of_resources) << st.message;
  EXPECT_NE(st.message.find("this kernel allows 128"), std::string::npos) << st.message;
  st = bounded.launch({1}, {2048}, 0, args);
  EXPECT_EQ(st.outcome, Outcome::invalid_config) << st.message;
  st = bounded.launch({1}, {32, 1, 128}, 0, args);
  EXPECT_EQ(st.outcome, Outcome::invalid_config) << st.message;

  // Dynamic shared memory above 48 KiB needs the opt-in attribute; above the device limit it fails.
  const int n = 100 * 1024 / 4;
  ArgSet rev(session(), {buffer("out", n, FillKind::constant, 0.0, true), scalar("n", "int32", n)}, 1);
  LoadedKernel reverse(session(), cubin_, "reverse_smem");
  st = reverse.launch({1}, {256}, n * sizeof(float), rev);
  ASSERT_TRUE(st.ok()) << st.message;
  const std::vector<float> out = rev.buffer("out").download_as<float>();
  for (int i = 0; i < n; i += 997) ASSERT_EQ(out[i], static_cast<float>(n - 1 - i));
  st = reverse.launch({1}, {256}, session().device().smem_per_block_optin + 4, rev);
  EXPECT_EQ(st.outcome, Outcome::out_of_resources) << st.message;
  // Nothing above left the context broken.
  EXPECT_TRUE(session().synchronize("after refused launches").ok());
}

TEST_F(Gpu, TimesAKernelWithAndWithoutL2Flush) {
  const std::size_t n = 16u << 20;  // 64 MiB of floats each way
  const std::size_t quads = n / 4;  // the kernel's float4 count
  ArgSet args(session(),
              {buffer("out", n, FillKind::constant, 0.0, true), buffer("in", n, FillKind::random, 1.0),
               scalar("n4", "int32", static_cast<double>(quads))},
              5);
  LoadedKernel k(session(), cubin_, "copy4");
  const int blocks = 4 * session().device().sm_count;
  const LaunchFn launch = [&] { return k.enqueue({static_cast<unsigned>(blocks)}, {256}, 0, args); };
  for (bool flush : {false, true}) {
    TimingOptions o;
    o.min_samples = 30;
    o.flush_l2 = flush;
    const Timing t = measure(session(), launch, o);
    ASSERT_TRUE(t.ok()) << t.status.message;
    ASSERT_GE(t.samples_ms.size(), 30u);
    for (double s : t.samples_ms) EXPECT_GT(s, 0.0);
    EXPECT_LE(t.summary.min, t.summary.median);
    EXPECT_LE(t.summary.median, t.summary.max);
    const double gbs = 2.0 * n * sizeof(float) / (t.summary.mean * 1e-3) / 1e9;
    std::printf("copy4 64 MiB %s: mean %.4f ms +- %.4f (min %.4f max %.4f, N %d) = %.0f GB/s\n",
                flush ? "flushed L2" : "back to back", t.summary.mean, t.summary.half_width, t.summary.min,
                t.summary.max, t.launches_per_sample, gbs);
    EXPECT_GT(gbs, 300.0);
    EXPECT_LE(t.launches_per_sample, 2);  // a 50 us kernel: one or two per 50 us batch
  }
  EXPECT_TRUE(compare(DType{}, args.buffer("out"), args.buffer("in"), Tolerance::exact(), "out").ok);
  TimingOptions o;
  o.min_samples = 3;
  o.max_samples = 2000;
  o.min_time_ms = 20.0;
  const Timing t = measure(session(), launch, o);
  ASSERT_TRUE(t.ok()) << t.status.message;
  EXPECT_GT(t.samples_ms.size(), 3u);
  EXPECT_GE(t.timed_ms, 20.0);
}

TEST_F(Gpu, CeilingsAt4096AreVerifiedAndPlausible) {
  const std::size_t n = 4096;
  const Ceiling copy = d2d_copy(session(), n * n * sizeof(float));
  const Ceiling geam = cublas_sgeam_transpose(session(), n, n);
  const Ceiling gemm = cublas_sgemm(session(), n, n, n);
  for (const Ceiling* c : {&copy, &geam, &gemm}) {
    EXPECT_TRUE(c->ok()) << c->name << ": " << c->timing.status.message << " " << c->check;
    std::printf("%s: median %.4f ms = %.0f %s (%zu samples; %s)\n", c->name.c_str(), c->time_ms, c->value,
                c->unit.c_str(), c->timing.samples_ms.size(), c->check.c_str());
  }
  EXPECT_GT(copy.value, 500.0);
  EXPECT_GT(geam.value, 500.0);
  EXPECT_GT(gemm.value, 10000.0);
  // A non-square transpose checks the leading dimensions.
  const Ceiling rect = cublas_sgeam_transpose(session(), 1000, 3000);
  EXPECT_TRUE(rect.ok()) << rect.check;
}

// The worker of Gpu.FaultsCostARecoveryOrAFreshProcess: faults the context twice (a write to a
// null pointer, then a misaligned store inside measure()), calls Session::recover() after each,
// and ends with verified work. Where recover() throws DeviceLostError it exits with
// kDeviceLostExitCode and the next worker goes on from the step after the fault.
TEST(GpuFaultWorker, Run) {
  const char* dir = std::getenv("TUNE_RUN_FAULT_DIR");
  const int generation = worker_generation();
  if (generation < 0 || dir == nullptr)
    GTEST_SKIP() << "runs only as the worker of Gpu.FaultsCostARecoveryOrAFreshProcess";
  const std::filesystem::path log = std::filesystem::path(dir) / "log", step_file = std::filesystem::path(dir) / "step";
  auto note = [&](const std::string& line) {
    std::ofstream(log, std::ios::app) << "worker " << generation << ": " << line << "\n";
  };
  auto die = [&](const std::string& why, int code) {
    note(why);
    std::fflush(stdout);
    std::_Exit(code);
  };
  int step = 0;
  std::ifstream(step_file) >> step;
  note("starts at step " + std::to_string(step));
  Session session(0);
  const std::vector<char> cubin = compile_cubin(session.device().arch);
  const int n = 1 << 16;
  ArgSet args(session,
              {buffer("y", n, FillKind::random, 1.0, true), buffer("x", n, FillKind::random, 1.0),
               scalar("a", "float", 2.0), scalar("n", "int32", n)},
              77);
  LoadedKernel saxpy(session, cubin, "saxpy");
  auto faulted = [&](const LaunchStatus& st, cudaError_t expected, int next) {
    if (!st.sticky() || st.code != expected)
      die("ERROR: expected a sticky " + std::string(cudaGetErrorName(expected)) + ", got: " + st.message, 1);
    note("fault: " + st.message);
    std::ofstream(step_file) << next;
    try {
      session.recover();
      note("recovered in process");
    } catch (const DeviceLostError& e) {
      die(std::string("device lost: ") + e.what(), kDeviceLostExitCode);
    }
  };
  if (step == 0) {
    ArgSet null_arg(session, {scalar("address", "uint64", 0)}, 0);
    LoadedKernel fault(session, cubin, "write_to");
    faulted(fault.launch({1}, {32}, 0, null_arg), cudaErrorIllegalAddress, 1);
    step = 1;
  }
  if (step == 1) {
    ArgSet target(session, {buffer("p", 16, FillKind::constant, 0.0, true)}, 0);
    LoadedKernel misaligned(session, cubin, "misaligned");
    const Timing t = measure(session, [&] { return misaligned.enqueue({1}, {1}, 0, target); });
    if (!t.samples_ms.empty()) die("ERROR: a faulting measure() returned samples", 1);
    faulted(t.status, cudaErrorMisalignedAddress, 2);
    step = 2;
  }
  // After the faults: inputs are the seeded ones, a kernel verifies, cuBLAS and timing work.
  const std::vector<float> y0 = host_floats(args, 0), x = host_floats(args, 1);
  if (args.buffer("y").download_as<float>() != y0) die("ERROR: y is not its seeded initial content", 1);
  const LaunchStatus st = saxpy.launch({n / 256}, {256}, 0, args);
  if (!st.ok()) die("ERROR: saxpy after the faults: " + st.message, 1);
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::fma(2.0f, x[i], y0[i]);
  const Comparison c = compare<float>(DType{}, args.buffer("y").download_as<float>(), ref, Tolerance::rel(1e-6), "y");
  if (!c.ok) die("ERROR: " + c.message, 1);
  TimingOptions o;
  o.min_samples = 5;
  o.flush_l2 = true;
  const Ceiling geam = cublas_sgeam_transpose(session, 1024, 1024, o);
  if (!geam.ok()) die("ERROR: sgeam after the faults: " + geam.timing.status.message + " " + geam.check, 1);
  const Timing t = measure(
      session, [&] { return saxpy.enqueue({n / 256}, {256}, 0, args); }, o);
  if (!t.ok()) die("ERROR: timing after the faults: " + t.status.message, 1);
  note("after the faults: saxpy verified (" + c.message + "), sgeam " + std::to_string(geam.value) +
       " GB/s verified, saxpy timed " + std::to_string(t.summary.mean) + " ms");
}

TEST_F(Gpu, FaultsCostARecoveryOrAFreshProcess) {
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("tune_run_fault_" + std::to_string(getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  setenv("TUNE_RUN_FAULT_DIR", dir.c_str(), 1);
  const Supervised r = supervise({"/proc/self/exe", "--gtest_filter=GpuFaultWorker.Run", "--gtest_brief=1"}, 5);
  unsetenv("TUNE_RUN_FAULT_DIR");
  std::stringstream text;
  text << std::ifstream(dir / "log").rdbuf();
  const std::string log = text.str();
  std::filesystem::remove_all(dir);
  std::printf("supervised workers: %d, exit %d\n%s", r.workers, r.exit_code, log.c_str());
  auto count = [&](const std::string& what) {
    int k = 0;
    for (std::size_t p = log.find(what); p != std::string::npos; p = log.find(what, p + 1)) ++k;
    return k;
  };
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(count("ERROR"), 0);
  EXPECT_EQ(count(": fault: "), 2);
  EXPECT_EQ(count("fault: kernel 'write_to' grid (1,1,1) block (32,1,1) dynamic smem 0: an illegal memory access"), 1);
  EXPECT_EQ(count("(cudaErrorMisalignedAddress)"), 1);
  EXPECT_EQ(count("device lost: ") + count("recovered in process"), 2);
  EXPECT_EQ(r.workers, 1 + count("device lost: "));
  EXPECT_EQ(count("after the faults: saxpy verified ('y': all 65536 elements match"), 1);
}

// Worker of Gpu.HealthyResetRestoresEverythingInPlace: recover() without a fault exercises the
// in-process path (reset, re-open, restore every resource) even where faults cost a process.
TEST(GpuResetWorker, Run) {
  if (worker_generation() < 0 || std::getenv("TUNE_RUN_RESET_WORKER") == nullptr)
    GTEST_SKIP() << "runs only as the worker of Gpu.HealthyResetRestoresEverythingInPlace";
  Session session(0);
  const std::vector<char> cubin = compile_cubin(session.device().arch);
  const int n = 1 << 16;
  ArgSet args(session,
              {buffer("y", n, FillKind::random, 1.0, true), buffer("x", n, FillKind::random, 1.0),
               scalar("a", "float", 2.0), scalar("n", "int32", n)},
              9);
  LoadedKernel saxpy(session, cubin, "saxpy");
  LoadedKernel reverse(session, cubin, "reverse_smem");
  ASSERT_TRUE(cublas_sgeam_transpose(session, 256, 512).ok());
  ASSERT_TRUE(saxpy.launch({n / 256}, {256}, 0, args).ok());
  const std::vector<float> y0 = host_floats(args, 0), x = host_floats(args, 1);
  ASSERT_NE(args.buffer("y").download_as<float>(), y0);  // the kernel changed y
  const void* old_handle = saxpy.handle();
  session.recover();
  EXPECT_EQ(session.recoveries(), 1u);
  EXPECT_EQ(args.buffer("y").download_as<float>(), y0);  // re-allocated and re-filled from the seed
  std::printf("kernel handle %s after recover\n", saxpy.handle() == old_handle ? "unchanged" : "changed");
  ASSERT_TRUE(saxpy.launch({n / 256}, {256}, 0, args).ok());
  std::vector<float> ref(n);
  for (int i = 0; i < n; ++i) ref[i] = std::fma(2.0f, x[i], y0[i]);
  const Comparison c = compare<float>(DType{}, args.buffer("y").download_as<float>(), ref, Tolerance::rel(1e-6), "y");
  EXPECT_TRUE(c.ok) << c.message;
  // The raised dynamic shared memory limit is raised again on the re-loaded kernel.
  const int m = 100 * 1024 / 4;
  ArgSet rev(session, {buffer("out", m, FillKind::constant, 0.0, true), scalar("n", "int32", m)}, 1);
  EXPECT_TRUE(reverse.launch({1}, {256}, m * sizeof(float), rev).ok());
  const Ceiling geam = cublas_sgeam_transpose(session, 256, 512);  // a new cuBLAS handle
  EXPECT_TRUE(geam.ok()) << geam.timing.status.message << " " << geam.check;
}

TEST_F(Gpu, HealthyResetRestoresEverythingInPlace) {
  setenv("TUNE_RUN_RESET_WORKER", "1", 1);
  const Supervised r = supervise({"/proc/self/exe", "--gtest_filter=GpuResetWorker.Run", "--gtest_brief=1"}, 1);
  unsetenv("TUNE_RUN_RESET_WORKER");
  EXPECT_EQ(r.exit_code, 0) << "the worker's failures are printed above";
  EXPECT_EQ(r.workers, 1);
}

}  // namespace
}  // namespace tune::run

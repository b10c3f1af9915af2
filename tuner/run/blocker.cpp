#include "run/blocker.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "common/error.h"
#include "compile/compile.h"
#include "run/l2_reset.h"

namespace tune::run {

namespace {

const std::string kSource = std::string(R"(
// Waits until the host's release counter reaches `ticket`: a counter, not a flag, so a hold that
// starts late never misses its release and never sees the next hold's reset.
extern "C" __global__ void tune_block_stream(const volatile unsigned long long* released, volatile int* timed_out,
                                             unsigned long long timeout_ns, unsigned long long ticket) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  while (released[0] < ticket) {
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
    if (now - start > timeout_ns) {
      timed_out[0] = 1;
      return;
    }
  }
}

// Every SM busy for `ns` nanoseconds: brings the clocks up (timing.h: settle_clocks).
extern "C" __global__ void tune_busy(unsigned long long ns, float* sink) {
  unsigned long long start, now;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
  float a = threadIdx.x, b = 1.0001f;
  do {
    for (int i = 0; i < 256; ++i) a = fmaf(a, b, 0.5f);
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  } while (now - start < ns);
  if (a == 0.0f) sink[0] = a;  // never true: keeps the loop
}

)") + std::string(l2_reset::kSource);

}  // namespace

compile::CompileRequest Blocker::request(const std::string& arch) {
  compile::CompileRequest r;
  r.source = kSource;
  r.source_name = "tune_block_stream.cu";
  r.kernel_name = "tune_block_stream";
  r.arch = arch;
  return r;
}

namespace {
// Compiled once per architecture in a process: every context's blocker (context.h) loads the same.
std::mutex cubins_mutex;
std::map<std::string, std::vector<char>> cubins;
std::future<void> precompiling;  // Blocker::precompile; waited for at exit

std::vector<char> cubin_for(const std::string& arch) {
  const std::lock_guard<std::mutex> lock(cubins_mutex);
  auto it = cubins.find(arch);
  if (it == cubins.end()) {
    auto res = compile::compile(Blocker::request(arch));
    if (!res.ok()) throw Error("the stream-blocking kernel does not compile: " + res.log);
    it = cubins.emplace(arch, std::vector<char>(res.cubin.begin(), res.cubin.end())).first;
  }
  return it->second;
}
}  // namespace

void Blocker::precompile(const std::string& arch) {
  const std::lock_guard<std::mutex> lock(cubins_mutex);
  if (precompiling.valid() || cubins.contains(arch)) return;
  precompiling = std::async(std::launch::async, [arch] {
    try {
      cubin_for(arch);
    } catch (const Error&) {  // the first Blocker compiles it again and reports the error
    }
  });
}

Blocker::Blocker(Session& session) : session_(session), epoch_(context_epoch()) {
  const compile::CompileRequest r = request(session.device().arch);
  const std::vector<char> cubin = cubin_for(r.arch);
  kernel_ = std::make_unique<LoadedKernel>(session, cubin, r.kernel_name);
  busy_ = std::make_unique<LoadedKernel>(session, cubin, "tune_busy");
  discard_ = std::make_unique<LoadedKernel>(session, cubin, std::string(l2_reset::kKernelName));
  void* host = nullptr;
  check(cudaHostAlloc(&host, sizeof(Mapped), cudaHostAllocMapped), "cudaHostAlloc of the blocking flag");
  host_ = static_cast<volatile Mapped*>(host);
  host_->released = 0;
  host_->timed_out = 0;
  void* dev = nullptr;
  check(cudaHostGetDevicePointer(&dev, host, 0), "cudaHostGetDevicePointer of the blocking flag");
  device_ = static_cast<Mapped*>(dev);
}

Blocker::~Blocker() {
  // Pinned memory of a reset context went with it.
  if (host_ != nullptr && epoch_ == context_epoch()) (void)cudaFreeHost(const_cast<Mapped*>(host_));
}

bool Blocker::valid() const { return epoch_ == context_epoch(); }

LaunchStatus Blocker::hold() {
  unsigned long long* released = &device_->released;
  int* timed_out = &device_->timed_out;
  unsigned long long timeout = kTimeoutNs;
  unsigned long long ticket = issued_ + 1;
  void* args[] = {&released, &timed_out, &timeout, &ticket};
  const cudaError_t code = cudaLaunchKernel(kernel_->handle(), dim3(1), dim3(1), args, 0, nullptr);
  if (code != cudaSuccess) return classify(code, "the stream-blocking kernel");
  ++issued_;
  return {};
}

LaunchStatus Blocker::busy(std::uint64_t ns) {
  unsigned long long duration = ns;
  float* sink = nullptr;
  void* args[] = {&duration, &sink};
  const auto blocks = static_cast<unsigned>(std::max(1, session_.device().sm_count) * 4);
  const cudaError_t code = cudaLaunchKernel(busy_->handle(), dim3(blocks), dim3(256), args, 0, nullptr);
  return code == cudaSuccess ? LaunchStatus{} : classify(code, "the clock warm-up kernel");
}

LaunchStatus Blocker::discard_l2(const DeviceBuffer& buffer) {
  char* ptr = static_cast<char*>(buffer.data());
  unsigned long long n = buffer.bytes();
  void* args[] = {&ptr, &n};
  const cudaError_t code = cudaLaunchKernel(discard_->handle(), dim3(l2_reset::blocks(session_.device().sm_count)),
                                            dim3(l2_reset::kThreads), args, 0, nullptr);
  return code == cudaSuccess ? LaunchStatus{} : classify(code, "the L2 discard kernel");
}

void Blocker::release() {
  std::atomic_thread_fence(std::memory_order_seq_cst);
  host_->released = issued_;
  std::atomic_thread_fence(std::memory_order_seq_cst);
}

bool Blocker::timed_out() {
  const bool out = host_->timed_out != 0;
  host_->timed_out = 0;
  return out;
}

}  // namespace tune::run

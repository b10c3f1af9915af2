// Blocker: holds the legacy default stream on a kernel that spins on a host-mapped flag while the
// timed launches are enqueued behind it, then releases them at once, so that they run back to back
// and no host jitter (a slow cudaLaunchKernel, a descheduled thread) falls inside a sample. The
// spin has a timeout (on %globaltimer): if the host cannot release it in time, because the launch
// queue filled up or the thread stalled, the kernel ends by itself and the release reports it, so
// a measurement can never hang; the caller takes those samples again with fewer launches.
// Owned by the Session (Session::blocker()), re-created after a recovery.
#pragma once
#include <cstdint>
#include <memory>
#include <string>

#include "compile/compile.h"
#include "run/cuda.h"
#include "run/kernel.h"
#include "run/session.h"

namespace tune::run {

class Blocker {
 public:
  // Compiles the spin kernel (NVRTC) for the session's device and maps the flag. Throws Error /
  // CudaError.
  explicit Blocker(Session& session);
  ~Blocker();
  Blocker(const Blocker&) = delete;
  Blocker& operator=(const Blocker&) = delete;

  // Enqueues the spin kernel: what is enqueued after it waits for release().
  LaunchStatus hold();
  // Lets the stream go on. Call after the work behind hold() is enqueued; synchronise afterwards.
  void release();
  // After the synchronisation: whether the spin ended by its timeout instead of release() (the
  // samples behind it may hold host gaps: take them again).
  bool timed_out() const { return host_[1] != 0; }
  bool valid() const;  // false after a device reset
  // Enqueues a kernel that keeps every SM busy for `ns` nanoseconds (warming the clocks).
  LaunchStatus busy(std::uint64_t ns);

  // Launches behind one hold, at most: the launch queue of the driver holds about a thousand
  // entries; events and the spin kernel take their share.
  static constexpr int kMaxLaunchesPerHold = 256;
  static constexpr std::uint64_t kTimeoutNs = 1'000'000'000;  // 1 s

  // The NVRTC request of its kernels for `arch`: tests compile it without a GPU.
  static compile::CompileRequest request(const std::string& arch);

 private:
  Session& session_;
  std::unique_ptr<LoadedKernel> kernel_, busy_;
  volatile int* host_ = nullptr;  // [0] the flag, [1] timed out
  int* device_ = nullptr;
  std::uint64_t epoch_ = 0;
};

}  // namespace tune::run

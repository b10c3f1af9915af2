// Blocker: holds the legacy default stream on a kernel that spins on a host-mapped counter while a
// batch of timed launches is enqueued behind it, then releases it, so that the batch runs back to
// back and no host jitter (a slow cudaLaunchKernel, a descheduled thread) falls inside a sample.
// Each batch has its own hold (a ticket): the host enqueues the next batch while the GPU runs the
// one before, and the gaps between batches fall outside the events. The
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

  // Enqueues the spin kernel: what is enqueued after it waits for the next release(). Holds may
  // follow each other before the GPU reaches them: each waits for its own release.
  LaunchStatus hold();
  // Lets the work behind the last hold() go on. Call after it is enqueued.
  void release();
  // After a synchronisation: whether a spin ended by its timeout instead of its release since the
  // last call (the samples behind it may hold host gaps: take them again).
  bool timed_out();
  bool valid() const;  // false after a device reset
  // Enqueues a kernel that keeps every SM busy for `ns` nanoseconds (warming the clocks).
  LaunchStatus busy(std::uint64_t ns);
  // Enqueues a kernel that drops `buffer`'s lines from L2 without writing them back: after a
  // write of twice the L2's size, the L2 is empty (timing.h).
  LaunchStatus discard_l2(const DeviceBuffer& buffer);

  // Launches behind one hold, at most: the launch queue of the driver holds about a thousand
  // entries; events and the spin kernel take their share.
  static constexpr int kMaxLaunchesPerHold = 256;
  static constexpr std::uint64_t kTimeoutNs = 1'000'000'000;  // 1 s

  // The NVRTC request of its kernels for `arch`: tests compile it without a GPU.
  static compile::CompileRequest request(const std::string& arch);
  // Starts compiling the kernels for `arch` on a thread of its own (NVRTC only), so that the
  // process's first Blocker finds them compiled; a no-op once started or done.
  static void precompile(const std::string& arch);

 private:
  Session& session_;
  std::unique_ptr<LoadedKernel> kernel_, busy_, discard_;
  struct Mapped {
    unsigned long long released;  // the last ticket released
    int timed_out;
  };
  volatile Mapped* host_ = nullptr;  // host-mapped
  Mapped* device_ = nullptr;         // the same memory, as the device sees it
  unsigned long long issued_ = 0;    // the last ticket handed to a hold
  std::uint64_t epoch_ = 0;
};

}  // namespace tune::run

// Session: owns the device for one tuning run and everything that lives in its CUDA context, so
// that a configuration which faults the context (illegal address, misaligned address, launch
// timeout) costs one recover() instead of the run.
//
// In-process recovery needs a driver that lets the process create a new context after a fault;
// where it does not (driver 580, see isolate.h), recover() throws DeviceLostError and the run
// continues in a new worker process instead. Both paths end with the faulty configuration
// recorded and the run going on.
//
// Ownership: GPU resources (ArgSet, LoadedKernel) are created by the caller against a Session and
// register themselves with it for their lifetime. recover() resets the device (cudaDeviceReset),
// re-opens it and asks every registered resource to re-create its device state in place: ArgSets
// re-allocate and re-fill their buffers from the same seed, LoadedKernels re-load their library
// from the cubin bytes they keep and re-fetch the kernel. References the caller holds therefore
// stay valid; only raw device pointers / cudaKernel_t values copied out of them go stale.
// Session-owned helpers (the L2 flush buffer, the cuBLAS handle) are re-created on next use.
#pragma once
#include <cstddef>
#include <cstdint>
#include <future>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "run/buffer.h"
#include "run/cuda.h"
#include "run/device.h"

namespace tune::run {

class Session;
class Context;
class BlasHandle;
class Blocker;
class Nvml;

// Base of every object whose device state must survive Session::recover(). Registers with the
// session on construction, unregisters on destruction; neither copyable nor movable (the session
// holds its address). The session must outlive its resources.
class Recoverable {
 public:
  explicit Recoverable(Session& session);
  virtual ~Recoverable();
  Recoverable(const Recoverable&) = delete;
  Recoverable& operator=(const Recoverable&) = delete;

  Session& session() const { return session_; }

 protected:
  friend class Session;
  // Called after the device was reset and re-opened: re-create all device state. Handles from
  // the old context must be dropped without CUDA calls (the RAII types of this module do that by
  // themselves, see context_epoch()).
  virtual void restore() = 0;

 private:
  Session& session_;
};

class Session {
 public:
  // Opens the device (open_device): throws UnavailableError without a GPU.
  explicit Session(int ordinal = 0);
  // A session in a CUDA context of its own (context.h) on `primary`'s device, to measure in
  // another context than the primary's: its device info is the primary's (cudaSetDevice would
  // bind the primary context), its clocks count as settled (the primary's warm-up holds for the
  // device). Create, use and destroy every resource of it inside ContextScope(*context()).
  // recover() throws: a fault there is handled in the primary session. Throws CudaError.
  struct OwnContext {};
  Session(const Session& primary, OwnContext);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  const DeviceInfo& device() const { return device_; }
  // The context of a session made with OwnContext; nullptr for the primary one.
  const Context* context() const { return own_.get(); }

  // After a LaunchStatus with sticky() (or a CudaError with sticky()): cudaDeviceReset, re-open
  // the device and check it with an allocation, memset and read-back, then re-create every
  // registered resource. Throws DeviceLostError (isolate.h) when the driver will not give the
  // device back to this process — which is what driver 580 does on the H100/H200 machines: the
  // CUDA documentation only promises recovery by restarting the process. Then record the
  // faulty configuration and let supervise() continue the run in a fresh worker process.
  void recover();
  // How many times recover() ran.
  std::size_t recoveries() const { return recoveries_; }

  // Waits for all work; LaunchStatus classifies a failure (`what` names the work).
  LaunchStatus synchronize(const std::string& what);

  // 2 x L2 bytes of device memory, allocated on first use, for TimingOptions::flush_l2.
  DeviceBuffer& l2_flush_buffer();
  // The session's cuBLAS handle, created on first use (ceilings.h).
  BlasHandle& blas();
  // Starts creating the cuBLAS handle on a thread of its own, so that blas() finds it made: cuBLAS
  // takes over a second to create its first handle on an H100 host, on the CPU. The primary
  // context's session only (others create theirs on first use).
  void prepare_blas();
  // Whether blas() returns at once: no handle is being made on prepare_blas's thread.
  bool blas_ready() const;
  // At least `n` CUDA events of this session's context, created on first use and reused (timing
  // rounds): the first n of them. Made again after a device reset.
  std::span<Event> events(std::size_t n);
  // The stream-blocking kernel of the timing method (blocker.h), created on first use.
  Blocker& blocker();
  // NVML for this device (nvml.h), opened on first use; nullptr without NVML (clocks_note() says why).
  const Nvml* nvml();
  std::string clocks_note();
  // Why nvml() is nullptr ("" before it was tried or when it opened).
  const std::string& nvml_why() const { return nvml_why_; }
  // Whether the clocks were warmed up and settled already (timing.h: settle_clocks), once per session.
  bool clocks_settled = false;
  // Measurements in a row whose rounds stayed throttled through their retakes (timing.h: clocks).
  int throttled_in_a_row = 0;

 private:
  friend class Recoverable;
  void add(Recoverable* resource);
  void remove(Recoverable* resource) noexcept;

  DeviceInfo device_;
  std::unique_ptr<Context> own_;  // OwnContext: destroyed last
  std::vector<Recoverable*> resources_;
  DeviceBuffer l2_flush_;
  std::vector<Event> events_;
  std::uint64_t events_epoch_ = 0;
  std::unique_ptr<BlasHandle> blas_;
  std::future<std::unique_ptr<BlasHandle>> blas_making_;  // prepare_blas; after blas_, so it goes first
  std::unique_ptr<Blocker> blocker_;
  std::unique_ptr<Nvml> nvml_;
  bool nvml_tried_ = false;
  std::string nvml_why_;
  std::size_t recoveries_ = 0;
};

}  // namespace tune::run

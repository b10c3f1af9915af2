#include "run/session.h"

#include <algorithm>

#include <cuda_runtime_api.h>

#include "common/ready.h"
#include "run/blocker.h"
#include "run/ceilings.h"
#include "run/context.h"
#include "run/cuda.h"
#include "run/isolate.h"
#include "run/l2_reset.h"
#include "run/nvml.h"

namespace tune::run {

Recoverable::Recoverable(Session& session) : session_(session) { session_.add(this); }

Recoverable::~Recoverable() { session_.remove(this); }

Session::Session(int ordinal) : device_(open_device(ordinal)) {}

Session::Session(const Session& primary, OwnContext)
    : clocks_settled(true), device_(primary.device_), own_(std::make_unique<Context>(primary.device_.ordinal)) {}

Session::~Session() {
  if (!own_) return;
  // the session's own helpers go while their context is current, then the context
  try {
    const ContextScope scope(*own_);
    l2_flush_ = DeviceBuffer();
    events_.clear();
    blas_.reset();
    blocker_.reset();
  } catch (const CudaError&) {  // the context cannot be made current: its memory goes with it
  }
}

void Session::add(Recoverable* resource) { resources_.push_back(resource); }

void Session::remove(Recoverable* resource) noexcept {
  const auto it = std::find(resources_.begin(), resources_.end(), resource);
  if (it != resources_.end()) resources_.erase(it);
}

void Session::recover() {
  if (own_) throw CudaError(cudaErrorUnknown, "a session of its own context cannot recover (run/session.h)", true);
  const int ordinal = device_.ordinal;
  const std::string lost =
      "device " + std::to_string(ordinal) + " cannot be used again by this process after a fault (";
  const std::string restart =
      "): the driver requires a new process; record the configuration and exit with "
      "kDeviceLostExitCode so supervise() resumes the run (run/isolate.h)";
  if (blas_making_.valid()) blas_making_.wait();  // no cuBLAS call runs through the reset
  const cudaError_t reset = reset_current_device();
  // Session-owned handles are dropped after the reset: their destructors then see the old epoch
  // and make no CUDA calls into the dead context.
  l2_flush_ = DeviceBuffer();
  blas_making_ = {};  // waited for before the reset (above): made in the old context, dropped now
  blas_.reset();
  blocker_.reset();
  if (reset != cudaSuccess) throw DeviceLostError(reset, lost + "cudaDeviceReset: " + describe(reset) + restart, true);
  try {
    device_ = open_device(ordinal);
    DeviceBuffer probe(4096);
    probe.memset(0x5A);
    const std::vector<std::byte> back = probe.download();
    if (std::any_of(back.begin(), back.end(), [](std::byte b) { return b != std::byte{0x5A}; }))
      throw CudaError(cudaErrorUnknown, "a test memset read back wrong", true);
  } catch (const CudaError& e) {
    // Measured with driver 580: cudaErrorDevicesUnavailable from here on, whatever we do.
    std::string cause = e.what();
    const std::string suffix = "; the CUDA context is lost until Session::recover()";
    if (cause.size() > suffix.size() && cause.compare(cause.size() - suffix.size(), suffix.size(), suffix) == 0)
      cause.resize(cause.size() - suffix.size());
    throw DeviceLostError(e.code(), lost + cause + restart, true);
  } catch (const Error& e) {  // open_device: UnavailableError, InputError
    throw DeviceLostError(cudaErrorUnknown, lost + e.what() + restart, true);
  }
  // Registration order is creation order: an ArgSet restores before a kernel created later.
  const std::vector<Recoverable*> resources = resources_;
  for (Recoverable* r : resources) r->restore();
  ++recoveries_;
}

LaunchStatus Session::synchronize(const std::string& what) { return classify(cudaDeviceSynchronize(), what); }

DeviceBuffer& Session::l2_flush_buffer() {
  if (l2_flush_.bytes() == 0 || !l2_flush_.valid()) l2_flush_ = DeviceBuffer(l2_reset::bytes(device_.l2_bytes));
  return l2_flush_;
}

std::span<Event> Session::events(std::size_t n) {
  if (events_epoch_ != context_epoch()) {
    events_.clear();  // died with the old context: dropped without CUDA calls (cuda.h)
    events_epoch_ = context_epoch();
  }
  while (events_.size() < n) events_.emplace_back();
  return std::span<Event>(events_).first(n);
}

Blocker& Session::blocker() {
  if (!blocker_ || !blocker_->valid()) blocker_ = std::make_unique<Blocker>(*this);
  return *blocker_;
}

const Nvml* Session::nvml() {
  if (!nvml_tried_) {
    nvml_tried_ = true;
    char bus[64] = {};
    if (cudaDeviceGetPCIBusId(bus, sizeof bus, device_.ordinal) == cudaSuccess) {
      nvml_ = Nvml::open(bus);
      nvml_why_ = Nvml::why();
    } else {
      nvml_why_ = "the device's PCI bus id is unknown";
    }
  }
  return nvml_.get();
}

std::string Session::clocks_note() {
  return nvml() ? "SM clock and throttling watched through NVML" : "clocks not monitored (" + nvml_why_ + ")";
}

BlasHandle& Session::blas() {
  if (blas_making_.valid()) blas_ = blas_making_.get();  // its error, if any, is this call's
  if (!blas_ || !blas_->valid()) blas_ = std::make_unique<BlasHandle>();
  return *blas_;
}

bool Session::blas_ready() const { return ready(blas_making_); }

void Session::prepare_blas() {
  if (own_ || blas_ || blas_making_.valid()) return;
  blas_making_ = std::async(std::launch::async, [ordinal = device_.ordinal] {
    check(cudaSetDevice(ordinal), "cudaSetDevice");  // the primary context of the session's device
    return std::make_unique<BlasHandle>();
  });
}

}  // namespace tune::run

#include "run/session.h"

#include <algorithm>

#include "run/ceilings.h"
#include "run/cuda.h"

namespace tune::run {

Recoverable::Recoverable(Session& session) : session_(session) { session_.add(this); }

Recoverable::~Recoverable() { session_.remove(this); }

Session::Session(int ordinal) : device_(open_device(ordinal)) {}

Session::~Session() = default;

void Session::add(Recoverable* resource) { resources_.push_back(resource); }

void Session::remove(Recoverable* resource) noexcept {
  const auto it = std::find(resources_.begin(), resources_.end(), resource);
  if (it != resources_.end()) resources_.erase(it);
}

void Session::recover() {
  const int ordinal = device_.ordinal;
  // Session-owned handles are dropped after the reset: their destructors then see the old epoch
  // and make no CUDA calls into the dead context.
  const cudaError_t reset = reset_current_device();
  l2_flush_ = DeviceBuffer();
  blas_.reset();
  if (reset != cudaSuccess)
    throw CudaError(reset, "cudaDeviceReset while recovering device " + std::to_string(ordinal) +
                               ": " + describe(reset), true);
  device_ = open_device(ordinal);
  {
    DeviceBuffer probe(4096);
    probe.memset(0x5A);
    const std::vector<std::byte> back = probe.download();
    if (std::any_of(back.begin(), back.end(), [](std::byte b) { return b != std::byte{0x5A}; }))
      throw CudaError(cudaErrorUnknown, "device " + std::to_string(ordinal) +
                                            " did not work after cudaDeviceReset: restart the process", true);
  }
  // Registration order is creation order: an ArgSet restores before a kernel created later.
  const std::vector<Recoverable*> resources = resources_;
  for (Recoverable* r : resources) r->restore();
  ++recoveries_;
}

LaunchStatus Session::synchronize(const std::string& what) {
  return classify(cudaDeviceSynchronize(), what);
}

DeviceBuffer& Session::l2_flush_buffer() {
  if (l2_flush_.bytes() == 0 || !l2_flush_.valid()) l2_flush_ = DeviceBuffer(2 * device_.l2_bytes);
  return l2_flush_;
}

BlasHandle& Session::blas() {
  if (!blas_ || !blas_->valid()) blas_ = std::make_unique<BlasHandle>();
  return *blas_;
}

}  // namespace tune::run

#include "run/cuda.h"

#include <atomic>
#include <utility>

namespace tune::run {
namespace {
std::atomic<std::uint64_t> g_epoch{1};
}  // namespace

std::string describe(cudaError_t code) {
  return std::string(cudaGetErrorString(code)) + " (" + cudaGetErrorName(code) + ")";
}

bool is_sticky_code(cudaError_t code) {
  switch (code) {
    case cudaErrorIllegalAddress:
    case cudaErrorLaunchTimeout:
    case cudaErrorAssert:
    case cudaErrorHardwareStackError:
    case cudaErrorIllegalInstruction:
    case cudaErrorMisalignedAddress:
    case cudaErrorInvalidAddressSpace:
    case cudaErrorInvalidPc:
    case cudaErrorLaunchFailure:
    case cudaErrorTensorMemoryLeak:
    case cudaErrorECCUncorrectable:
    case cudaErrorContextIsDestroyed:
      return true;
    default:
      return false;
  }
}

bool context_lost(cudaError_t code) {
  if (code == cudaSuccess) return false;
  (void)cudaGetLastError();  // clears a non-sticky error; a sticky one stays
  if (is_sticky_code(code)) return true;
  // A poisoned context answers every call with its sticky error, synchronisation included.
  const cudaError_t probe = cudaDeviceSynchronize();
  (void)cudaGetLastError();
  return probe != cudaSuccess && probe != cudaErrorInsufficientDriver && probe != cudaErrorNoDevice;
}

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::ok:
      return "ok";
    case Outcome::out_of_resources:
      return "out_of_resources";
    case Outcome::invalid_config:
      return "invalid_config";
    case Outcome::fault:
      return "fault";
    case Outcome::error:
      return "error";
  }
  return "?";
}

LaunchStatus classify(cudaError_t code, const std::string& what) {
  LaunchStatus status;
  status.code = code;
  if (code == cudaSuccess) return status;
  if (code == cudaErrorLaunchOutOfResources) {
    (void)cudaGetLastError();
    status.outcome = Outcome::out_of_resources;
  } else if (code == cudaErrorInvalidConfiguration) {
    (void)cudaGetLastError();
    status.outcome = Outcome::invalid_config;
  } else {
    status.outcome = context_lost(code) ? Outcome::fault : Outcome::error;
  }
  status.message = what + ": " + describe(code);
  if (status.sticky()) status.message += "; the CUDA context is lost until Session::recover()";
  return status;
}

void check(cudaError_t code, std::string_view what) {
  if (code == cudaSuccess) return;
  const bool sticky = context_lost(code);
  std::string message = std::string(what) + ": " + describe(code);
  if (sticky) message += "; the CUDA context is lost until Session::recover()";
  throw CudaError(code, message, sticky);
}

std::uint64_t context_epoch() { return g_epoch.load(); }

cudaError_t reset_current_device() {
  const cudaError_t status = cudaDeviceReset();
  g_epoch.fetch_add(1);
  return status;
}

Event::Event() : epoch_(context_epoch()) { check(cudaEventCreate(&event_), "cudaEventCreate"); }

Event::~Event() { release(); }

Event::Event(Event&& other) noexcept : event_(std::exchange(other.event_, nullptr)), epoch_(other.epoch_) {}

Event& Event::operator=(Event&& other) noexcept {
  if (this != &other) {
    release();
    event_ = std::exchange(other.event_, nullptr);
    epoch_ = other.epoch_;
  }
  return *this;
}

void Event::release() noexcept {
  if (event_ != nullptr && epoch_ == context_epoch()) (void)cudaEventDestroy(event_);
  event_ = nullptr;
}

}  // namespace tune::run

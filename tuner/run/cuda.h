// CUDA runtime error handling shared by the run module: one-line messages, sticky-error
// classification, and the context epoch that makes RAII handles safe across cudaDeviceReset.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include <cuda_runtime_api.h>

#include "common/error.h"

namespace tune::run {

// A CUDA runtime call failed. sticky() is true when the error poisoned the context (illegal
// address, misaligned address, launch timeout, ...): every later call fails until
// Session::recover() resets the device.
class CudaError : public Error {
 public:
  CudaError(cudaError_t code, const std::string& message, bool sticky) : Error(message), code_(code), sticky_(sticky) {}
  cudaError_t code() const { return code_; }
  bool sticky() const { return sticky_; }

 private:
  cudaError_t code_;
  bool sticky_;
};

// What became of a launch (or of a timed series of launches). Launch failures are results, not
// exceptions: the tuner records them per configuration and goes on.
enum class Outcome {
  ok,
  out_of_resources,  // too many threads for the registers, too much shared memory, ...
  invalid_config,    // block or grid shape the device cannot launch
  fault,             // sticky error while running (illegal/misaligned address, timeout, trap):
                     // the context is lost, Session::recover() must run before any CUDA call
  error,             // any other CUDA error (not sticky)
};

// "ok", "out_of_resources", "invalid_config", "fault", "error".
const char* outcome_name(Outcome outcome);

struct LaunchStatus {
  Outcome outcome = Outcome::ok;
  cudaError_t code = cudaSuccess;
  std::string message;  // one line naming what was launched and why it failed; empty when ok

  bool ok() const { return outcome == Outcome::ok; }
  bool sticky() const { return outcome == Outcome::fault; }
};

// Classifies `code` returned by a launch or by the synchronisation after it; clears non-sticky
// error state. `what` names the launch ("kernel 'transpose' grid (64,64,1) block (32,8,1)").
LaunchStatus classify(cudaError_t code, const std::string& what);

// "an illegal memory access was encountered (cudaErrorIllegalAddress)".
std::string describe(cudaError_t code);

// True for the error codes that CUDA documents as leaving the context unusable.
bool is_sticky_code(cudaError_t code);

// After `code` was returned: clears the non-sticky error state and probes whether the context is
// still usable. True when the context is poisoned (by `code` or by an earlier fault).
bool context_lost(cudaError_t code);

// Throws CudaError("<what>: <describe(code)>") unless code == cudaSuccess.
void check(cudaError_t code, std::string_view what);

// Every cudaDeviceReset done by this module increments the epoch. Handles remember the epoch they
// were created in; a handle from an older epoch died with its context and is dropped without a
// CUDA call (cudaFree on it would be meaningless or fail).
std::uint64_t context_epoch();

// cudaDeviceReset on the current device and epoch increment; returns the reset's status.
cudaError_t reset_current_device();

// RAII CUDA event (cudaEventDefault: timing enabled).
class Event {
 public:
  Event();
  ~Event();
  Event(Event&& other) noexcept;
  Event& operator=(Event&& other) noexcept;
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  cudaEvent_t get() const { return event_; }

 private:
  void release() noexcept;
  cudaEvent_t event_ = nullptr;
  std::uint64_t epoch_ = 0;
};

}  // namespace tune::run

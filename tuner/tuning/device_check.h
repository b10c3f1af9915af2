// Verification on the device: each configuration's float outputs are compared with the reference
// outputs kept in device memory by one small kernel, so that checking a 1 GiB output costs a
// kernel launch instead of a download (poisoned, unwritten elements are NaN and always differ).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "run/args.h"
#include "run/buffer.h"
#include "run/kernel.h"
#include "run/session.h"

namespace tune::tuning {

class DeviceCheck {
 public:
  // Compiles the comparison kernel for the session's architecture.
  explicit DeviceCheck(run::Session& session);

  // Keeps a device copy of every output of `args` (what the reference kernel just wrote).
  void keep_reference(run::ArgSet& args, const std::vector<std::size_t>& outputs);
  bool has_reference() const { return !refs_.empty(); }

  // Compares every output with its reference; empty when all match, else one line.
  std::string compare(run::ArgSet& args, const std::vector<std::size_t>& outputs, double relative, double absolute);

  // Device memory is gone after Session::recover(): the caller keeps the reference again.
  void forget() { refs_.clear(); }

 private:
  run::Session& session_;
  std::unique_ptr<run::LoadedKernel> kernel_;
  std::vector<run::DeviceBuffer> refs_;
  run::DeviceBuffer result_;
};

}  // namespace tune::tuning

// Verification on the device: each configuration's outputs, of any type, are compared with the
// reference outputs kept in device memory by a kernel (verify.h's compare on DeviceBuffers,
// device_ops.h), so that checking a 1 GiB output costs a kernel launch instead of a download
// (poisoned, unwritten elements always differ).
// A spec with Tune.check replaces that comparison by its own check kernel (run_check).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "run/args.h"
#include "run/buffer.h"
#include "run/kernel.h"
#include "run/session.h"

namespace tune::run {

// The parameter sizes a check kernel must have (Tune.check): the kernel's arguments (a scalar its
// type's bytes, a CUtensorMap its 128, a buffer a pointer), one pointer per output and the result
// pointer.
std::vector<std::size_t> check_parameter_sizes(const std::vector<ArgSpec>& arguments, std::size_t outputs);

class DeviceCheck {
 public:
  explicit DeviceCheck(Session& session) : session_(session) {}

  // Keeps a device copy of every output of `args` (what the reference kernel just wrote).
  void keep_reference(ArgSet& args, const std::vector<std::size_t>& outputs);
  bool has_reference() const { return !refs_.empty(); }

  // Compares every output with its reference; empty when all match, else one line.
  std::string compare(ArgSet& args, const std::vector<std::size_t>& outputs, double relative, double absolute);

  // Tune.check: launches `check` with the arguments of `args` (the kernel's own, in the spec's
  // order), then one device pointer per kept reference output (in the order of `outputs`), then
  // an unsigned long long* result that starts as {0, ~0}: result[0] counts errors, result[1] is
  // the first bad element. `error` is empty when the count is 0, else "check kernel <name>: N
  // errors, first at element I" (with the values at I of the first output and its reference:
  // floats, integers, 64-bit unsigned in hex). Launch failures and faults come back in `status`
  // (sticky: recover). Throws InputError when the kernel's parameters do not match that list.
  struct CheckResult {
    LaunchStatus status;
    std::string error;
  };
  CheckResult run_check(LoadedKernel& judge, Dim3 grid, Dim3 block, ArgSet& args,
                        const std::vector<std::size_t>& outputs);

  // Device memory is gone after Session::recover(): the caller keeps the reference again.
  void forget() { refs_.clear(); }

 private:
  Session& session_;
  std::vector<DeviceBuffer> refs_;
  DeviceBuffer result_;
};

}  // namespace tune::run

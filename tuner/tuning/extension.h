// Our extensions of the T1 format, all under one top-level key "Tune" (spaces/README.md):
//   "bytes":  expression, bytes read + written by one launch (gives GB/s)
//   "flops":  expression, floating-point operations of one launch (gives GFLOP/s)
//   "ceilings": names of run/ceiling_kinds.h (d2d_copy, fp32_peak, cublas_sgeam, cublas_sgemm,
//               cublas_sgemm_argmax), measured at every size in the same run
//   "reference": {"KernelName": ..., "LocalSize": {X,Y,Z}, "GlobalSize": {X,Y,Z} (grid in blocks)}:
//               an independent kernel in the same KernelFile, compiled with every parameter at its
//               "Default", run on the same inputs; every configuration's outputs must match it
//   "check":    same shape as "reference" (needs it): a kernel that judges a configuration's outputs
//               in place of the element-wise comparison; it takes the kernel's arguments, then one
//               pointer per output to the reference's copy of it, then unsigned long long* result
//               (result[0] = error count, result[1] = first bad element index)
//   "tolerance": {"relative": r, "absolute": a} for that comparison (default exact)
//   "fill_values": {"arg": expression}: a scalar argument's value per size (launch.h)
//   "statistic": "mean" (default, Kernel Tuner's `time`) or "median": the objective's statistic of
//               the timing samples, which every ranking uses (decision/decision.h)
// Expressions see the parameters (configuration values) and ProblemSize.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "decision/decision.h"
#include "spec/bind.h"
#include "spec/spec.h"

namespace tune::tuning {

struct Reference {
  std::string kernel_name;
  std::array<std::optional<spec::Expression>, 3> block, grid;
};

struct Extension {
  std::optional<spec::Expression> bytes, flops;
  std::vector<std::string> ceilings;
  std::optional<Reference> reference;
  std::optional<Reference> check;  // Tune.check: same fields as the reference
  double relative_tolerance = 0, absolute_tolerance = 0;
  decision::Statistic statistic = decision::Statistic::mean;
};

// Throws InputError (naming the spec and "Tune.<key>") on anything malformed.
Extension parse_extension(const spec::Spec& spec);

// The defines and the Default values live in spec/bind.h.
using spec::default_values;
using spec::defines;

}  // namespace tune::tuning

// Our extensions of the T1 format, all under one top-level key "Tune" (spaces/README.md):
//   "bytes":  expression, bytes read + written by one launch (gives GB/s)
//   "flops":  expression, floating-point operations of one launch (gives GFLOP/s)
//   "ceilings": names of spec/ceilings.h (d2d_copy, fp32_peak, cublas_sgeam, cublas_sgemm,
//               cublas_gemm_tf32, cublas_gemm_bf16x9, cublas_sgemm_argmax), measured at every size
//               in the same run
//   "reference": {"KernelName": ..., "LocalSize": {X,Y,Z}, "GlobalSize": {X,Y,Z} (grid in blocks)}:
//               an independent kernel in the same KernelFile, compiled with every parameter at its
//               "Default", run on the same inputs; every configuration's outputs must match it
//   "check":    same shape as "reference" (needs it): a kernel that judges a configuration's outputs
//               in place of the element-wise comparison; it takes the kernel's arguments, then one
//               pointer per output to the reference's copy of it, then unsigned long long* result
//               (result[0] = error count, result[1] = first bad element index)
//   "tolerance": {"relative": r, "absolute": a} for that comparison (default exact)
//   "fill_values": {"arg": expression}: a scalar argument's value per size (bind.h)
//   "statistic": "mean" (default, Kernel Tuner's `time`) or "median": the objective's statistic of
//               the timing samples, which every ranking uses (decision/decision.h)
//   "policy":   {"key": value, ...}: the measurement and decision policy's overrides
//               (decision/policy.h: "tie_margin", "min_samples", "max_noise", ...)
// Expressions see the parameters (configuration values) and ProblemSize.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "decision/policy.h"
#include "spec/spec.h"

namespace tune::spec {

// A kernel of the spec's file other than the tuned one (Tune.reference, Tune.check).
struct Reference {
  std::string kernel_name;
  std::array<std::optional<Expression>, 3> block, grid;
};

struct Extension {
  std::optional<Expression> bytes, flops;
  std::vector<std::string> ceilings;
  std::optional<Reference> reference;
  std::optional<Reference> check;  // Tune.check: same fields as the reference
  double relative_tolerance = 0, absolute_tolerance = 0;
  decision::Policy policy;  // the defaults, Tune.statistic and Tune.policy applied
};

// Throws InputError (naming the spec and "Tune.<key>") on anything malformed.
Extension parse_extension(const Spec& spec);

}  // namespace tune::spec

// Timing with CUDA events. See run.h for the L2 policy.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "run/cuda.h"
#include "run/session.h"

namespace tune::run {

struct TimingOptions {
  int warmup = 3;        // untimed launches first (module load, clocks, caches, TLB)
  int repetitions = 20;  // timed launches (at least 1)
  // When set, more timed launches are added until the samples sum to at least this many ms, up to
  // max_repetitions: short kernels get more samples.
  std::optional<double> min_time_ms;
  int max_repetitions = 10000;
  // false: back-to-back samples (a problem that fits in L2 runs warm).
  // true: a 2 x L2 cudaMemsetAsync before each timed launch, outside its events (cold L2).
  bool flush_l2 = false;
};

struct Summary {
  double median = 0, mean = 0, min = 0, max = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 for one sample
  std::size_t count = 0;
};

// Statistics of `samples` (count 0 and zeros when empty).
Summary summarize(std::span<const double> samples);

struct Timing {
  LaunchStatus status;              // the first failure, if any; samples are then empty
  std::vector<double> samples_ms;   // one per timed launch, in launch order
  Summary summary;                  // of samples_ms
  bool ok() const { return status.ok(); }
};

// Enqueues one launch on the legacy default stream (for example LoadedKernel::enqueue) and
// reports launch-time errors. It must not synchronise.
using LaunchFn = std::function<LaunchStatus()>;

// Warm-up launches, a synchronisation (a fault is reported before any timing), then timed
// launches each between its own pair of events, all on the legacy default stream. Never throws
// for launch failures or faults: they come back in Timing::status (sticky() => recover()).
Timing measure(Session& session, const LaunchFn& launch, const TimingOptions& options = {});

}  // namespace tune::run

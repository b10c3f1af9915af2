// What every part of a GPU run shares (sweep.h sequences the parts): its inputs (spec, space,
// kernel source, Tune and its policy, captures), its device and database, the configurations and
// sizes it measures, and the counters of where its time went.
#pragma once
#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "capture/capture.h"
#include "compile/resources.h"
#include "run/args.h"
#include "run/energy.h"
#include "run/kernel.h"
#include "run/session.h"
#include "run/timing.h"
#include "space/space.h"
#include "spec/bind.h"
#include "spec/extension.h"
#include "store/store.h"
#include "tuning/options.h"

namespace tune::tuning {

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One configuration's compiled kernel (or why it has none).
struct Compiled {
  std::unique_ptr<run::LoadedKernel> kernel;
  store::MeasurementStatus status = store::MeasurementStatus::ok;
  std::string error;
  double compile_ms = 0;
  compile::Resources resources;
  bool faulted = false;  // faulted the context earlier in this process
  // Nothing left to compile: the kernel is loaded, or its compile (or load) failed.
  bool settled() const { return kernel || status != store::MeasurementStatus::ok; }
};

// One configuration of the run: its canonical params, its id in the database, its cubin-cache key,
// whether any size still needs it, and its compiled kernel.
struct ConfigState {
  std::string params;
  std::int64_t id = 0;
  std::string cache_key;
  bool needed = false;
  Compiled compiled;
};

// One problem size of the run, parsed once (from --sizes, in every dimension of the spec's
// ProblemSize): the size, as stored, and its label ("4096x4096").
struct SizeTarget {
  sizes::Size size;
  std::string label;
  static SizeTarget of(const sizes::Size& s) { return {s, s.label()}; }
};

struct Counters {
  std::size_t compiled = 0, cached = 0, measured = 0, failed = 0;
  double compile_ms = 0, measure_ms = 0, decide_ms = 0;
  double timed_ms = 0;  // GPU time inside timed batches (run::Timing::timed_ms)
};

inline run::Dim3 to_dim3(const std::array<std::uint32_t, 3>& d) { return {d[0], d[1], d[2]}; }

// A configuration's cluster and tensor maps (Tune.cluster, Tune.tensor_maps), as launches take them.
run::LaunchExtras launch_extras(const spec::Geometry& g);

// A spec's arguments at a size, as the run module takes them, and the bytes of one placement of
// them (their buffers; scalars take none).
std::vector<run::ArgSpec> arg_specs(const spec::Spec& spec, const sizes::Size& size);
std::size_t buffer_bytes(const std::vector<run::ArgSpec>& specs);

// A first measurement's timing method (and a ceiling's), from the policy.
run::TimingOptions first_pass_timing(const decision::Policy& policy);

struct GpuRun {
  // Opens the device and the database and begins the stored run, its method described by the
  // policy. Throws UnavailableError.
  GpuRun(const Options& o, Prepared prepared);

  const Options& o;
  const Clock::time_point start = Clock::now();
  spec::Spec spec;
  space::Space space;
  spec::Extension ext;                     // Tune, its policy with the command line's overrides
  std::vector<capture::Capture> captures;  // tune --capture: the launches the sizes come from
  std::string kernel, space_hash;
  std::string source;    // the kernel file's text (its includes resolved), read before the device opens
  run::Session session;  // before every GPU resource: destroyed after them
  std::string arch;      // the kernels' target: Tune.arch or the device's, checked before the database opens
  // With an objective that needs energy: the meter, probed before the database is opened (without
  // NVML nothing is written) and before the run begins (its method and idle baseline are stored
  // with the run); nullptr otherwise.
  std::unique_ptr<run::EnergyMeter> energy;
  store::Store db;
  std::int64_t run_id = 0;
  run::TimingOptions timing;  // a first pass (and a ceiling)
  decision::Rule rule;
  std::vector<ConfigState> configs;                 // one per configuration of the run
  std::map<std::string, std::size_t> config_index;  // params -> index into configs
  std::vector<SizeTarget> sizes;                    // in search order
  Counters count;

  const decision::Policy& policy() const { return ext.policy; }
  const std::string& device() const { return session.device().name; }
  // The capture size `s` comes from (tune --capture), if any.
  const capture::Capture* captured(std::size_t s) const;
};

}  // namespace tune::tuning

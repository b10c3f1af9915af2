#include "tuning/tuner.h"
#include "log/log.h"

#include <cstdlib>
#include <string>
#include <vector>

#include "common/error.h"
#include "run/device.h"
#include "run/isolate.h"
#include "tuning/capture_args.h"
#include "tuning/engine.h"
#include "tuning/replay.h"

namespace tune::tuning {

int tune(const Options& given) {
  // A worker process (run/isolate.h) opens the device while it validates and builds the space.
  const std::future<void> device =
      run::worker_generation() >= 0 && given.replay.empty() ? run::start_device(given.device) : std::future<void>{};
  Prepared prepared = validate(given);
  Options opts = given;
  opts.strategy = prepared.strategy;
  for (const auto& c : prepared.captures) opts.sizes.push_back(capture_size(prepared.spec, c));  // tune --capture
  if (!opts.replay.empty()) return run_replay(opts, prepared);
  // A configuration that faults the GPU context poisons this process for good (run/isolate.h):
  // the sweep runs in a worker process, restarted to resume from the store after such a fault. The
  // supervisor never touches CUDA: the driver's start-up is the worker's, beside its validation
  // (in the supervisor it delayed the worker's start by it, 0.1 to 0.2 s of every run).
  if (run::worker_generation() < 0 && !opts.argv.empty()) {
    if (opts.seed_drawn)
      ::setenv(kDrawnSeedVariable, std::to_string(opts.seed).c_str(), 1);  // for the worker processes
    std::vector<std::string> argv = opts.argv;
    argv[0] = "/proc/self/exe";
    return run::supervise(argv).exit_code;
  }
  run::die_with_supervisor();  // a worker process: it ends with its supervisor
  if (!run::gpu_available())
    throw UnavailableError(run::gpu_unavailable_reason() +
                           "\nwithout a GPU, --replay CACHE... searches measurements recorded on one, e.g.\n"
                           "  tune --space spaces/transpose.json --replay results/recorded/transpose/*.json.gz");
  if (opts.seed_drawn && opts.strategy != "brute_force" && run::worker_generation() <= 0)
    log::info("search seed {} (drawn for this run; --seed {} repeats the search)", opts.seed, opts.seed);
  try {
    return run_engine(opts, std::move(prepared));
  } catch (const run::DeviceLostError& e) {
    log::warn("{}: continuing in a fresh process", e.what());
    return run::kDeviceLostExitCode;
  }
}

}  // namespace tune::tuning

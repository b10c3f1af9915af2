// `tune run`: validate (options.h: spec, Tune object and policy, space, sizes, database; nothing
// written before), then the GPU sweep (engine.h, sweep.h: compile ahead, each size's state,
// measure, decide by the policy, store) or the replay of recorded caches (replay.h), both
// searching each size through one path (size_search.h). Each configuration is compiled once,
// overlapping the measurements; every measurement is verified and stored as it completes, and a
// re-run of the same command resumes.
#pragma once
#include "tuning/options.h"

namespace tune::tuning {

// Runs the sweep; returns the process exit code. Throws UnavailableError without a GPU.
int tune(const Options& opts);

}  // namespace tune::tuning

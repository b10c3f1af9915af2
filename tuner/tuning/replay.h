// `tune --space SPEC --replay CACHE...`: the sweep without a GPU, from recorded measurements.
#pragma once
#include "tuning/tuner.h"

namespace tune::tuning {

// Replays every cache (those whose problem size is among --sizes, when given), storing each
// evaluation like a real one, marked as replayed, with its order and the simulated time.
int run_replay(const Options& opts, Prepared prepared);
// validate(opts), then the above.
int run_replay(const Options& opts);

}  // namespace tune::tuning

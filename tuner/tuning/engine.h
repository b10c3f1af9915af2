// The GPU sweep behind `tune run` (see tuner.h).
#pragma once
#include "tuning/options.h"

namespace tune::tuning {

// `prepared` is validate(opts): the spec and space are not loaded and built a second time.
int run_engine(const Options& opts, Prepared prepared);

}  // namespace tune::tuning

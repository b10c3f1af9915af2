// The GPU sweep behind `tune run` (see tuner.h).
#pragma once
#include "tuning/tuner.h"

namespace tune::tuning {

int run_engine(const Options& opts);

}  // namespace tune::tuning

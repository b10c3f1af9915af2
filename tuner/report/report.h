// `tune report`: one self-contained HTML page (inline SVG and CSS, no script, no network) per
// kernel: for each device, the best throughput per problem size plotted against the ceilings
// measured in the same runs (device-to-device copy, the library), flagged sizes marked, and the
// table of best configurations.
#pragma once
#include <string>

#include "store/store.h"

namespace tune::report {

// Throws InputError when the kernel has no verified results.
std::string html(store::Store& db, const std::string& kernel);

}  // namespace tune::report

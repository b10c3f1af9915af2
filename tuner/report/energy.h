// The report's energy section for one device (query/energy.h): the method and idle baseline of the
// runs that measured energy, and per size a plot of energy per launch against time, every
// configuration with a resolved energy as a point and the Pareto front highlighted, with the
// time-optimal and energy-optimal choices and what the second saves and costs. Empty where no
// energy was measured.
#pragma once
#include <string>

#include "store/store.h"

namespace tune::report {

std::string energy_section(store::Store& db, const std::string& kernel, const std::string& device);

}  // namespace tune::report

// The launch binding lives in spec/bind.h (shared with the generated headers and the runtime
// library); the tuner uses it under its old names.
#pragma once
#include "spec/bind.h"

namespace tune::tuning {

using spec::ArgumentPlan;
using spec::arguments;
using spec::bind_config;
using spec::evaluate_number;
using spec::Geometry;
using spec::geometry;
using spec::problem_rank;
using spec::problem_size_value;

}  // namespace tune::tuning

// Test helpers: ArgSpec builders for the run module's GPU tests (a buffer and a scalar argument).
#pragma once
#include <cstddef>
#include <string>
#include <utility>

#include "run/args.h"

namespace tune::run::testing {

inline ArgSpec buffer(std::string name, std::size_t count, FillKind fill, double value, bool output = false) {
  ArgSpec s;
  s.name = std::move(name);
  s.count = count;
  s.fill = fill;
  s.fill_value = value;
  s.output = output;
  return s;
}

inline ArgSpec scalar(std::string name, std::string dtype, double value) {
  ArgSpec s;
  s.name = std::move(name);
  s.dtype = std::move(dtype);
  s.scalar = true;
  s.count = 1;
  s.fill_value = value;
  return s;
}

}  // namespace tune::run::testing

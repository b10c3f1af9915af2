// Generates results/headers/<kernel>_tuned.h: for each device (name and compute capability), the
// table of problem sizes to tuned parameters and a constexpr selection function (exact size,
// else the nearest measured size on a log scale, else the device's default), plus Kernel
// Tuner-style `#ifdef TARGET_<device>` macro blocks for compile-time use. The text depends only
// on the stored data, so regenerating from the same data is byte-identical.
#pragma once
#include <string>

#include "store/store.h"

namespace tune::header {

struct Options {
  std::string kernel;
  std::string db_path_for_comment;  // shown in the header's first lines
};

// The header text. Throws InputError when the kernel has no verified results.
std::string generate(store::Store& db, const Options& opts);

// "NVIDIA H100 80GB HBM3" -> "NVIDIA_H100_80GB_HBM3" (a C identifier).
std::string identifier(const std::string& name);

}  // namespace tune::header

// The generated files of a tuned kernel, all made from one Model (header/model.h):
// - generate(): results/headers/<kernel>_tuned.h, a standalone C++17 header: per device (name and
//   compute capability) the table of measured sizes to tuned configurations, each configuration
//   with what a launch needs (kernel name, -D options, block, grid as a function of the size), a
//   constexpr select() that says how it matched, and opt-in prefixed macros for compile time.
// - generate_dispatch(): <kernel>_dispatch.cuh, the same tables plus every distinct configuration
//   instantiated by nvcc under its own namespace and a launch() that dispatches on device and
//   size: the tuned kernel inside the application with no NVRTC at run time.
// - generate_table(): <kernel>_table.json, the same tables as data for the runtime library
//   (tune/runtime.h), which compiles the selected configuration with NVRTC when first launched.
// The selection rule is the same in all three (README: "Using a tuned kernel"). Every stored
// string is data: names reach the output only as escaped comments and string literals, or as
// identifiers checked or made from them (header/text.h). The text depends only on the stored data
// and the spec, so regenerating from the same data is byte-identical.
#pragma once
#include <string>

#include "header/model.h"

namespace tune::header {

// `source` names where the data came from (shown escaped in the first comment line).
std::string generate(const Model& model, const std::string& source);

// `kernel_source`: the text of the spec's KernelFile, instantiated once per configuration.
// Throws InputError when the source cannot be instantiated (a string parameter value that is not
// one line of printable text).
std::string generate_dispatch(const Model& model, const std::string& kernel_source, const std::string& source);

// The runtime library's table: JSON, format "tune-table" version 1 (runtime/README in the README).
std::string generate_table(const Model& model, const std::string& source);

}  // namespace tune::header

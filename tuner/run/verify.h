// Verification of kernel outputs against a reference: exact or with tolerance, with unwritten
// (still poisoned) elements counted apart and the first mismatch named in the message.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>

#include "run/buffer.h"
#include "run/dtype.h"

namespace tune::run {

// An element passes when |actual - expected| <= absolute + relative * |expected| (per scalar lane,
// in double). Both zero (exact()) means equal values; integers are always compared exactly as
// integers when both are zero. NaN passes only against NaN (and never a poison NaN, see below).
struct Tolerance {
  double relative = 0;
  double absolute = 0;
  static Tolerance exact() { return {}; }
  static Tolerance rel(double relative, double absolute = 0) { return {relative, absolute}; }
  bool is_exact() const { return relative == 0 && absolute == 0; }
};

struct Comparison {
  bool ok = false;
  std::size_t count = 0;           // elements compared
  std::size_t mismatches = 0;      // elements failing the tolerance, unwritten ones included
  std::size_t unwritten = 0;       // actual elements still poisoned where the reference is not
  std::size_t first_mismatch = 0;  // element index; meaningful when mismatches > 0
  double max_abs_error = 0;        // over elements that are not unwritten
  std::string message;             // one line: "'out': 3 of 4096 elements differ (1 unwritten); first at 17 ..."
};

// Compares two arrays of `dtype` elements (sizes must match and be whole elements, else Error).
// `name` names the output in the message.
Comparison compare(DType dtype, std::span<const std::byte> actual, std::span<const std::byte> expected,
                   Tolerance tolerance, std::string_view name = "output");

template <class T>
Comparison compare(DType dtype, std::span<const T> actual, std::span<const T> expected, Tolerance tolerance,
                   std::string_view name = "output") {
  return compare(dtype, std::as_bytes(actual), std::as_bytes(expected), tolerance, name);
}

// Device output against a host reference or another device buffer (downloaded first).
Comparison compare(DType dtype, const DeviceBuffer& actual, std::span<const std::byte> expected, Tolerance tolerance,
                   std::string_view name = "output");
Comparison compare(DType dtype, const DeviceBuffer& actual, const DeviceBuffer& expected, Tolerance tolerance,
                   std::string_view name = "output");

// Elements whose bytes are all the poison byte.
std::size_t count_unwritten(DType dtype, std::span<const std::byte> data);
std::size_t count_unwritten(DType dtype, const DeviceBuffer& data);

}  // namespace tune::run

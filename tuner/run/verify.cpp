#include "run/verify.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include <cuda_runtime_api.h>

#include "common/error.h"
#include "run/cuda.h"
#include "run/device_ops.h"

namespace tune::run {
namespace {

// Shortest text that reads back as the same value of the element's precision.
std::string number(double v, Scalar scalar) {
  char buf[64];
  const bool single = scalar == Scalar::float32 || scalar == Scalar::half;
  const auto r =
      single ? std::to_chars(buf, buf + sizeof(buf), static_cast<float>(v)) : std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

// Four significant digits, for errors and bounds.
std::string brief(double v) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::general, 4);
  return std::string(buf, r.ptr);
}

std::size_t elements(DType dtype, std::span<const std::byte> data, std::string_view name, const char* role) {
  if (data.size() % dtype.size() != 0)
    throw Error("compare '" + std::string(name) + "': the " + role + " data has " + std::to_string(data.size()) +
                " bytes, not a whole number of " + dtype.name() + " elements");
  return data.size() / dtype.size();
}

}  // namespace

std::size_t count_unwritten(DType dtype, std::span<const std::byte> data) {
  const std::size_t n = elements(dtype, data, "data", "actual");
  std::size_t count = 0;
  for (std::size_t i = 0; i < n; ++i) count += is_poison(dtype, data.data() + i * dtype.size()) ? 1 : 0;
  return count;
}

std::size_t count_unwritten(DType dtype, const DeviceBuffer& data) {
  return device_count_unwritten(dtype, data.data(), data.elements_of(dtype));
}

Comparison compare(DType dtype, std::span<const std::byte> actual, std::span<const std::byte> expected,
                   Tolerance tolerance, std::string_view name) {
  const std::size_t n = elements(dtype, actual, name, "actual");
  if (elements(dtype, expected, name, "reference") != n)
    throw Error("compare '" + std::string(name) + "': " + std::to_string(n) + " elements against a reference of " +
                std::to_string(expected.size() / dtype.size()));
  Comparison r;
  r.count = n;
  const std::size_t esize = dtype.size(), lsize = dtype.scalar_size();
  const bool exact_integers = !dtype.is_floating() && tolerance.is_exact();
  std::string first;  // description of the first mismatch
  for (std::size_t i = 0; i < n; ++i) {
    const std::byte* a = actual.data() + i * esize;
    const std::byte* e = expected.data() + i * esize;
    const bool unwritten = is_poison(dtype, a) && !is_poison(dtype, e);
    bool bad = unwritten;
    int bad_lane = -1;
    double got = 0, want = 0, diff = 0;
    for (int lane = 0; lane < dtype.lanes && !unwritten; ++lane) {
      const std::byte* al = a + static_cast<std::size_t>(lane) * lsize;
      const std::byte* el = e + static_cast<std::size_t>(lane) * lsize;
      const double x = lane_as_double(dtype.scalar, al), y = lane_as_double(dtype.scalar, el);
      bool lane_ok;
      double d = 0;
      if (exact_integers) {
        lane_ok = std::memcmp(al, el, lsize) == 0;
        d = std::fabs(x - y);
      } else if (std::isnan(x) || std::isnan(y)) {
        lane_ok = std::isnan(x) && std::isnan(y);
        d = lane_ok ? 0.0 : INFINITY;
      } else {
        d = std::fabs(x - y);
        lane_ok = x == y || d <= tolerance.absolute + tolerance.relative * std::fabs(y);
      }
      if (!std::isinf(d) && d > r.max_abs_error) r.max_abs_error = d;
      if (!lane_ok && !bad) {
        bad = true;
        bad_lane = lane;
        got = x;
        want = y;
        diff = d;
      }
    }
    if (!bad) continue;
    if (r.mismatches == 0) {
      r.first_mismatch = i;
      first = "first at element " + std::to_string(i);
      if (unwritten) {
        first += ": unwritten (still poisoned), expected " + number(lane_as_double(dtype.scalar, e), dtype.scalar);
      } else {
        if (dtype.lanes > 1) first += " lane " + std::to_string(bad_lane);
        first += ": got " + number(got, dtype.scalar) + ", expected " + number(want, dtype.scalar);
        if (!tolerance.is_exact())
          first += " (|diff| " + brief(diff) + " > allowed " +
                   brief(tolerance.absolute + tolerance.relative * std::fabs(want)) + ")";
      }
    }
    ++r.mismatches;
    r.unwritten += unwritten ? 1 : 0;
  }
  r.ok = r.mismatches == 0;
  std::string label(1, '\'');  // appended: GCC 12 warns falsely (-Wrestrict) on "'" + string&&
  label.append(name).append("': ");
  if (r.ok) {
    r.message = label + "all " + std::to_string(n) + " elements match (max |diff| " + brief(r.max_abs_error) + ")";
  } else {
    r.message = label + std::to_string(r.mismatches) + " of " + std::to_string(n) + " elements differ (" +
                std::to_string(r.unwritten) + " unwritten); " + first;
  }
  return r;
}

Comparison compare(DType dtype, const DeviceBuffer& actual, std::span<const std::byte> expected, Tolerance tolerance,
                   std::string_view name) {
  const std::vector<std::byte> host = actual.download();
  return compare(dtype, std::span<const std::byte>(host), expected, tolerance, name);
}

// On the device (device_compare); only the first mismatching element travels, for the message,
// which reads as the host comparison's.
Comparison compare(DType dtype, const DeviceBuffer& actual, const DeviceBuffer& expected, Tolerance tolerance,
                   std::string_view name) {
  const std::size_t n = actual.elements_of(dtype);
  if (expected.elements_of(dtype) != n)
    throw Error("compare '" + std::string(name) + "': " + std::to_string(n) + " elements against a reference of " +
                std::to_string(expected.elements_of(dtype)));
  const DeviceComparison d = device_compare(dtype, actual.data(), expected.data(), n, tolerance);
  Comparison r;
  r.count = n;
  r.mismatches = d.mismatches;
  r.unwritten = d.unwritten;
  r.first_mismatch = d.first_mismatch;
  r.max_abs_error = d.max_abs_error;
  r.ok = d.mismatches == 0;
  std::string label(1, '\'');
  label.append(name).append("': ");
  if (r.ok) {
    r.message = label + "all " + std::to_string(n) + " elements match (max |diff| " + brief(r.max_abs_error) + ")";
    return r;
  }
  // the first mismatch described by the host rule on that one element
  const std::size_t size = dtype.size(), at = d.first_mismatch * size;
  std::vector<std::byte> a(size), e(size);
  check(cudaMemcpy(a.data(), static_cast<const std::byte*>(actual.data()) + at, size, cudaMemcpyDeviceToHost),
        "the first mismatch");
  check(cudaMemcpy(e.data(), static_cast<const std::byte*>(expected.data()) + at, size, cudaMemcpyDeviceToHost),
        "the first mismatch");
  const Comparison one = compare(dtype, std::span<const std::byte>(a), std::span<const std::byte>(e), tolerance, name);
  const std::string marker = "first at element 0";
  std::string first = one.message.substr(one.message.find(marker) + marker.size());
  r.message = label + std::to_string(r.mismatches) + " of " + std::to_string(n) + " elements differ (" +
              std::to_string(r.unwritten) + " unwritten); first at element " + std::to_string(d.first_mismatch) + first;
  return r;
}

}  // namespace tune::run

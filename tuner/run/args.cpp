#include "run/args.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_set>
#include <utility>

#include "common/error.h"

namespace tune::run {
namespace {

[[noreturn]] void fail(const ArgSpec& spec, const std::string& why) {
  throw InputError("kernel argument '" + spec.name + "': " + why);
}

// The representable range of an integer lane, as doubles (exact for the bounds used).
std::pair<double, double> integer_range(Scalar s) {
  switch (s) {
    case Scalar::boolean:
      return {0.0, 1.0};
    case Scalar::int8:
      return {-128.0, 127.0};
    case Scalar::uint8:
      return {0.0, 255.0};
    case Scalar::int16:
      return {-32768.0, 32767.0};
    case Scalar::uint16:
      return {0.0, 65535.0};
    case Scalar::int32:
      return {-2147483648.0, 2147483647.0};
    case Scalar::uint32:
      return {0.0, 4294967295.0};
    // 2^63 and 2^64 are not representable in the types: compare with < below.
    case Scalar::int64:
      return {-0x1.0p63, 0x1.0p63};
    case Scalar::uint64:
      return {0.0, 0x1.0p64};
    default:
      return {0.0, 0.0};
  }
}

}  // namespace

void validate(const ArgSpec& spec) {
  if (spec.name.empty()) throw InputError("kernel argument with an empty name");
  if (spec.tensor_map) {
    if (!spec.scalar || spec.count > 1 || spec.output || spec.data)
      fail(spec, "a tensor map is a scalar parameter, filled by the launch: no count, output or data");
    return;
  }
  DType dtype;
  try {
    dtype = parse_dtype(spec.dtype);
  } catch (const InputError& e) {
    fail(spec, e.what());
  }
  if (!std::isfinite(spec.fill_value)) fail(spec, "fill value is not finite");
  if (spec.scalar) {
    if (spec.count > 1) fail(spec, "a scalar has count " + std::to_string(spec.count) + ", expected 1");
    if (dtype.lanes != 1) fail(spec, "scalar of vector type " + dtype.name() + " is not supported");
    if (spec.output) fail(spec, "a scalar cannot be an output");
    if (spec.fill != FillKind::constant) fail(spec, "a scalar takes a constant value, not a random fill");
  } else {
    if (spec.count == 0) fail(spec, "a buffer needs a count of at least 1 element");
    if (spec.count > std::numeric_limits<std::size_t>::max() / dtype.size())
      fail(spec, "count " + std::to_string(spec.count) + " overflows the buffer size");
  }
  if (spec.data && spec.data->size() != (spec.scalar ? 1 : spec.count) * dtype.size())
    fail(spec, "the given data has " + std::to_string(spec.data->size()) + " bytes, expected " +
                   std::to_string((spec.scalar ? 1 : spec.count) * dtype.size()));
  if (spec.fill == FillKind::random) {
    if (spec.fill_value < 0.0) fail(spec, "random fill scale " + std::to_string(spec.fill_value) + " is negative");
    return;
  }
  if (!dtype.is_floating()) {
    const auto [lo, hi] = integer_range(dtype.scalar);
    const bool wide = dtype.scalar == Scalar::int64 || dtype.scalar == Scalar::uint64;
    const double v = spec.fill_value;
    if (v != std::floor(v)) fail(spec, "constant " + std::to_string(v) + " is not an integer for type " + dtype.name());
    if (v < lo || (wide ? v >= hi : v > hi))
      fail(spec, "constant " + std::to_string(v) + " is out of range for type " + dtype.name());
  }
}

std::vector<std::byte> scalar_bytes(const ArgSpec& spec) {
  validate(spec);
  if (!spec.scalar) fail(spec, "is a buffer, not a scalar");
  if (spec.data) return *spec.data;
  return constant_data(parse_dtype(spec.dtype), 1, spec.fill_value);
}

std::vector<std::byte> initial_data(const ArgSpec& spec, std::size_t index, std::uint64_t seed) {
  validate(spec);
  if (spec.scalar) fail(spec, "is a scalar, not a buffer");
  if (spec.data) return *spec.data;
  const DType dtype = parse_dtype(spec.dtype);
  if (spec.fill == FillKind::random) return random_data(dtype, spec.count, derive_seed(seed, index), spec.fill_value);
  return constant_data(dtype, spec.count, spec.fill_value);
}

ArgSet::ArgSet(Session& session, std::vector<ArgSpec> specs, std::uint64_t seed)
    : Recoverable(session), specs_(std::move(specs)), seed_(seed) {
  std::unordered_set<std::string> names;
  for (const ArgSpec& spec : specs_) {
    validate(spec);
    if (!names.insert(spec.name).second) fail(spec, "the name is used twice");
  }
  build();
}

void ArgSet::build() {
  // Old buffers (from a reset context) are dropped without CUDA calls by DeviceBuffer itself.
  slots_.clear();
  slots_.resize(specs_.size());
  pointers_.assign(specs_.size(), nullptr);
  for (std::size_t i = 0; i < specs_.size(); ++i) {
    const ArgSpec& spec = specs_[i];
    Slot& slot = slots_[i];
    if (spec.tensor_map) {
      pointers_[i] = &slot.map;
      continue;
    }
    slot.dtype = parse_dtype(spec.dtype);
    if (spec.scalar) {
      const std::vector<std::byte> bytes = scalar_bytes(spec);
      std::memcpy(slot.value, bytes.data(), bytes.size());
      pointers_[i] = slot.value;
    } else {
      slot.buffer = DeviceBuffer(spec.count * slot.dtype.size());
      fill(i);
      slot.device_pointer = slot.buffer.data();
      pointers_[i] = &slot.device_pointer;
    }
  }
}

void ArgSet::restore() { build(); }

// On the device: the bytes of initial_data(), without host filling of gigabytes (device_ops.h);
// given contents (a capture's) are uploaded as they are.
void ArgSet::fill(std::size_t i) {
  const ArgSpec& spec = specs_[i];
  Slot& slot = slots_[i];
  if (spec.data)
    slot.buffer.upload(std::span<const std::byte>(*spec.data));
  else if (spec.fill == FillKind::random)
    slot.buffer.fill_random(slot.dtype, derive_seed(seed_, i), spec.fill_value);
  else
    slot.buffer.fill_constant(slot.dtype, spec.fill_value);
}

std::size_t ArgSet::index_of(std::string_view name) const {
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].name == name) return i;
  throw Error("no kernel argument named '" + std::string(name) + "'");
}

DeviceBuffer& ArgSet::buffer(std::size_t index) {
  return const_cast<DeviceBuffer&>(std::as_const(*this).buffer(index));
}

const DeviceBuffer& ArgSet::buffer(std::size_t index) const {
  if (specs_.at(index).scalar) throw Error("kernel argument '" + specs_[index].name + "' is a scalar, not a buffer");
  return slots_[index].buffer;
}

void ArgSet::refill() {
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (!specs_[i].scalar) fill(i);
}

void ArgSet::poison_outputs() {
  for (std::size_t i = 0; i < specs_.size(); ++i)
    if (specs_[i].output && !specs_[i].read) slots_[i].buffer.poison();
}

}  // namespace tune::run

#include "run/dtype.h"

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <utility>

#include "common/error.h"

namespace tune::run {
namespace {

struct Alias {
  std::string_view name;
  Scalar scalar;
};

constexpr Alias kAliases[] = {
    {"bool", Scalar::boolean},
    {"int8", Scalar::int8},
    {"char", Scalar::int8},
    {"signed char", Scalar::int8},
    {"int8_t", Scalar::int8},
    {"uint8", Scalar::uint8},
    {"unsigned char", Scalar::uint8},
    {"uchar", Scalar::uint8},
    {"uint8_t", Scalar::uint8},
    {"int16", Scalar::int16},
    {"short", Scalar::int16},
    {"int16_t", Scalar::int16},
    {"uint16", Scalar::uint16},
    {"unsigned short", Scalar::uint16},
    {"uint16_t", Scalar::uint16},
    {"int32", Scalar::int32},
    {"int", Scalar::int32},
    {"int32_t", Scalar::int32},
    {"uint32", Scalar::uint32},
    {"unsigned int", Scalar::uint32},
    {"unsigned", Scalar::uint32},
    {"uint", Scalar::uint32},
    {"uint32_t", Scalar::uint32},
    {"int64", Scalar::int64},
    {"long", Scalar::int64},
    {"long long", Scalar::int64},
    {"int64_t", Scalar::int64},
    {"uint64", Scalar::uint64},
    {"unsigned long", Scalar::uint64},
    {"unsigned long long", Scalar::uint64},
    {"uint64_t", Scalar::uint64},
    {"size_t", Scalar::uint64},
    {"half", Scalar::half},  // "float16" is T1's 16-lane float vector, not binary16
    {"float", Scalar::float32},
    {"float32", Scalar::float32},
    {"double", Scalar::float64},
    {"float64", Scalar::float64},
};

const char* scalar_name(Scalar s) {
  switch (s) {
    case Scalar::boolean:
      return "bool";
    case Scalar::int8:
      return "int8";
    case Scalar::uint8:
      return "uint8";
    case Scalar::int16:
      return "int16";
    case Scalar::uint16:
      return "uint16";
    case Scalar::int32:
      return "int32";
    case Scalar::uint32:
      return "uint32";
    case Scalar::int64:
      return "int64";
    case Scalar::uint64:
      return "uint64";
    case Scalar::half:
      return "half";
    case Scalar::float32:
      return "float";
    case Scalar::float64:
      return "double";
  }
  return "?";
}

template <class T>
void put(std::byte* out, T value) {
  std::memcpy(out, &value, sizeof(T));
}

template <class T>
T get(const std::byte* in) {
  T value;
  std::memcpy(&value, in, sizeof(T));
  return value;
}

// Writes `value` as one lane of type `s` (C-cast semantics for in-range values).
void put_lane(Scalar s, std::byte* out, double value) {
  switch (s) {
    case Scalar::boolean:
      put<std::uint8_t>(out, value != 0.0 ? 1 : 0);
      break;
    case Scalar::int8:
      put(out, static_cast<std::int8_t>(value));
      break;
    case Scalar::uint8:
      put(out, static_cast<std::uint8_t>(value));
      break;
    case Scalar::int16:
      put(out, static_cast<std::int16_t>(value));
      break;
    case Scalar::uint16:
      put(out, static_cast<std::uint16_t>(value));
      break;
    case Scalar::int32:
      put(out, static_cast<std::int32_t>(value));
      break;
    case Scalar::uint32:
      put(out, static_cast<std::uint32_t>(value));
      break;
    case Scalar::int64:
      put(out, static_cast<std::int64_t>(value));
      break;
    case Scalar::uint64:
      put(out, static_cast<std::uint64_t>(value));
      break;
    case Scalar::half:
      put(out, float_to_half(static_cast<float>(value)));
      break;
    case Scalar::float32:
      put(out, static_cast<float>(value));
      break;
    case Scalar::float64:
      put(out, value);
      break;
  }
}

// Number of value bits of a non-negative integer lane (7 for int8, 8 for uint8, ...).
int value_bits(Scalar s) {
  const int bits = static_cast<int>(DType{s, 1}.scalar_size()) * 8;
  return DType{s, 1}.is_signed() ? bits - 1 : bits;
}

}  // namespace

std::size_t DType::scalar_size() const {
  switch (scalar) {
    case Scalar::boolean:
    case Scalar::int8:
    case Scalar::uint8:
      return 1;
    case Scalar::int16:
    case Scalar::uint16:
    case Scalar::half:
      return 2;
    case Scalar::int32:
    case Scalar::uint32:
    case Scalar::float32:
      return 4;
    case Scalar::int64:
    case Scalar::uint64:
    case Scalar::float64:
      return 8;
  }
  return 0;
}

bool DType::is_floating() const {
  return scalar == Scalar::half || scalar == Scalar::float32 || scalar == Scalar::float64;
}

bool DType::is_signed() const {
  return is_floating() || scalar == Scalar::int8 || scalar == Scalar::int16 || scalar == Scalar::int32 ||
         scalar == Scalar::int64;
}

std::string DType::name() const {
  std::string n = scalar_name(scalar);
  if (lanes != 1) n += std::to_string(lanes);
  return n;
}

DType parse_dtype(std::string_view name) {
  for (const Alias& a : kAliases)
    if (a.name == name) return DType{a.scalar, 1};
  for (std::string_view base : {"half", "float", "double"}) {
    if (name.size() <= base.size() || name.substr(0, base.size()) != base) continue;
    const std::string_view suffix = name.substr(base.size());
    for (int lanes : {2, 4, 8, 16})
      if (suffix == std::to_string(lanes)) return DType{parse_dtype(base).scalar, lanes};
  }
  throw InputError("unknown argument data type '" + std::string(name) +
                   "': expected bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, "
                   "half, float, double, or halfN/floatN/doubleN with N = 2, 4, 8, 16");
}

bool is_poison(DType dtype, const std::byte* bytes) {
  for (std::size_t i = 0; i < dtype.size(); ++i)
    if (bytes[i] != std::byte{kPoisonByte}) return false;
  return true;
}

std::uint64_t derive_seed(std::uint64_t seed, std::size_t index) {
  SplitMix64 mix(seed ^ (0xD1B54A32D192ED03ull * (static_cast<std::uint64_t>(index) + 1)));
  return mix.next();
}

std::vector<std::byte> random_data(DType dtype, std::size_t count, std::uint64_t seed, double scale) {
  const std::size_t lane_size = dtype.scalar_size();
  const std::size_t lanes = count * static_cast<std::size_t>(dtype.lanes);
  std::vector<std::byte> out(lanes * lane_size);
  SplitMix64 rng(seed);
  std::byte* p = out.data();
  const Scalar s = dtype.scalar;
  if (dtype.is_floating()) {
    for (std::size_t i = 0; i < lanes; ++i, p += lane_size) {
      const std::uint64_t r = rng.next();
      if (s == Scalar::float64) {
        put(p, static_cast<double>(r >> 11) * 0x1.0p-53 * scale);
      } else {
        const float u = static_cast<float>(r >> 40) * 0x1.0p-24f;  // exact in float
        const float v = u * static_cast<float>(scale);
        if (s == Scalar::float32)
          put(p, v);
        else
          put(p, float_to_half(v));
      }
    }
    return out;
  }
  if (s == Scalar::boolean) {
    for (std::size_t i = 0; i < lanes; ++i, p += lane_size) put<std::uint8_t>(p, rng.next() >> 63);
    return out;
  }
  const int bits = value_bits(s);
  const bool bounded = scale >= 1.0 && std::log2(scale) < bits;
  const std::uint64_t bound = bounded ? static_cast<std::uint64_t>(std::floor(scale)) : 0;
  for (std::size_t i = 0; i < lanes; ++i, p += lane_size) {
    const std::uint64_t r = rng.next();
    // Lemire's multiply-shift maps r to [0, bound) without a division.
    const std::uint64_t v =
        bounded ? static_cast<std::uint64_t>((static_cast<unsigned __int128>(r) * bound) >> 64) : (r >> (64 - bits));
    std::memcpy(p, &v, lane_size);  // little endian: the low bytes
  }
  return out;
}

std::vector<std::byte> constant_data(DType dtype, std::size_t count, double value) {
  std::vector<std::byte> lane(dtype.scalar_size());
  put_lane(dtype.scalar, lane.data(), value);
  const std::size_t lanes = count * static_cast<std::size_t>(dtype.lanes);
  std::vector<std::byte> out(lanes * lane.size());
  for (std::size_t i = 0; i < lanes; ++i) std::memcpy(out.data() + i * lane.size(), lane.data(), lane.size());
  return out;
}

double lane_as_double(Scalar s, const std::byte* p) {
  switch (s) {
    case Scalar::boolean:
      return get<std::uint8_t>(p);
    case Scalar::int8:
      return get<std::int8_t>(p);
    case Scalar::uint8:
      return get<std::uint8_t>(p);
    case Scalar::int16:
      return get<std::int16_t>(p);
    case Scalar::uint16:
      return get<std::uint16_t>(p);
    case Scalar::int32:
      return get<std::int32_t>(p);
    case Scalar::uint32:
      return get<std::uint32_t>(p);
    case Scalar::int64:
      return static_cast<double>(get<std::int64_t>(p));
    case Scalar::uint64:
      return static_cast<double>(get<std::uint64_t>(p));
    case Scalar::half:
      return half_to_float(get<std::uint16_t>(p));
    case Scalar::float32:
      return get<float>(p);
    case Scalar::float64:
      return get<double>(p);
  }
  return 0.0;
}

std::uint16_t float_to_half(float value) {
  const std::uint32_t x = std::bit_cast<std::uint32_t>(value);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u)  // inf or NaN (NaN keeps a quiet payload)
    return static_cast<std::uint16_t>(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u | ((abs >> 13) & 0x3FFu) : 0u));
  if (abs >= 0x477FF000u) return static_cast<std::uint16_t>(sign | 0x7C00u);  // rounds to inf
  if (abs < 0x38800000u) {  // half subnormal or zero: value / 2^-24, rounded to nearest even
    const float scaled = std::bit_cast<float>(abs) * 0x1.0p24f;
    return static_cast<std::uint16_t>(sign | static_cast<std::uint32_t>(std::nearbyint(scaled)));
  }
  // Normal: rebias the exponent, round the 13 dropped mantissa bits to nearest even.
  const std::uint32_t mantissa_odd = (abs >> 13) & 1u;
  const std::uint32_t rounded = abs + 0xFFFu + mantissa_odd;
  return static_cast<std::uint16_t>(sign | ((rounded - 0x38000000u) >> 13));
}

float half_to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1Fu;
  const std::uint32_t mantissa = bits & 0x3FFu;
  if (exponent == 0) {
    const float magnitude = static_cast<float>(mantissa) * 0x1.0p-24f;
    return sign ? -magnitude : magnitude;
  }
  if (exponent == 0x1F) return std::bit_cast<float>(sign | 0x7F800000u | (mantissa << 13));
  return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

}  // namespace tune::run

// Element types of kernel arguments (the T1 "Type" names and common C spellings), and the host-side
// generation of their contents: deterministic pseudo-random or constant fills, and the poison
// pattern that marks output elements a kernel never wrote.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tune::run {

enum class Scalar { boolean, int8, uint8, int16, uint16, int32, uint32, int64, uint64, half, float32, float64 };

// A scalar type, or a CUDA vector type of `lanes` scalars (float4: float32 x 4).
struct DType {
  Scalar scalar = Scalar::float32;
  int lanes = 1;

  std::size_t scalar_size() const;
  std::size_t size() const { return scalar_size() * static_cast<std::size_t>(lanes); }
  bool is_floating() const;
  bool is_signed() const;
  std::string name() const;  // canonical T1 name: "float", "float4", "int32", "uint8", "bool"
  bool operator==(const DType&) const = default;
};

// Accepts the T1 names (bool, int8..uint64, half, float, double, halfN/floatN/doubleN with N in
// 2,4,8,16) and C spellings (char, unsigned char, short, int, unsigned int, long, size_t, ...).
// Throws InputError naming the type and the accepted names.
DType parse_dtype(std::string_view name);

// The poison byte: every element of a poisoned buffer is all ones (0xFF..), which is a NaN for
// half, float and double (and not the canonical NaN 0x7FFF.. that GPU arithmetic produces) and
// the maximum (unsigned) or -1 (signed) for integers.
inline constexpr unsigned char kPoisonByte = 0xFF;

// True when the element at `bytes` (dtype.size() bytes) is the poison pattern.
bool is_poison(DType dtype, const std::byte* bytes);

// The generator: splitmix64, fully specified, so the same seed gives the same data on every
// machine and after Session::recover().
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

 private:
  std::uint64_t state_;
};

// Derives the seed of argument `index` from the run seed, so arguments get independent streams.
std::uint64_t derive_seed(std::uint64_t seed, std::size_t index);

// `count` elements of `dtype` (count * dtype.size() bytes), every scalar lane drawn independently:
// floating types uniform in [0, scale); integer types uniform in [0, floor(scale)) when
// scale >= 1, else over [0, max of the type] (non-negative values); bool 0 or 1.
std::vector<std::byte> random_data(DType dtype, std::size_t count, std::uint64_t seed, double scale);

// `count` elements of `dtype` with every lane equal to `value` (converted like a C cast; integer
// values are validated by the caller).
std::vector<std::byte> constant_data(DType dtype, std::size_t count, double value);

// One scalar lane read as double (for messages and tolerance comparison).
double lane_as_double(Scalar scalar, const std::byte* bytes);

// IEEE binary16 conversion, round to nearest even (no dependency on cuda_fp16.h).
std::uint16_t float_to_half(float value);
float half_to_float(std::uint16_t bits);

}  // namespace tune::run

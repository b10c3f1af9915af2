// Problem sizes: the one type for a size everywhere (a sweep's targets, stored measurements,
// queries, the runtime), parsed once from `--sizes 128:4096` (A, A+S, ... up to B; S defaults to
// A), comma lists `1000,1024,4097`, multi-dimensional items `4096x2048` (x = ProblemSize[0]), a
// size design `design:128:4096[:N]` (sizes/design.h), or from a stored label.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace tune::sizes {

// Bounds of --sizes: every dimension at most 2^40 (a range's end too, so stepping through it cannot
// overflow), at most 100000 sizes in all.
inline constexpr std::int64_t kMaxDimension = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxSizes = 100000;

struct Size {
  std::array<std::int64_t, 3> dims{1, 1, 1};
  int rank = 1;  // how many dims were given (1 for "4096", 2 for "4096x2048")

  std::int64_t x() const { return dims[0]; }
  std::int64_t y() const { return dims[1]; }
  std::int64_t z() const { return dims[2]; }
  double elements() const { return double(dims[0]) * double(dims[1]) * double(dims[2]); }
  // Fills a problem of `rank` dimensions: a single number means a square/cubic problem.
  std::array<std::int64_t, 3> as_rank(int problem_rank) const;
  // The size with every dimension of a `problem_rank`-dimensional problem spelled out.
  Size full(int problem_rank) const;
  std::string label() const;  // "4096" or "4096x2048": the stored form
  static Size of(std::int64_t x);
  static Size of(std::int64_t x, std::int64_t y);
  static Size of(std::int64_t x, std::int64_t y, std::int64_t z);
  // A stored label: 1 to 3 positive integers joined by 'x'. Throws InputError naming it.
  static Size parse_label(std::string_view text);
  friend bool operator==(const Size&, const Size&) = default;
  friend auto operator<=>(const Size&, const Size&) = default;
};

// Parses a --sizes argument. Throws InputError naming the item and the cause.
std::vector<Size> parse(std::string_view text);
Size parse_one(std::string_view item);  // "4096" or "4096x2048" (no ranges)

}  // namespace tune::sizes

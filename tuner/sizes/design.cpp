#include "sizes/design.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <string>

#include "common/error.h"

namespace tune::sizes {

std::vector<Size> design(std::int64_t a, std::int64_t b, std::int64_t n, std::string_view text) {
  auto bad = [&](const std::string& why) { throw InputError("bad --sizes '" + std::string(text) + "': " + why); };
  if (a < 32) bad("a design starts at 32 or more");
  if (b < 4 * a) bad("a design spans at least 4x (A:B with B >= 4 A)");
  if (n < kDesignFixed + 2 || n > 1000)
    bad("a design holds " + std::to_string(kDesignFixed + 2) + " to 1000 sizes (N = " + std::to_string(n) + ")");
  std::int64_t g = 1;
  while (g * 2 <= a && g < 128) g *= 2;
  const std::int64_t lo = (a + g - 1) / g * g, hi = b / g * g;
  auto at = [&](double f) { return double(a) * std::pow(double(b) / double(a), f); };
  auto aligned = [&](double v) {
    return std::clamp(static_cast<std::int64_t>(std::llround(v / double(g))) * g, lo, hi);
  };
  auto in_range = [&](std::int64_t v) { return std::clamp(v, a, b); };
  std::set<std::pair<std::int64_t, std::int64_t>> out;

  // squares, multiples of g, strictly increasing
  const std::int64_t squares = std::min(n - kDesignFixed, (hi - lo) / g + 1);
  std::vector<std::int64_t> sq;
  for (std::int64_t i = 0; i < squares; ++i) {
    const double f = squares == 1 ? 1.0 : double(i) / double(squares - 1);
    const double root = std::sqrt(double(a)) + f * (std::sqrt(double(b)) - std::sqrt(double(a)));
    std::int64_t v = aligned(root * root);
    if (!sq.empty()) v = std::max(v, sq.back() + g);
    sq.push_back(v);
  }
  for (std::int64_t i = squares - 1; i >= 0; --i) {  // from the top: room for every square below hi
    const auto k = static_cast<std::size_t>(i);
    if (k + 1 < sq.size()) sq[k] = std::min(sq[k], sq[k + 1] - g);
    sq[k] = std::min(sq[k], hi - (squares - 1 - i) * g);
    out.emplace(sq[k], sq[k]);
  }
  // around the L2 capacity
  for (double f : {0.9, 1.1}) {
    const double side = std::sqrt(f * kDesignL2Bytes / kDesignBytesPerElement);
    if (side >= double(a) && side <= double(b)) out.emplace(aligned(side), aligned(side));
  }
  auto both = [&](std::int64_t x, std::int64_t y) {
    out.emplace(x, y);
    out.emplace(y, x);
  };
  auto of_class = [&](double v, std::int64_t off) {  // 16m + off nearest v, inside A..B
    auto m = static_cast<std::int64_t>(std::llround(v / 16.0));
    while (16 * m + off > b) --m;
    while (16 * m + off < a) ++m;
    return 16 * m + off;
  };
  // the alignment classes: odd (16m - 1) and 2 mod 4 (16m + 2) squares, 3 each, spread evenly
  const std::int64_t offset[2] = {-1, 2};
  for (int c = 0; c < 2; ++c)
    for (int j = 0; j < 3; ++j) {
      const std::int64_t v = of_class(at((j + (c + 0.5) / 2.0) / 3.0), offset[c]);
      out.emplace(v, v);
    }
  // mixed classes: near-squares (about 8:7) whose extents fall in different classes of the
  // vector widths (odd, 2 mod 4, a multiple of 16), both ways, in and above L2: each axis's loads
  // and stores take their own path (odd rows with 16-byte columns, and the reverse)
  struct Mixed {
    std::int64_t off_x, off_y;
    double f;
  };
  for (const Mixed& mx :
       {Mixed{-1, 0, 0.80}, Mixed{-1, 0, 0.97}, Mixed{2, 0, 0.83}, Mixed{2, 0, 0.95}, Mixed{-1, 2, 0.90}}) {
    const std::int64_t x = of_class(at(mx.f), mx.off_x), y = of_class(at(mx.f) * 7.0 / 8.0, mx.off_y);
    both(x, y);
  }
  // rectangles, both ways
  both(hi, aligned(double(hi) / 16));
  const std::int64_t mid = aligned(at(0.8));
  both(mid, aligned(double(mid) / 4));
  auto odd = [&](double v) {
    std::int64_t x = in_range(static_cast<std::int64_t>(std::llround(v / 16.0)) * 16 + 1);
    return x % 2 ? x : (x + 1 <= b ? x + 1 : x - 1);
  };
  const std::int64_t long_odd = odd(at(0.9));
  both(long_odd, odd(double(long_odd) / 4));
  const std::int64_t thin = odd(at(0.7));
  both(thin, odd(std::max(double(a), double(thin) / 16)));
  // one side aligned, the other not: odd (3:2) and 2 mod 4 (4:1)
  const std::int64_t half = aligned(at(0.7));
  both(half, odd(double(half) / 1.5));
  const std::int64_t quarter = aligned(at(0.85));
  both(quarter, in_range(static_cast<std::int64_t>(std::llround(double(quarter) / 4 / 16)) * 16 + 2));
  // odd squares near the powers of two p in 2A..B (the 5 smallest): p - 3 and p + 3 in turn
  std::int64_t p = 1;
  while (p < 2 * a) p *= 2;
  for (int i = 0; i < kDesignNearPowers && p <= b; ++i, p *= 2) {
    const std::int64_t v = i % 2 == 0 || p + 3 > b ? p - 3 : p + 3;
    out.emplace(v, v);
  }

  std::vector<Size> sizes;
  sizes.reserve(out.size());
  for (const auto& [x, y] : out) sizes.push_back(Size::of(x, y));
  std::stable_sort(sizes.begin(), sizes.end(), [](const Size& p, const Size& q) {
    return p.elements() != q.elements() ? p.elements() < q.elements() : p.dims < q.dims;
  });
  return sizes;
}

}  // namespace tune::sizes

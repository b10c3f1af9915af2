// A size design: a budgeted set of 2-D problem sizes that teaches the selection model
// (select/select.h) the classes an application meets, asked for as `--sizes design:A:B[:N]`:
// - squares across A..B, multiples of G = min(128, the largest power of two <= A), log-spaced (so
//   the small, cheap sizes are dense): N - 35 of them;
// - two squares around the L2 capacity of an H200 (60 MiB) at 8 bytes per element (a 4-byte
//   element read and written, as a transpose or copy): 0.9 and 1.1 times it, when inside A..B;
// - 6 squares of the alignment classes, 3 each, spread over the range: odd (16m - 1) and 2 mod 4
//   (16m + 2);
// - 10 near-squares (8:7) of mixed classes, both ways: odd by a multiple of 16 at 0.80 and 0.97 of
//   the range (log scale), 2 mod 4 by a multiple of 16 at 0.83 and 0.95, odd by 2 mod 4 at 0.90;
// - 8 rectangles, both ways: 16:1 and 4:1 multiples of G, 4:1 with odd extents, and a thin one
//   with odd extents (up to 16:1, the short side at least A);
// - 4 rectangles with one side a multiple of G and the other not, both ways: odd (3:2) and 2 mod 4
//   (4:1);
// - odd squares near the 5 smallest powers of two p in 2A..B: p - 3 and p + 3 in turn.
// Deterministic; ordered by element count, then extents; sizes that coincide count once (so the
// design may hold fewer than N).
#pragma once
#include <cstdint>
#include <vector>

#include "sizes/sizes.h"

namespace tune::sizes {

inline constexpr std::int64_t kDesignDefault = 45;  // sizes: 10 squares; the main job's wall near 32 squares
inline constexpr int kDesignNearPowers = 5;         // odd squares near powers of two
inline constexpr std::int64_t kDesignFixed = 35;    // the L2, class, mixed, rectangle and near-power sizes
inline constexpr double kDesignL2Bytes = 60.0 * (1 << 20);
inline constexpr double kDesignBytesPerElement = 8;

// Throws InputError naming `text` when A < 32, B < 4 A, or N is outside kDesignFixed + 2 .. 1000.
std::vector<Size> design(std::int64_t a, std::int64_t b, std::int64_t n, std::string_view text);

}  // namespace tune::sizes

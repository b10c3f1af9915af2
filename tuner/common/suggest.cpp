#include "common/suggest.h"

#include <algorithm>
#include <vector>

namespace tune {

namespace {

// Optimal string alignment distance: insertions, deletions, substitutions and transpositions of
// adjacent characters ("bset" is one edit from "best").
std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string closest_name(std::string_view given, std::span<const std::string_view> known) {
  if (given.size() > 256) return "";  // names are short; a long input is not a typo
  const std::size_t limit = std::max<std::size_t>(1, given.size() / 3);
  std::string best;
  std::size_t best_distance = limit + 1;
  for (std::string_view k : known)
    if (const std::size_t d = distance(given, k); d < best_distance) {
      best_distance = d;
      best = std::string(k);
    }
  return best;
}

std::string did_you_mean(std::string_view given, std::span<const std::string_view> known) {
  const std::string c = closest_name(given, known);
  return c.empty() ? "" : " (did you mean '" + c + "'?)";
}

}  // namespace tune

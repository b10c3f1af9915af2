#include "common/suggest.h"

#include <algorithm>
#include <vector>

namespace tune {

namespace {

std::size_t distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
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

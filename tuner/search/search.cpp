#include "search/search.h"

#include <numeric>

#include "common/error.h"

namespace tune::search {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names{"brute_force", "random_sample"};
  return names;
}

void check_strategy(const std::string& name) {
  std::string known;
  for (const auto& n : strategy_names()) {
    if (n == name) return;
    known += (known.empty() ? "" : ", ") + n;
  }
  throw InputError("unknown --strategy '" + name + "' (available: " + known + ")");
}

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t Rng::below(std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = next();
  while (x >= limit);
  return x % n;
}

std::vector<std::size_t> visit_order(const std::string& strategy, std::size_t count, std::uint64_t seed) {
  check_strategy(strategy);
  std::vector<std::size_t> order(count);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (strategy == "random_sample") {
    Rng rng(seed);
    for (std::size_t i = count; i > 1; --i) std::swap(order[i - 1], order[rng.below(i)]);  // Fisher-Yates
  }
  return order;
}

}  // namespace tune::search

// Search strategies: the order in which a strategy visits the valid configurations of a space.
// This build has the two that need no feedback: brute_force (declaration order) and random_sample
// (a seeded permutation, so the same seed gives the same run).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace tune::search {

// Names accepted by --strategy.
const std::vector<std::string>& strategy_names();

// Throws InputError for an unknown strategy (listing the known ones).
void check_strategy(const std::string& name);

// The visiting order of `count` configurations: every index once.
std::vector<std::size_t> visit_order(const std::string& strategy, std::size_t count, std::uint64_t seed);

// A seeded 64-bit generator whose output is the same on every platform (splitmix64).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n), n > 0, without modulo bias

 private:
  std::uint64_t state_;
};

}  // namespace tune::search

// One search path for every evaluator: the GPU sweep (sweep_search.cpp, an evaluator that measures)
// and the replay (replay.cpp, an evaluator that looks recorded measurements up) search each problem
// size through SizeSearch, so that a replay predicts what the same strategy does on the GPU:
//   - the order across sizes: by problem volume (search_order);
//   - the starts of a size: the best kStartsPerSize configurations found at each of the
//     kNeighbourSizes nearest sizes already searched (select.h: per-axis log ratios), nearest first, evaluated
//     before the strategy runs (it finds them visited: a revisit is free); none with seed_sizes off;
//   - the seeding: the policy's seed plus the size's position in the search order;
//   - the budget: per size, counted by search::Context on the evaluator's clock (wall time on the
//     GPU, Kernel Tuner's simulated time in a replay).
// As KTT drives real tuning and SimulateTuning through one searcher and stop condition.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/search.h"
#include "space/space.h"
#include "store/store.h"

namespace tune::tuning {

inline constexpr std::size_t kNeighbourSizes = 2;
inline constexpr std::size_t kStartsPerSize = 2;

struct SearchPolicy {
  std::string strategy;
  search::StrategyOptions options;
  search::Budget budget;  // per size
  std::uint64_t seed = 1;
  bool seed_sizes = true;  // start each size from its searched neighbours' best
};

// One size's search.
struct SizeOutcome {
  sizes::Size size;
  std::vector<std::size_t> starts;                // evaluated first
  std::vector<std::string> seeded_from;           // the sizes they came from
  std::vector<std::size_t> evaluated;             // configurations, in evaluation order
  std::vector<std::optional<double>> objectives;  // their objectives (nullopt: failed)
  std::optional<std::size_t> best;
  double best_objective = 0;
};

// Positions of `sizes` in search order: by volume (the product of the dimensions), then by the
// dimensions themselves; equal sizes keep their order.
std::vector<std::size_t> search_order(const std::vector<sizes::Size>& sizes);

// The searches of one kernel on one device, size after size (in search_order).
class SizeSearch {
 public:
  SizeSearch(const space::Space& space, SearchPolicy policy);

  // The starts `size` would get from the sizes searched so far.
  std::vector<std::size_t> starts_for(const sizes::Size& size, std::vector<std::string>* from = nullptr) const;

  // Searches `size` with `evaluator`: the starts first, then the strategy, within the budget.
  // Exceptions from the evaluator other than search::Stop propagate (the size is not recorded).
  const SizeOutcome& search(const sizes::Size& size, search::Evaluator& evaluator);

  const std::vector<SizeOutcome>& done() const { return done_; }
  const SearchPolicy& policy() const { return policy_; }

 private:
  const space::Space& space_;
  SearchPolicy policy_;
  std::vector<SizeOutcome> done_;
};

}  // namespace tune::tuning

// Choosing a default strategy from an evaluation without fitting it to the caches at hand.
//
// Summary per strategy: the mean score over the caches, the worst cache, and a 95% bootstrap
// interval of the mean (percentiles 2.5 and 97.5 of the mean over caches of each cell's b-th
// resample of its repeats, Cell::resampled).
//
// The rule: among the strategies with a score on every cache, the best mean among those scoring
// at least 0 on every cache (never worse than random search); when none does, the best worst
// cache.
//
// Leave-one-cache-out: for each cache, the rule applied to the other caches chooses a strategy,
// which is then scored on the cache it did not see. The mean and worst of those held-out scores
// estimate what the rule's choice scores on caches nobody tuned to. The choice on all caches is the
// default; its stability is the share of bootstrap resamples (every cell's b-th resample) on which
// the rule chooses it again.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "evaluate/evaluate.h"

namespace tune::evaluate {

struct Summary {
  std::optional<double> mean;       // nullopt when a cell failed or has no score
  std::optional<double> worst;      // the lowest per-cache score
  std::string worst_cache;          // its label
  std::optional<double> low, high;  // 95% bootstrap interval of the mean (nullopt: no resamples)
};
Summary summarize(const Result& r, std::size_t strategy);

// The rule over `caches` (indices into r.problems), on the point scores (b = nullopt) or on
// resample b. nullopt when no strategy has a score on all of them.
std::optional<std::size_t> choose(const Result& r, const std::vector<std::size_t>& caches,
                                  std::optional<std::size_t> b = std::nullopt);

struct Fold {
  std::size_t held_out = 0;              // the cache left out
  std::optional<std::size_t> chosen;     // the rule on the others
  std::optional<double> held_out_score;  // the chosen strategy's score on the held-out cache
};

struct Selection {
  std::vector<Fold> folds;
  std::optional<std::size_t> choice;  // the rule on every cache
  double stability = 0;               // share of resamples choosing `choice` again (0 when none)
  std::optional<double> held_out_mean, held_out_worst;
};
// Needs at least two caches.
Selection leave_one_out(const Result& r);

// The summary table (mean, interval, worst cache per strategy); the folds and the choice.
std::string format_summary(const Result& r);
std::string format_selection(const Result& r, const Selection& s);
nlohmann::ordered_json summary_json(const Result& r);
nlohmann::ordered_json selection_json(const Result& r, const Selection& s);

}  // namespace tune::evaluate

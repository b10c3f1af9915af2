// The GPU sweep's evaluator at one size (sweep_search.cpp), apart from the GPU so that a test can
// drive it with measurements fed from a recorded cache: a configuration an earlier run stored at
// this size answers from the database without a measurement (a re-run resumes); any other goes to
// `measure` (compile if needed, verify, time, store). Its clock, for the budget, is the caller's:
// the run's wall clock on the GPU.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <vector>

#include "search/search.h"

namespace tune::tuning {

class SweepEvaluator : public search::Evaluator {
 public:
  using Measure = std::function<std::optional<double>(std::size_t)>;
  using Clock = std::function<double()>;
  using Prefetch = std::function<void(const std::vector<std::size_t>&)>;
  // `stored`: a configuration (its index in the space) -> its stored objective (nullopt: stored as
  // failed); the caller maps the stored rows' params to indices at the store's boundary.
  SweepEvaluator(std::map<std::size_t, std::optional<double>> stored, Measure measure, Clock elapsed_s)
      : stored_(std::move(stored)), measure_(std::move(measure)), elapsed_(std::move(elapsed_s)) {}

  std::optional<double> evaluate(std::size_t config) override {
    if (auto it = stored_.find(config); it != stored_.end()) return it->second;
    ++measured_;
    return measure_(config);
  }
  double elapsed_s() const override { return elapsed_(); }
  // Hints for configurations that will need a measurement (not those stored already).
  void prefetch(const std::vector<std::size_t>& configs) override {
    if (!prefetch_) return;
    std::vector<std::size_t> need;
    for (std::size_t c : configs)
      if (!stored_.contains(c)) need.push_back(c);
    if (!need.empty()) prefetch_(need);
  }
  bool wants_prefetch() const override { return static_cast<bool>(prefetch_); }
  void on_prefetch(Prefetch fn) { prefetch_ = std::move(fn); }
  // Stored configurations are ready; the others as `ready` says (compiled, or failed to).
  bool ready(std::size_t config) override { return !ready_ || stored_.contains(config) || ready_(config); }
  void on_ready(std::function<bool(std::size_t)> fn) { ready_ = std::move(fn); }
  std::size_t measured() const { return measured_; }  // evaluations that went to `measure`

 private:
  std::map<std::size_t, std::optional<double>> stored_;
  Measure measure_;
  Clock elapsed_;
  Prefetch prefetch_;
  std::function<bool(std::size_t)> ready_;
  std::size_t measured_ = 0;
};

}  // namespace tune::tuning

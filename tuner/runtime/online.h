// Internal to the runtime library: online tuning at a size the table did not measure, without
// CUDA (the launches and events are runtime/online_launch.cpp's).
//
// The rule (Rotation), successive halving: the first `launches` launches at the size are spent
// in rounds. In the first round every candidate gets at least min_samples timed launches; after
// each round the better half by median goes on (the table's pick needs a rival kMargin faster to
// be dropped), and the last round, between two, gets what is left of the launches, so the close
// contenders are timed most. Each launch is timed by a pair of events read later, when it has
// completed; a launch issued while a round waits for its samples runs the best candidate so far.
// When the last round's samples are in, the lowest median wins (the same margin for the pick) and
// every later launch runs it. What the rotation cost: for each sample, its time minus the
// winner's median (extra_ms).
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/table.h"

namespace tune::runtime::detail {

struct OnlineRule {
  int launches = 64;    // launches that rotate among the candidates
  int min_samples = 4;  // timed launches each candidate gets in the first round
  int candidates = 8;   // at most this many (fewer where the first round cannot give min_samples)
};

// A rival replaces the table's pick only when its median is this much lower: single launches of
// a few microseconds are timed to a few percent.
inline constexpr double kMargin = 0.01;

class Rotation {
 public:
  // Throws std::invalid_argument for no candidates or a rule with launches < min_samples or a
  // non-positive field. Candidate 0 is the table's pick.
  Rotation(std::size_t candidates, OnlineRule rule);

  std::size_t size() const noexcept { return samples_.size(); }
  bool settled() const noexcept { return settled_; }
  std::size_t winner() const noexcept { return winner_; }  // valid once settled()
  std::size_t launched() const noexcept { return launched_; }
  const OnlineRule& rule() const noexcept { return rule_; }

  // The candidate the next launch runs (counts it as launched, and its sample as outstanding).
  std::size_t next();
  // The time of a launch of `candidate`, read back; ms < 0 means its events failed (no sample).
  void sample(std::size_t candidate, double ms);

  const std::vector<double>& samples(std::size_t candidate) const { return samples_.at(candidate); }
  double median(std::size_t candidate) const;  // +infinity without samples
  double extra_ms() const;                     // the rotation's time beyond the winner's (once settled)

 private:
  void advance_if_done();
  // Lower is better: the median, the pick's lowered by kMargin.
  double score(std::size_t candidate) const;
  std::vector<std::size_t> by_score() const;  // the active candidates, best first
  OnlineRule rule_;
  std::vector<std::vector<double>> samples_;
  std::vector<int> outstanding_;
  std::vector<std::size_t> active_;   // the candidates still in, in the model's order
  std::vector<std::size_t> targets_;  // per round: the samples each active candidate has by its end
  std::size_t round_ = 0;
  std::size_t launched_ = 0, winner_ = 0;
  bool settled_ = false;
};

// The candidates online tuning rotates among at `size`: the table's pick first, then the selection
// module's ranking there (detail::top_candidates), then the table's default variant; distinct, at
// most n.
std::vector<std::size_t> online_candidates(const Table& table, const std::string& device_name, int cc_major,
                                           int cc_minor, const Pick& pick, const std::array<long long, 3>& size,
                                           std::size_t n);

// The online result of one (kernel, device, size) as the file `tune import` reads
// (tuner/interop/online.cpp): format "tune-online", version 1.
struct OnlineResult {
  std::string kernel, space_hash, device;
  int cc_major = 0, cc_minor = 0;
  std::vector<long long> size;  // the spec's ProblemSize rank
  std::vector<std::string> parameters;
  std::vector<std::vector<expr::Value>> spec_values;  // every parameter's Values in the spec
  std::vector<std::vector<expr::Value>> candidates;   // each candidate's values
  OnlineRule rule;
  const Rotation* rotation = nullptr;
};
std::string online_file_text(const OnlineResult& r);
// "transpose-NVIDIA_H200-1000x999.online.json": a file name from the kernel, device and size.
std::string online_file_name(const OnlineResult& r);

}  // namespace tune::runtime::detail

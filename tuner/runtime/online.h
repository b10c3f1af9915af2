// Internal to the runtime library: online tuning at a size the table did not measure, without
// CUDA (the launches and events are runtime/online_launch.cpp's).
//
// The rule (Rotation): the first `launches` launches at the size run the candidates in turn
// (launch i runs candidate i % n, n at most launches / min_samples); each gives one sample from
// events read later, when it has completed: around the launch itself (batch 1, not held), or
// (held) around `batch` launches of the candidate on scratch outputs right after it, behind the
// L2 reset and untimed_launches(batch) untimed ones (the time per launch). Once `launches`
// launches have been issued and every candidate has min_samples samples, the candidate with the
// fastest sample wins (the table's pick, candidate 0, unless a rival's is kMargin faster) and
// every later launch runs it:
// launches of a few microseconds are slowed by what runs beside them, never sped up, so the
// fastest of a few is the steadiest estimate. Launches issued after the first `launches`
// while samples are still outstanding run a candidate short of samples, else the best so far.
// What the rotation cost (extra_ms): for each sample, its time minus the winner's median, and with
// held samples the batch's timed launches and what led up to them (the L2 reset and the untimed
// launches) as measured, or untimed_launches(batch) launches where that was not measured.
#pragma once
#include <array>
#include <cstddef>
#include <string>
#include <vector>

#include "runtime/table.h"

namespace tune::runtime::detail {

// A rival replaces the table's pick only when its fastest launch is this much faster.
inline constexpr double kMargin = 0.01;
// A batched sample lasts about this long (tune's own batches last at least 50 us), with at most
// kMaxBatch launches.
inline constexpr double kSampleMs = 0.05;
inline constexpr int kMaxBatch = 64;

// The untimed launches ahead of a batch of `batch` timed ones (they take the first launches' ramp
// after the hold, and bring the candidate's own data into the emptied L2): half a batch, at least
// one.
constexpr int untimed_launches(int batch) { return batch > 1 ? batch / 2 : 1; }

struct OnlineRule {
  int launches = 64;    // launches that rotate among the candidates
  int min_samples = 2;  // samples each candidate needs before one can win
  int candidates = 32;  // at most this many (and at most launches / min_samples)
  int batch = 1;        // launches per sample (1: the application's launch is the sample, unless held_single)
  // With batch 1, still sample on the scratch outputs behind the hold, after the L2 reset and an
  // untimed launch, as tune times a launch that fills a batch alone (Options::online.batch 0).
  bool held_single = false;
  // Whether samples are taken behind the hold on scratch outputs (runtime/online_batch.cpp).
  bool held() const noexcept { return batch > 1 || held_single; }
};

// The launches per sample for a launch expected to take `expected_ms`: enough for kSampleMs, at
// most kMaxBatch, 1 when one launch lasts that long; kMaxBatch / 8 when nothing is known (<= 0).
int batch_for(double expected_ms);

// Options::online as the rule at a size whose launch is expected to take `expected_ms` (its batch
// from batch_for when Options::online.batch is 0).
OnlineRule online_rule(const OnlineOptions& o, double expected_ms);
// Throws std::invalid_argument naming the field: a rule with launches < min_samples, a
// non-positive field or a batch over kMaxBatch; for the options also a batch below 0.
void check(const OnlineRule& rule);
void check(const OnlineOptions& o);

class Rotation {
 public:
  // Throws std::invalid_argument for no candidates or a rule that check() refuses.
  Rotation(std::size_t candidates, OnlineRule rule);

  std::size_t size() const noexcept { return samples_.size(); }
  bool settled() const noexcept { return settled_; }
  std::size_t winner() const noexcept { return winner_; }  // valid once settled()
  std::size_t launched() const noexcept { return launched_; }
  const OnlineRule& rule() const noexcept { return rule_; }

  // The candidate the next launch runs (counts it as launched, and its sample as outstanding).
  std::size_t next();
  // The time of a launch of `candidate`, read back; ms < 0 means its events failed (no sample).
  // lead_ms: a batched sample's time before its timed launches (the L2 reset, the untimed
  // launches), < 0 when not measured.
  void sample(std::size_t candidate, double ms, double lead_ms = -1);

  const std::vector<double>& samples(std::size_t candidate) const { return samples_.at(candidate); }
  double median(std::size_t candidate) const;   // +infinity without samples
  double fastest(std::size_t candidate) const;  // the lowest sample; +infinity without samples
  double extra_ms() const;                      // the rotation's time beyond the winner's (once settled)

 private:
  void settle_if_done();
  double score(std::size_t candidate) const;  // lower wins: fastest(), the pick's less kMargin
  OnlineRule rule_;
  std::vector<std::vector<double>> samples_;
  std::vector<int> outstanding_;
  std::size_t launched_ = 0, winner_ = 0;
  double lead_ms_ = 0;  // the batched samples' time before their timed launches
  bool settled_ = false;
};

// The candidates online tuning rotates among at `size`: the table's pick first, then the selection
// module's ranking there spread over the alignments (detail::spread_candidates: each alignment's
// best two, then the rest in rank order), then the table's default variant; distinct, at most n.
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

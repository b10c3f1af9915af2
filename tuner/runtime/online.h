// Internal to the runtime library: online tuning at a size the table did not measure, without
// CUDA (the launches and events are runtime/online_launch.cpp's).
//
// The rule (Rotation), successive halving in two rounds: the first n * min_samples launches at
// the size run the n candidates in turn (n at most `candidates` and launches / min_samples); then
// the `finalists` best of them by their samples' median (the table's pick, candidate 0, counted
// kMargin faster) share the launches left, in turn; once `launches` launches have been issued and
// every finalist has its share, the finalist with the lowest median wins and every later launch
// runs it. With finalists 0, or not fewer than n, there is one round: every candidate in turn for
// all `launches`, each needing min_samples samples, the lowest median of all winning.
// Each launch gives one sample from events read later, when it has completed: around the launch
// itself (batch 1, not held), or (held) around `batch` launches of the candidate on scratch
// buffers right after it, behind the L2 reset and untimed_launches(batch) untimed ones (the time
// per launch). The cut between the rounds needs the first round's samples: the launch that makes
// it waits for them (cut_pending(); runtime/online_launch.cpp polls the events, at most kCutWaitMs)
// and cuts on those that came back. Launches issued after the first `launches` while samples are
// still outstanding run a candidate (a finalist) short of samples, else the best so far.
// The statistic is the median: held samples are batches of about kSampleMs, whose noise goes both
// ways, and successive halving gives the finalists the samples a median needs.
// What the rotation cost (extra_ms): for each sample, its time minus the winner's median, and with
// held samples the batch's timed launches and what led up to them (the inputs' copies, the L2
// reset and the untimed launches) as measured, or untimed_launches(batch) launches where that was not measured.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "runtime/table.h"

namespace tune::runtime::detail {

// A rival replaces the table's pick only when its median is this much faster.
inline constexpr double kMargin = 0.01;
// The cut between the rounds waits at most this long (host time, once per size) for the first
// round's samples; those not back by then leave their candidates out of the final round.
inline constexpr int kCutWaitMs = 1000;
// A batched sample lasts about this long (tune's own batches last at least 50 us), with at most
// kMaxBatch launches.
inline constexpr double kSampleMs = 0.05;
inline constexpr int kMaxBatch = 64;
// Held samples run on this many sets of scratch buffers (placements), a candidate's samples in
// turn: a transpose's time depends on where its buffers lie (run/timing.h), and one set would rank
// the candidates by one arbitrary placement, as tune's first pass times two.
inline constexpr int kPlacements = 2;

// What a placement holds for one argument of the kernel. Outputs get a buffer of their own (what it
// held does not matter). Inputs get a copy of the application's buffer, made at the placement's
// first sample: with the application's own input in every placement, the inputs would lie in one
// place for all of them. Scalars, tensor maps and empty buffers get nothing (the application's
// argument is passed); so do inputs when `copy_inputs` is off (scratch memory short).
enum class ScratchUse { none, output, input_copy };
ScratchUse scratch_use(bool scalar, bool output, bool tensor_map, std::uint64_t count, bool copy_inputs) noexcept;
// The placements take at most this share of the device's free memory, so that the rotation does
// not leave the application short: first with the inputs' copies, else without, else no
// placements at all (the samples then time the application's launches).
inline constexpr double kScratchShare = 0.5;
constexpr bool scratch_fits(std::uint64_t bytes, std::uint64_t free_bytes) noexcept {
  return static_cast<double>(bytes) <= kScratchShare * static_cast<double>(free_bytes);
}

// The untimed launches ahead of a batch of `batch` timed ones (they take the first launches' ramp
// after the hold, and bring the candidate's own data into the emptied L2): half a batch, at least
// one.
constexpr int untimed_launches(int batch) { return batch > 1 ? batch / 2 : 1; }

struct OnlineRule {
  int launches = 64;    // launches that rotate among the candidates
  int min_samples = 1;  // samples each candidate takes in the first round
  int candidates = 40;  // at most this many (and at most launches / min_samples)
  int batch = 1;        // launches per sample (1: the application's launch is the sample, unless held_single)
  // With batch 1, still sample on the scratch buffers behind the hold, after the L2 reset and an
  // untimed launch, as tune times a launch that fills a batch alone (Options::online.batch 0).
  bool held_single = false;
  int finalists = 4;  // the first round's best, which share the launches left (0: one round)
  // Whether samples are taken behind the hold on scratch buffers (runtime/online_batch.cpp).
  bool held() const noexcept { return batch > 1 || held_single; }
};

// The launches per sample for a launch expected to take `expected_ms`: enough for kSampleMs, at
// most kMaxBatch, 1 when one launch lasts that long; kMaxBatch / 8 when nothing is known (<= 0).
int batch_for(double expected_ms);

// Options::online as the rule at a size whose launch is expected to take `expected_ms` (its batch
// from batch_for when Options::online.batch is 0).
OnlineRule online_rule(const OnlineOptions& o, double expected_ms);
// Throws std::invalid_argument naming the field: a rule with launches < min_samples, a
// non-positive field (finalists: negative) or a batch over kMaxBatch; for the options also a
// batch below 0.
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
  bool two_rounds() const noexcept { return two_rounds_; }
  // The candidates of the final round, best first (every candidate with one round), once cut.
  const std::vector<std::size_t>& finalists() const noexcept { return finalists_; }
  // The first round is issued and the cut not made, with some of its samples still outstanding:
  // the next launch should wait for them (next() cuts on what has come back).
  bool cut_pending() const noexcept;

  // The candidate the next launch runs (counts it as launched, and its sample as outstanding).
  std::size_t next();
  std::size_t launches_of(std::size_t candidate) const { return launches_of_.at(candidate); }
  // The time of a launch of `candidate`, read back; ms < 0 means its events failed (no sample).
  // lead_ms: a batched sample's time before its timed launches (the L2 reset, the untimed
  // launches), < 0 when not measured.
  void sample(std::size_t candidate, double ms, double lead_ms = -1);

  const std::vector<double>& samples(std::size_t candidate) const { return samples_.at(candidate); }
  double median(std::size_t candidate) const;   // +infinity without samples
  double fastest(std::size_t candidate) const;  // the lowest sample; +infinity without samples
  double extra_ms() const;                      // the rotation's time beyond the winner's (once settled)

 private:
  void cut();
  void settle_if_done();
  std::size_t best_of(const std::vector<std::size_t>& among) const;  // the lowest score()
  std::size_t target() const;                                        // the samples a candidate of the last round needs
  double score(std::size_t candidate) const;                         // lower wins: median(), the pick's less kMargin
  OnlineRule rule_;
  std::vector<std::vector<double>> samples_;
  std::vector<int> outstanding_;
  std::vector<std::size_t> launches_of_;  // per candidate: the launches next() gave it
  std::vector<std::size_t> finalists_;    // every candidate until the cut
  std::size_t launched_ = 0, winner_ = 0, first_round_ = 0;
  double lead_ms_ = 0;  // the batched samples' time before their timed launches
  bool settled_ = false, two_rounds_ = false, cut_ = false;
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
  const Rotation* rotation = nullptr;                 // the rule, the samples, the winner
  double cut_wait_ms = 0;                             // host time the cut waited for the first round's samples
  int placements = 0;          // the held samples' sets of scratch buffers (0: the application's buffers)
  bool inputs_copied = false;  // whether those sets held copies of the inputs (scratch_use)
};
// Every candidate, the table's pick first; one whose events all failed has no samples.
std::string online_file_text(const OnlineResult& r);
// "transpose-NVIDIA_H200-1000x999.online.json": a file name from the kernel, device and size.
std::string online_file_name(const OnlineResult& r);

}  // namespace tune::runtime::detail

#include "runtime/online.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "spec/spec.h"

namespace tune::runtime::detail {

void check(const OnlineRule& rule) {
  if (rule.launches < 1 || rule.min_samples < 1 || rule.candidates < 1 || rule.launches < rule.min_samples)
    throw std::invalid_argument("online rule: launches >= min_samples >= 1 and candidates >= 1");
  if (rule.finalists < 0) throw std::invalid_argument("online rule: finalists must be >= 0 (0: one round)");
  if (rule.batch < 1 || rule.batch > kMaxBatch)
    throw std::invalid_argument("online rule: batch must be in 1.." + std::to_string(kMaxBatch));
}

OnlineRule online_rule(const OnlineOptions& o, double expected_ms) {
  return {o.launches,   o.min_samples, o.candidates, o.batch == 0 ? batch_for(expected_ms) : o.batch,
          o.batch == 0, o.finalists};
}

void check(const OnlineOptions& o) {
  if (o.batch < 0 || o.batch > kMaxBatch)
    throw std::invalid_argument("batch must be in 0.." + std::to_string(kMaxBatch) + " (0: sized per size)");
  check(online_rule(o, 0));
}

Rotation::Rotation(std::size_t candidates, OnlineRule rule) : rule_(rule) {
  check(rule);
  if (candidates == 0) throw std::invalid_argument("online tuning needs at least one candidate");
  const auto most = static_cast<std::size_t>(std::min(rule.candidates, rule.launches / rule.min_samples));
  const std::size_t n = std::min(candidates, most);
  samples_.resize(n);
  outstanding_.assign(n, 0);
  launches_of_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) finalists_.push_back(i);
  first_round_ = n * static_cast<std::size_t>(rule.min_samples);
  const auto f = static_cast<std::size_t>(rule.finalists);
  two_rounds_ = f > 0 && f < n && first_round_ < static_cast<std::size_t>(rule.launches);
}

std::size_t Rotation::target() const {
  const auto min_samples = static_cast<std::size_t>(rule_.min_samples);
  if (!two_rounds_) return min_samples;
  const auto f = static_cast<std::size_t>(rule_.finalists);
  return min_samples + (static_cast<std::size_t>(rule_.launches) - first_round_) / f;
}

bool Rotation::cut_pending() const noexcept {
  if (!two_rounds_ || cut_ || settled_ || launched_ < first_round_) return false;
  return std::any_of(outstanding_.begin(), outstanding_.end(), [](int n) { return n > 0; });
}

void Rotation::cut() {
  // Candidates with samples by score, then those without (their events failed or are not back:
  // score() is infinite), each score computed once.
  std::vector<double> scores(samples_.size());
  std::vector<std::size_t> order(samples_.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i, scores[i] = score(i);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return scores[a] < scores[b]; });
  order.resize(static_cast<std::size_t>(rule_.finalists));
  finalists_ = std::move(order);
  cut_ = true;
}

std::size_t Rotation::best_of(const std::vector<std::size_t>& among) const {
  std::size_t best = among.front();
  double best_score = score(best);
  for (std::size_t i : among) {
    const double s = score(i);
    if (s < best_score) best = i, best_score = s;
  }
  return best;
}

std::size_t Rotation::next() {
  std::size_t c = 0;
  const auto launches = static_cast<std::size_t>(rule_.launches);
  if (settled_) {
    c = winner_;
  } else if (launched_ < (two_rounds_ ? first_round_ : launches)) {
    c = launched_ % samples_.size();
  } else if (two_rounds_ && launched_ < launches) {
    if (!cut_) cut();
    c = finalists_[(launched_ - first_round_) % finalists_.size()];
  } else {
    // Past the rotation (with two rounds the cut is made: launches > first_round_), samples still
    // outstanding: a finalist short of them, else the best so far.
    const auto short_of = [&](std::size_t i) {
      return samples_[i].size() + static_cast<std::size_t>(outstanding_[i]) < target();
    };
    const auto it = std::find_if(finalists_.begin(), finalists_.end(), short_of);
    c = it != finalists_.end() ? *it : best_of(finalists_);
  }
  ++launched_;
  ++launches_of_[c];
  if (!settled_) ++outstanding_[c];
  return c;
}

void Rotation::sample(std::size_t candidate, double ms, double lead_ms) {
  if (settled_ || candidate >= samples_.size()) return;
  if (outstanding_[candidate] > 0) --outstanding_[candidate];
  if (ms >= 0 && std::isfinite(ms)) {
    samples_[candidate].push_back(ms);
    if (rule_.held()) lead_ms_ += lead_ms >= 0 && std::isfinite(lead_ms) ? lead_ms : untimed_launches(rule_.batch) * ms;
  }
  settle_if_done();
}

void Rotation::settle_if_done() {
  if (launched_ < static_cast<std::size_t>(rule_.launches)) return;  // and so, with two rounds, cut
  for (std::size_t i : finalists_)
    if (samples_[i].size() < target()) return;
  winner_ = best_of(finalists_);
  settled_ = true;
}

double Rotation::fastest(std::size_t candidate) const {
  const std::vector<double>& s = samples_.at(candidate);
  return s.empty() ? std::numeric_limits<double>::infinity() : *std::min_element(s.begin(), s.end());
}

double Rotation::score(std::size_t candidate) const { return median(candidate) * (candidate == 0 ? 1 - kMargin : 1.0); }

double Rotation::median(std::size_t candidate) const {
  std::vector<double> s = samples_.at(candidate);
  if (s.empty()) return std::numeric_limits<double>::infinity();
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

double Rotation::extra_ms() const {
  if (!settled_) return 0;
  const double best = median(winner_);
  // A batch's launches are all extra: the timed ones, and what led up to them (lead_ms_).
  const double batch_launches = rule_.held() ? rule_.batch : 0;
  double extra = lead_ms_;
  for (const auto& s : samples_)
    for (double ms : s) extra += ms - best + batch_launches * ms;
  return std::max(0.0, extra);  // single launches' noise can put rivals' samples below the winner's median
}

ScratchUse scratch_use(bool scalar, bool output, bool tensor_map, std::uint64_t count, bool copy_inputs) noexcept {
  if (scalar || tensor_map || count == 0) return ScratchUse::none;
  if (output) return ScratchUse::output;
  return copy_inputs ? ScratchUse::input_copy : ScratchUse::none;
}

int batch_for(double expected_ms) {
  if (!(expected_ms > 0) || !std::isfinite(expected_ms)) return kMaxBatch / 8;
  const double n = std::ceil(kSampleMs / expected_ms);
  return n >= kMaxBatch ? kMaxBatch : std::max(1, static_cast<int>(n));
}

std::vector<std::size_t> online_candidates(const Table& table, const std::string& device_name, int cc_major,
                                           int cc_minor, const Pick& pick, const std::array<long long, 3>& size,
                                           std::size_t n) {
  std::vector<std::size_t> out{pick.variant};
  const auto add = [&out](std::size_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const Ranked& r : spread_candidates(table, device_name, cc_major, cc_minor, size, n)) add(r.variant);
  add(table.default_variant);
  if (out.size() > n) out.resize(n);
  return out;
}

namespace {
// The spec's JSON of a list of values, in the ordered JSON of the file.
nlohmann::ordered_json values_json(const std::vector<expr::Value>& values) {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& v : values) list.push_back(spec::to_json(v));
  return nlohmann::ordered_json::parse(list.dump());
}
}  // namespace

std::string online_file_text(const OnlineResult& r) {
  using json = nlohmann::ordered_json;
  json j;
  j["format"] = "tune-online";
  j["version"] = 1;
  j["kernel_name"] = r.kernel;
  j["space_hash"] = r.space_hash;
  j["device_name"] = r.device;
  j["compute_capability"] = {r.cc_major, r.cc_minor};
  j["problem_size"] = r.size;
  j["parameters"] = r.parameters;
  json values = json::object();
  for (std::size_t p = 0; p < r.parameters.size(); ++p) {
    values[r.parameters[p]] = values_json(r.spec_values.at(p));
  }
  j["tune_params"] = std::move(values);
  const Rotation& rot = *r.rotation;
  const OnlineRule& rule = rot.rule();
  j["rule"] = {{"launches", rule.launches},
               {"min_samples", rule.min_samples},
               {"finalists", rot.two_rounds() ? rule.finalists : 0},
               {"batch", rule.batch},
               {"held", rule.held()},
               {"placements", r.placements},
               {"inputs_copied", r.inputs_copied},
               {"statistic", "median"},
               {"pick_margin", kMargin}};
  json candidates = json::array();
  for (std::size_t c = 0; c < r.candidates.size(); ++c) {
    candidates.push_back({{"values", values_json(r.candidates[c])},
                          {"samples_ms", rot.samples(c)},
                          {"min_ms", rot.fastest(c)},
                          {"median_ms", rot.median(c)}});
  }
  j["winner"] = rot.winner();
  j["extra_ms"] = rot.extra_ms();
  j["cut_wait_ms"] = r.cut_wait_ms;
  j["candidates"] = std::move(candidates);
  return j.dump(1) + "\n";
}

std::string online_file_name(const OnlineResult& r) {
  std::string name = r.kernel + "-" + r.device + "-";
  for (std::size_t i = 0; i < r.size.size(); ++i) name += (i ? "x" : "") + std::to_string(r.size[i]);
  for (char& ch : name)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.')) ch = '_';
  return name + ".online.json";
}

}  // namespace tune::runtime::detail

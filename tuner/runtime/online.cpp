#include "runtime/online.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "spec/spec.h"

namespace tune::runtime::detail {

namespace {
// The rounds for n candidates: each round's active count halves down to two; every round but the
// last gets half of what is left of the launches, the last the rest. Returns each round's
// cumulative samples per active candidate.
std::vector<std::size_t> halving(std::size_t n, std::size_t launches) {
  std::vector<std::size_t> targets;
  std::size_t active = n, left = launches, total = 0;
  while (true) {
    const bool last = active <= 2;
    const std::size_t budget = last ? left : left / 2;
    total += std::max<std::size_t>(1, budget / active);
    targets.push_back(total);
    if (last) break;
    left -= budget;
    active = (active + 1) / 2;
  }
  return targets;
}
}  // namespace

Rotation::Rotation(std::size_t candidates, OnlineRule rule) : rule_(rule) {
  if (rule.launches < 1 || rule.min_samples < 1 || rule.candidates < 1 || rule.launches < rule.min_samples)
    throw std::invalid_argument("online rule: launches >= min_samples >= 1 and candidates >= 1");
  if (candidates == 0) throw std::invalid_argument("online tuning needs at least one candidate");
  const auto launches = static_cast<std::size_t>(rule.launches);
  const auto least = static_cast<std::size_t>(rule.min_samples);
  std::size_t n = std::min(candidates, static_cast<std::size_t>(rule.candidates));
  while (n > 1 && halving(n, launches).front() < least) --n;
  samples_.resize(n);
  outstanding_.assign(n, 0);
  targets_ = halving(n, launches);
  for (std::size_t i = 0; i < n; ++i) active_.push_back(i);
}

double Rotation::score(std::size_t candidate) const { return median(candidate) * (candidate == 0 ? 1 - kMargin : 1.0); }

std::vector<std::size_t> Rotation::by_score() const {
  std::vector<std::size_t> order = active_;
  std::stable_sort(order.begin(), order.end(), [this](std::size_t a, std::size_t b) { return score(a) < score(b); });
  return order;
}

std::size_t Rotation::next() {
  std::size_t c = winner_;
  if (!settled_) {
    // The active candidate furthest from this round's target, in the model's order on ties.
    const std::size_t target = targets_[round_];
    std::size_t least = std::numeric_limits<std::size_t>::max();
    for (std::size_t i : active_) {
      const std::size_t have = samples_[i].size() + static_cast<std::size_t>(outstanding_[i]);
      if (have < target && have < least) {
        least = have;
        c = i;
      }
    }
    // Every launch of the round issued, samples still to come: the best so far.
    if (least == std::numeric_limits<std::size_t>::max()) c = by_score().front();
    ++outstanding_[c];
  }
  ++launched_;
  return c;
}

void Rotation::sample(std::size_t candidate, double ms) {
  if (settled_ || candidate >= samples_.size()) return;
  if (outstanding_[candidate] > 0) --outstanding_[candidate];
  if (ms >= 0 && std::isfinite(ms)) samples_[candidate].push_back(ms);
  advance_if_done();
}

void Rotation::advance_if_done() {
  while (!settled_) {
    for (std::size_t i : active_)
      if (samples_[i].size() < targets_[round_]) return;
    std::vector<std::size_t> order = by_score();
    if (round_ + 1 == targets_.size()) {
      winner_ = order.front();
      settled_ = true;
      return;
    }
    order.resize((order.size() + 1) / 2);
    std::sort(order.begin(), order.end());  // back to the model's order
    active_ = std::move(order);
    ++round_;
  }
}

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
  double extra = 0;
  for (const auto& s : samples_)
    for (double ms : s) extra += ms - best;
  return extra;
}

std::vector<std::size_t> online_candidates(const Table& table, const std::string& device_name, int cc_major,
                                           int cc_minor, const Pick& pick, const std::array<long long, 3>& size,
                                           std::size_t n) {
  std::vector<std::size_t> out{pick.variant};
  const auto add = [&out](std::size_t v) {
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  for (const Ranked& r : top_candidates(table, device_name, cc_major, cc_minor, size, n)) add(r.variant);
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
  j["rule"] = {{"launches", r.rule.launches}, {"min_samples", r.rule.min_samples}, {"statistic", "median"}};
  j["winner"] = r.rotation->winner();
  j["extra_ms"] = r.rotation->extra_ms();
  json candidates = json::array();
  for (std::size_t c = 0; c < r.candidates.size(); ++c) {
    candidates.push_back({{"values", values_json(r.candidates[c])},
                          {"samples_ms", r.rotation->samples(c)},
                          {"median_ms", r.rotation->median(c)}});
  }
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

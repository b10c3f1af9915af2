#include "decision/policy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <variant>
#include <vector>

#include "common/error.h"
#include "common/suggest.h"

namespace tune::decision {

namespace {

using Field = std::variant<int Policy::*, std::size_t Policy::*, double Policy::*, bool Policy::*, Statistic Policy::*>;

struct KeyField {
  PolicyKey key;
  Field field;
};

// Every key, in the order of the struct; the bounds keep a run finite and the method meaningful.
const std::array<KeyField, 36>& entries() {
  static const std::array<KeyField, 36> kEntries = {{
      {{"warmup", 0, 1000}, &Policy::warmup},
      {{"min_samples", 1, 100000}, &Policy::min_samples},
      {{"max_samples", 1, 1000000}, &Policy::max_samples},
      {{"min_batch_ms", 0.001, 1000}, &Policy::min_batch_ms},
      {{"max_noise", 0.0001, 1}, &Policy::max_noise},
      {{"min_time_ms", 0, 3600000}, &Policy::min_time_ms},
      {{"max_time_ms", 0.001, 3600000}, &Policy::max_time_ms},
      {{"max_retakes", 0, 100}, &Policy::max_retakes},
      {{"steady_throttle", 1, 100}, &Policy::steady_throttle},
      {{"flush_l2", 0, 1}, &Policy::flush_l2},
      {{"first_placements", 1, 64}, &Policy::first_placements},
      {{"late_placements_over_l2", 1, 1000000}, &Policy::late_placements_over_l2},
      {{"screen_ratio", 0, 100}, &Policy::screen_ratio},
      {{"screen_after", 1, 100000}, &Policy::screen_after},
      {{"contenders", 1, 1000}, &Policy::contenders},
      {{"contender_widen", 0, 100}, &Policy::contender_widen},
      {{"race_min_rounds", 1, 1000}, &Policy::race_min_rounds},
      {{"race_max_rounds", 1, 1000}, &Policy::race_max_rounds},
      {{"race_noise", 0, 1}, &Policy::race_noise},
      {{"placements", 1, 64}, &Policy::placements},
      {{"other_contexts", 0, 64}, &Policy::other_contexts},
      {{"other_contexts_below_ms", 0, 1000}, &Policy::other_contexts_below_ms},
      {{"other_placements", 1, 64}, &Policy::other_placements},
      {{"contenders_elsewhere", 1, 1000}, &Policy::contenders_elsewhere},
      {{"contender_widen_elsewhere", 0, 100}, &Policy::contender_widen_elsewhere},
      {{"first_pass_weight", 0, 0.99}, &Policy::first_pass_weight},
      {{"energy_updates", 2, 100}, &Policy::energy_updates},
      {{"energy_contenders", 1, 1000}, &Policy::energy_contenders},
      {{"energy_widen", 0, 10}, &Policy::energy_widen},
      {{"energy_race_updates", 2, 100}, &Policy::energy_race_updates},
      {{"energy_race_min_rounds", 2, 1000}, &Policy::energy_race_min_rounds},
      {{"energy_race_max_rounds", 2, 1000}, &Policy::energy_race_max_rounds},
      {{"energy_race_noise", 0, 1}, &Policy::energy_race_noise},
      {{"energy_warmup_ms", 0, 60000}, &Policy::energy_warmup_ms},
      {{"statistic", 0, 0}, &Policy::statistic},
      {{"tie_margin", 0, 0.5}, &Policy::tie_margin},
  }};
  return kEntries;
}

std::string number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

std::string percent(double fraction) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

// The timing method of one measurement (run/timing.h states it in full).
std::string describe_timing(const Policy& p) {
  std::string s =
      p.flush_l2 ? "one launch per sample between CUDA events, each after a 2 x L2 flush outside its events (cold L2), "
                   "enqueued behind a stream-blocking kernel, the host idle while it runs; "
                 : "batches of back-to-back launches (>= " + number(1000.0 * p.min_batch_ms) +
                       " us each) between CUDA events, enqueued behind a stream-blocking kernel, the host idle while "
                       "one runs, warm L2 (each block from an emptied L2, then primed); ";
  s += std::to_string(p.warmup) + " warm-up launch(es); mean of " + std::to_string(p.min_samples) + ".." +
       std::to_string(p.max_samples) + " samples" + (p.flush_l2 ? "" : " (ms per launch)") +
       ", stopped once its 95% interval is within " + percent(p.max_noise) + " (" + number(p.max_time_ms) +
       " ms of samples at most" + (p.min_time_ms > 0 ? ", " + number(p.min_time_ms) + " ms at least" : "") +
       "); rounds that saw the GPU throttle taken again (up to " + std::to_string(p.max_retakes) +
       "), unless throttling persisted through " + std::to_string(p.steady_throttle) + " measurements in a row";
  return s;
}

}  // namespace

std::span<const PolicyKey> policy_keys() {
  static const std::vector<PolicyKey> keys = [] {
    std::vector<PolicyKey> k;
    for (const auto& e : entries()) k.push_back(e.key);
    return k;
  }();
  return keys;
}

void Policy::set(std::string_view key, const nlohmann::json& value) {
  const KeyField* entry = nullptr;
  for (const auto& e : entries())
    if (e.key.name == key) entry = &e;
  if (entry == nullptr) {
    std::vector<std::string_view> known;
    for (const auto& e : entries()) known.push_back(e.key.name);
    std::string list;
    for (auto k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    throw InputError(std::string(key) + ": not a policy key" + did_you_mean(key, known) + " (keys: " + list + ")");
  }
  const PolicyKey& k = entry->key;
  const std::string name(k.name);
  const auto bounded = [&](double v) {
    if (!std::isfinite(v) || v < k.min || v > k.max)
      throw InputError(name + ": " + value.dump() + " is out of bounds (" + number(k.min) + ".." + number(k.max) + ")");
    return v;
  };
  std::visit(
      [&](auto field) {
        using T = std::remove_reference_t<decltype(this->*field)>;
        if constexpr (std::is_same_v<T, bool>) {
          if (!value.is_boolean()) throw InputError(name + ": expected true or false, got " + value.dump());
          this->*field = value.get<bool>();
        } else if constexpr (std::is_same_v<T, Statistic>) {
          if (!value.is_string() || (value != "mean" && value != "median"))
            throw InputError(name + ": expected \"mean\" or \"median\", got " + value.dump());
          this->*field = parse_statistic(value.get<std::string>());
        } else if constexpr (std::is_integral_v<T>) {
          if (!value.is_number_integer()) throw InputError(name + ": expected a whole number, got " + value.dump());
          this->*field = static_cast<T>(bounded(static_cast<double>(value.get<std::int64_t>())));
        } else {
          if (!value.is_number()) throw InputError(name + ": expected a number, got " + value.dump());
          this->*field = bounded(value.get<double>());
        }
      },
      entry->field);
}

void Policy::assign(std::string_view assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw InputError("'" + std::string(assignment) + "': expected key=value");
  const std::string_view key = assignment.substr(0, eq);
  const std::string text(assignment.substr(eq + 1));
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded() || text.empty()) value = text;
  set(key, value);
}

void Policy::check() const {
  const auto order = [](bool ok, const std::string& why) {
    if (!ok) throw InputError(why);
  };
  order(min_samples <= max_samples,
        "min_samples " + std::to_string(min_samples) + " exceeds max_samples " + std::to_string(max_samples));
  order(min_time_ms <= max_time_ms,
        "min_time_ms " + number(min_time_ms) + " exceeds max_time_ms " + number(max_time_ms));
  order(first_placements <= placements,
        "first_placements " + std::to_string(first_placements) + " exceeds placements " + std::to_string(placements));
  order(race_min_rounds <= race_max_rounds, "race_min_rounds " + std::to_string(race_min_rounds) +
                                                " exceeds race_max_rounds " + std::to_string(race_max_rounds));
  // A screened first pass is no contender: the bar must lie beyond the farthest a contender is
  // drawn from (contender_widen or contender_widen_elsewhere times the tie margin).
  const double reach = 1 + std::max(contender_widen, contender_widen_elsewhere) * tie_margin;
  order(screen_ratio == 0 || screen_ratio > reach,
        "screen_ratio " + number(screen_ratio) + " would screen out contenders: it must be 0 (off) or above " +
            number(reach) + " (1 + the widest contender reach x tie_margin)");
  order(energy_race_min_rounds <= energy_race_max_rounds,
        "energy_race_min_rounds " + std::to_string(energy_race_min_rounds) + " exceeds energy_race_max_rounds " +
            std::to_string(energy_race_max_rounds));
}

std::string Policy::describe_energy_race() const {
  return "the energy contenders at each size (within " + number(100 * energy_widen) +
         "% of the least first-pass energy, up to " + std::to_string(energy_contenders) + "), after up to " +
         number(energy_warmup_ms) + " ms of warm-up on the least one, measured again in " +
         std::to_string(energy_race_min_rounds) + " to " + std::to_string(energy_race_max_rounds) +
         " rounds of one window of " + std::to_string(energy_race_updates) +
         " updates each, back to back in alternating order, each window relative to the board's level at its "
         "moment (the rounds' geometric means, interpolated), until the leader is separated or each is known "
         "within " +
         number(100 * energy_race_noise) +
         "%; the energy verdict ranks the raced contenders alone, and among those within the tie margin of the "
         "least (or within its noise where smaller) the faster in time is used";
}

std::string Policy::describe() const {
  std::string s =
      describe_timing(*this) + "; a first pass on " + std::to_string(first_placements) +
      " placements of the arguments" +
      (screen_ratio > 0 ? ", stopped after " + std::to_string(screen_after) + " samples once the fastest is over " +
                              number(screen_ratio) + " times the size's best first pass so far"
                        : std::string()) +
      "; objective: the " + std::string(to_string(statistic)) +
      " of the samples; the contenders at each size (within " + number(contender_widen) +
      " times the tie margin of the best, up to " + std::to_string(contenders) + ") measured again in " +
      std::to_string(race_min_rounds) + " to " + std::to_string(race_max_rounds) +
      " interleaved rounds of one sample on each of up to " + std::to_string(placements) +
      " placements of the arguments, a contender leaving the race once outpaced, the rounds ending once "
      "each is known within " +
      percent(race_noise);
  if (!flush_l2 && other_contexts > 0)
    s += "; where the best takes under " + number(other_contexts_below_ms * 1000) +
         " us and the arguments fit in a quarter of L2, the contenders within " + number(contender_widen_elsewhere) +
         " times the tie margin (up to " + std::to_string(contenders_elsewhere) + ") raced on " +
         std::to_string(other_placements) + " placements and measured in " + std::to_string(other_contexts) +
         " further CUDA contexts too (" + std::to_string(race_min_rounds) + " rounds on " +
         std::to_string(other_placements) + " placements each), each value taken relative to its context's level";
  s += "; a contender's value weighs its first pass by " + number(first_pass_weight) +
       ", each moment's values relative to their level; tie margin " + percent(tie_margin);
  return s;
}

}  // namespace tune::decision

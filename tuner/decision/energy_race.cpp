#include "decision/energy_race.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/error.h"

namespace tune::decision {

namespace {

void check(std::span<const std::vector<double>> rounds) {
  for (std::size_t r = 0; r < rounds.size(); ++r) {
    if (rounds[r].size() != rounds[0].size())
      throw Error("energy race: round " + std::to_string(r) + " has " + std::to_string(rounds[r].size()) +
                  " contenders, round 0 has " + std::to_string(rounds[0].size()));
    for (double v : rounds[r])
      if (!(std::isfinite(v) && v > 0))
        throw Error("energy race: a value in round " + std::to_string(r) + " is not positive: " + std::to_string(v));
  }
}

double geometric_mean(std::span<const double> values) {
  double logs = 0;
  for (double v : values) logs += std::log(v);
  return std::exp(logs / static_cast<double>(values.size()));
}

}  // namespace

std::vector<std::size_t> energy_round_order(std::size_t n, int round) {
  std::vector<std::size_t> order(n);
  std::iota(order.begin(), order.end(), std::size_t{0});
  if (round % 2 != 0) std::reverse(order.begin(), order.end());
  return order;
}

std::vector<double> energy_round_levels(std::span<const std::vector<double>> rounds) {
  check(rounds);
  std::vector<double> levels;
  for (const auto& round : rounds)
    if (!round.empty()) levels.push_back(geometric_mean(round));
  return levels;
}

std::vector<Estimate> energy_race_estimates(std::span<const std::vector<double>> rounds) {
  const std::vector<double> levels = energy_round_levels(rounds);
  if (levels.empty()) return {};
  const std::size_t n = rounds[0].size(), last = levels.size() - 1;
  // The level at window g of the race (g = round * n + its position there): the round levels' logs
  // taken at the rounds' middles, interpolated linearly (extrapolated past the first and last).
  auto level_at = [&](std::size_t r, std::size_t position) {
    if (last == 0) return levels[0];
    const double g = static_cast<double>(r * n + position), half = (static_cast<double>(n) - 1) / 2;
    std::size_t j = r;
    if (j == last || (j > 0 && g < static_cast<double>(r * n) + half)) j = r - 1;
    const double slope = (std::log(levels[j + 1]) - std::log(levels[j])) / static_cast<double>(n);
    return std::exp(std::log(levels[j]) + slope * (g - (static_cast<double>(j * n) + half)));
  };
  const double level = std::accumulate(levels.begin(), levels.end(), 0.0) / static_cast<double>(levels.size());
  std::vector<Estimate> out(n);
  for (std::size_t k = 0; k < n; ++k) {
    std::vector<double> rel;
    rel.reserve(rounds.size());
    for (std::size_t r = 0; r < rounds.size(); ++r) {
      const std::vector<std::size_t> order = energy_round_order(n, static_cast<int>(r));
      const auto position = static_cast<std::size_t>(std::find(order.begin(), order.end(), k) - order.begin());
      rel.push_back(rounds[r][k] / level_at(r, position));
    }
    const Estimate e = estimate(rel, Statistic::mean);
    out[k] = {e.value * level, e.half_width * level, rel.size()};
  }
  return out;
}

bool energy_race_done(std::span<const std::vector<double>> rounds, const EnergyRaceRule& rule) {
  if (rounds.empty()) return rule.max_rounds <= 0;
  if (rounds[0].size() < 2) return true;
  const int n = static_cast<int>(rounds.size());
  if (n >= rule.max_rounds) return true;
  if (n < rule.min_rounds) return false;
  const std::vector<Estimate> e = energy_race_estimates(rounds);
  const auto leader =
      std::min_element(e.begin(), e.end(), [](const Estimate& a, const Estimate& b) { return a.value < b.value; });
  bool separated = true, known = true;
  for (auto it = e.begin(); it != e.end(); ++it) {
    known = known && it->relative() <= rule.noise;
    if (it != leader) separated = separated && outpaced(*it, *leader, rule.rule);
  }
  return separated || known;
}

}  // namespace tune::decision

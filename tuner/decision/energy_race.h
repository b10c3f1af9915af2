// The energy race at one size, as arithmetic (the GPU side: tuning/decider_energy.cpp). Pure: no
// GPU, no database.
//
// The energy contenders of a size are measured again in rounds: each round one window of every
// contender, back to back, in alternating order (forward, then reverse). The board's power drifts
// over the race (it rises as the board warms), by more than contenders differ: each window is taken
// relative to the board's level at its moment, the rounds' levels (the geometric mean of a round's
// windows, at the round's middle) interpolated between the rounds (log-linearly; extrapolated before
// the first middle and after the last), so a drift within and between rounds cancels. A
// contender's value is the mean level times the mean of its relative values, its 95% interval the
// Student's t interval of those values times that level.
// From `min_rounds` on, the race stops once the leader is separated (every other contender
// outpaced: its interval above the leader's by more than the tie margin) or every contender is
// known within `noise` (those still tied are then tied for good, and the tie-break prefers the
// faster: query/verdict.h); else at `max_rounds`.
#pragma once
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "decision/decision.h"

namespace tune::decision {

struct EnergyRaceRule {
  int min_rounds = 3;
  int max_rounds = 6;
  double noise = 0.005;  // stop once every contender's relative 95% half-width is within this
  Rule rule;             // the tie test (outpaced)
};

// The order of the contenders 0..n-1 in round `round` (from 0): forward on even rounds, reverse on
// odd ones.
std::vector<std::size_t> energy_round_order(std::size_t n, int round);

// rounds[r][k]: contender k's energy per launch in round r, every row as long as the first (Error
// otherwise, or when a value is not positive and finite). Per contender its estimate (see above),
// with `samples` the number of rounds; fewer than 1 round gives an empty vector.
std::vector<Estimate> energy_race_estimates(std::span<const std::vector<double>> rounds);

// Each round's level (the geometric mean of its values), in order: the board's drift over the race.
std::vector<double> energy_round_levels(std::span<const std::vector<double>> rounds);

// Whether the race is over after rounds.size() rounds (see above). Fewer than two contenders: yes.
bool energy_race_done(std::span<const std::vector<double>> rounds, const EnergyRaceRule& rule);

}  // namespace tune::decision

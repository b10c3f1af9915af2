// Shared machinery for strategies that move through a continuous space (diff_evo, pso,
// firefly_algorithm, dual_annealing, the Latin hypercube of bayes_opt): a position is one real
// number per parameter laid over its value indices, and snap() maps any position to the nearest
// VALID configuration of the space, so a strategy only ever evaluates valid configurations.
//
// Parameter p with n_p values spans [0, upper(p)]; value index i owns the cell
// [i*step(p), (i+1)*step(p)) and sits at its centre (i+0.5)*step(p). Scale::step is Kernel Tuner's
// scaling (strategies/common.py: eps = 1 / the largest value count; every index step is eps long,
// so parameter p spans [0, eps*n_p]); Scale::unit stretches every parameter to [0, 1].
#pragma once
#include <cstddef>
#include <span>
#include <vector>

#include "search/search.h"

namespace tune::search {

enum class Scale { step, unit };

class Continuous {
 public:
  explicit Continuous(const space::Space& space, Scale scale = Scale::step);

  std::size_t dims() const { return count_.size(); }
  double upper(std::size_t p) const { return step_[p] * static_cast<double>(count_[p]); }
  double step(std::size_t p) const { return step_[p]; }
  std::size_t values(std::size_t p) const { return count_[p]; }
  // Parameters with more than one value (the others never move anything).
  const std::vector<std::size_t>& active() const { return active_; }

  // The cell centres of a configuration's value indices.
  std::vector<double> position(std::size_t config) const;
  // A uniformly random position in the box.
  std::vector<double> random_position(Rng& rng) const;
  // Clips every coordinate into [0, upper(p)].
  void clamp(std::span<double> x) const;
  // The value index whose cell holds x (clamped into the parameter's range).
  space::Index index(std::size_t p, double x) const;
  // Squared Euclidean distance between a position and a configuration's cell centres.
  double distance2(std::span<const double> x, std::size_t config) const;

  // The valid configuration nearest to x: the configuration of the cells holding x when it is
  // valid; otherwise the nearest valid configuration that differs from it in one parameter;
  // otherwise the nearest valid configuration of all (spaces up to kScanLimit configurations) or
  // of a random sample of kScanSample configurations (larger spaces). Never an invalid one.
  std::size_t snap(std::span<const double> x, Rng& rng) const;
  static constexpr std::size_t kScanLimit = 1 << 18;
  static constexpr std::size_t kScanSample = 4096;

  const space::Space& space() const { return space_; }

 private:
  const space::Space& space_;
  std::vector<std::size_t> count_;
  std::vector<double> step_;
  std::vector<std::size_t> active_;
};

// A configuration near `config` that has not been evaluated yet: `config` itself when unvisited,
// else a random unvisited Hamming neighbour, else a random unvisited configuration (throws Stop
// when every configuration has been visited). Population strategies use it to replace an
// individual that landed on a known configuration, so that a converged swarm keeps making progress.
std::size_t fresh_near(Context& ctx, std::size_t config);

// Evaluates the position `x` of a population strategy: the nearest valid configuration, or, when
// that one is already evaluated, fresh_near of it, in which case `x` moves there. Returns its cost
// (Context::cost: failures are kFailed).
double evaluate_fresh(Context& ctx, const Continuous& box, std::vector<double>& x);

// `n` distinct configurations to start a population from: ctx.starts() first (those of them that
// are distinct), then random unvisited ones; fewer than n only when the space is smaller than n.
std::vector<std::size_t> initial_population(Context& ctx, std::size_t n);

// Reads a count option (popsize, maxiter): an integer >= `min`, else InputError naming it.
std::size_t count_option(const Context& ctx, const std::string& key, long fallback, long min = 1);
// Reads a real option that must be finite and inside [lo, hi], else InputError naming it.
double real_option(const Context& ctx, const std::string& key, double fallback, double lo, double hi);

}  // namespace tune::search

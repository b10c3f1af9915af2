// Differential evolution after scipy.optimize.differential_evolution as Kernel Tuner calls it
// (strategies/diff_evo.py): a population of `popsize` vectors started on valid configurations,
// `maxiter` generations, immediate updating, mutation factor dithered in [0.5, 1) per generation,
// crossover probability 0.7, a mutant coordinate outside its bounds replaced by a uniform one.
// Positions live in the unit box over the value indices of the parameters that have more than one
// value (continuous.h); a trial is snapped to the nearest valid configuration, and a trial that
// lands on a configuration already evaluated is moved to an unvisited one nearby (fresh_near), so
// every trial is a new evaluation and a converged population keeps searching around its best.
//
// method (scipy's strategy names): best1bin (default), best1exp, rand1bin, rand1exp,
// randtobest1bin, randtobest1exp, currenttobest1bin, currenttobest1exp, best2bin, best2exp,
// rand2bin, rand2exp.
#include <algorithm>
#include <string>

#include "common/error.h"
#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {

enum class Base { best1, rand1, randtobest1, currenttobest1, best2, rand2 };

struct Method {
  Base base;
  bool binomial;
};

Method parse_method(const std::string& name) {
  static const std::pair<const char*, Base> bases[] = {{"best1", Base::best1},
                                                       {"rand1", Base::rand1},
                                                       {"randtobest1", Base::randtobest1},
                                                       {"currenttobest1", Base::currenttobest1},
                                                       {"best2", Base::best2},
                                                       {"rand2", Base::rand2}};
  for (const auto& [prefix, base] : bases)
    for (const char* tail : {"bin", "exp"})
      if (name == std::string(prefix) + tail) return {base, std::string(tail) == "bin"};
  throw InputError("--strategy-option method=" + name +
                   ": diff_evo supports best1bin, best1exp, rand1bin, rand1exp, randtobest1bin, randtobest1exp, "
                   "currenttobest1bin, currenttobest1exp, best2bin, best2exp, rand2bin, rand2exp");
}

// `k` distinct population members other than `self`, uniformly (a partial Fisher-Yates).
std::vector<std::size_t> pick(Rng& rng, std::size_t size, std::size_t self, std::size_t k) {
  std::vector<std::size_t> pool;
  for (std::size_t i = 0; i < size; ++i)
    if (i != self) pool.push_back(i);
  k = std::min(k, pool.size());
  for (std::size_t i = 0; i < k; ++i) std::swap(pool[i], pool[i + rng.below(pool.size() - i)]);
  pool.resize(k);
  while (pool.size() < 5) pool.push_back(self);  // tiny populations: degrade, never index out of range
  return pool;
}

}  // namespace

void diff_evo(Context& ctx) {
  const std::size_t popsize = count_option(ctx, "popsize", 20, 1);
  const std::size_t maxiter = count_option(ctx, "maxiter", 100, 0);
  const Method method = parse_method(ctx.option("method", std::string("best1bin")));
  constexpr double kCrossover = 0.7;

  const Continuous box(ctx.space(), Scale::unit);
  const auto& dims = box.active();
  const std::size_t nd = dims.size();
  Rng& rng = ctx.rng();

  std::vector<std::vector<double>> pop;
  std::vector<double> energy;
  std::size_t best = 0;
  for (std::size_t c : initial_population(ctx, popsize)) {
    pop.push_back(box.position(c));
    energy.push_back(ctx.cost(c));
    if (energy.back() < energy[best]) best = energy.size() - 1;
  }
  if (nd == 0) return;  // every parameter has one value: one configuration, already evaluated
  const std::size_t n = pop.size();

  std::vector<double> trial;
  for (std::size_t gen = 0; gen < maxiter; ++gen) {
    const double scale = 0.5 + 0.5 * rng.uniform();
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = pick(rng, n, i, 5);
      const auto& b = pop[best];
      const auto& x = pop[i];
      std::vector<double> mutant(box.dims());
      for (std::size_t p : dims) {
        double v = 0;
        switch (method.base) {
          case Base::best1:
            v = b[p] + scale * (pop[r[0]][p] - pop[r[1]][p]);
            break;
          case Base::rand1:
            v = pop[r[0]][p] + scale * (pop[r[1]][p] - pop[r[2]][p]);
            break;
          case Base::randtobest1:
            v = pop[r[0]][p] + scale * (b[p] - pop[r[0]][p]) + scale * (pop[r[1]][p] - pop[r[2]][p]);
            break;
          case Base::currenttobest1:
            v = x[p] + scale * (b[p] - x[p] + pop[r[0]][p] - pop[r[1]][p]);
            break;
          case Base::best2:
            v = b[p] + scale * (pop[r[0]][p] + pop[r[1]][p] - pop[r[2]][p] - pop[r[3]][p]);
            break;
          case Base::rand2:
            v = pop[r[0]][p] + scale * (pop[r[1]][p] + pop[r[2]][p] - pop[r[3]][p] - pop[r[4]][p]);
            break;
        }
        if (v < 0 || v > box.upper(p)) v = rng.uniform() * box.upper(p);
        mutant[p] = v;
      }
      // Crossover over the active dimensions.
      trial = x;
      std::size_t fill = static_cast<std::size_t>(rng.below(nd));
      if (method.binomial) {
        for (std::size_t k = 0; k < nd; ++k)
          if (k == fill || rng.uniform() < kCrossover) trial[dims[k]] = mutant[dims[k]];
      } else {
        for (std::size_t k = 0; k < nd && (k == 0 || rng.uniform() < kCrossover); ++k) {
          trial[dims[fill]] = mutant[dims[fill]];
          fill = (fill + 1) % nd;
        }
      }
      const double e = evaluate_fresh(ctx, box, trial);
      if (e <= energy[i]) {
        pop[i] = trial;
        energy[i] = e;
        if (e <= energy[best]) best = i;
      }
    }
  }
}

}  // namespace tune::search::strategy

// Dual annealing after scipy.optimize.dual_annealing as Kernel Tuner calls it
// (strategies/dual_annealing.py): generalized simulated annealing (Tsallis-Stariolo) with the
// visiting parameter qv = 2.62, acceptance parameter qa = -5, initial temperature 5230 and
// temperature T(i) = 5230 * (2^(qv-1) - 1) / ((i+2)^(qv-1) - 1) in iteration i of `maxiter`
// (default 1000). Each iteration runs a Markov chain of 2*dims moves from the current location: the
// first dims moves draw every coordinate from the visiting distribution, the rest one coordinate
// each; a better point is accepted, a worse one with the generalized Metropolis probability
// (1 - (1-qa)*dE/(T/(i+1)))^(1/(1-qa)). After a chain that improved the best, a local search runs
// from the best. Positions use Kernel Tuner's scaling (continuous.h) and wrap around the bounds as
// scipy's do; every visit is evaluated at the nearest valid configuration. The temperature restarts
// from a random configuration when it falls below 2e-5 of the initial one.
//
// method names the local search, which runs on configurations (at most 100 moves, first
// improvement, neighbours in random order):
//   hamming (default; alias Powell): any other value of one parameter (Powell's line searches per
//            coordinate). The default because it scores better than compass on the benchmark_hub
//            spaces (FGCS methodology, 50 repeats: 0.40 against 0.33);
//   compass (aliases: COBYLA - Kernel Tuner's default, L-BFGS-B, SLSQP, CG, BFGS, trust-constr,
//            Nelder-Mead): one value-index step up or down in one parameter, the discrete
//            counterpart of these methods' small initial steps (Kernel Tuner passes eps, one step);
//   none: no local search.
#include <algorithm>
#include <cmath>
#include <string>

#include "common/error.h"
#include "search/continuous.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {

enum class Local { compass, hamming, none };

Local parse_local(const std::string& m) {
  if (m == "compass" || m == "COBYLA" || m == "L-BFGS-B" || m == "SLSQP" || m == "CG" || m == "BFGS" ||
      m == "trust-constr" || m == "Nelder-Mead")
    return Local::compass;
  if (m == "hamming" || m == "Powell") return Local::hamming;
  if (m == "none") return Local::none;
  throw InputError("--strategy-option method=" + m +
                   ": dual_annealing supports compass (COBYLA, L-BFGS-B, SLSQP, CG, BFGS, trust-constr, "
                   "Nelder-Mead), hamming (Powell), none");
}

constexpr double kQv = 2.62, kQa = -5.0, kInitialTemp = 5230.0, kRestartRatio = 2e-5, kTail = 1e8;
constexpr std::size_t kLocalMoves = 100;

// One draw of scipy's visiting distribution (VisitingDistribution.visit_fn) at `temperature`.
double visit(Rng& rng, double temperature) {
  const double f1 = std::exp(std::log(temperature) / (kQv - 1.0));
  const double f2 = std::exp((4.0 - kQv) * std::log(kQv - 1.0));
  const double f3 = std::exp((2.0 - kQv) * std::log(2.0) / (kQv - 1.0));
  const double f4 = std::sqrt(M_PI) * f1 * f2 / (f3 * (3.0 - kQv));
  // f6 depends on kQv alone: computed once (std::lgamma writes the global signgam, which strategies
  // running as lanes on threads would race on).
  static const double f6 = [] {
    const double f5 = 1.0 / (kQv - 1.0) - 0.5;
    return M_PI * (1.0 - f5) / std::sin(M_PI * (1.0 - f5)) / std::exp(std::lgamma(2.0 - f5));
  }();
  const double sigma = std::exp(-(kQv - 1.0) * std::log(f6 / f4) / (3.0 - kQv));
  const double x = sigma * rng.normal();
  const double y = std::max(std::abs(rng.normal()), 1e-300);
  double v = x / std::exp((kQv - 1.0) * std::log(y) / (3.0 - kQv));
  if (!(v <= kTail)) v = kTail * rng.uniform();  // also NaN
  if (v < -kTail) v = -kTail * rng.uniform();
  return v;
}

double wrap(double x, double upper) {
  const double b = std::fmod(x, upper) + upper;
  return std::fmod(b, upper);
}

// Valid configurations one value-index step away in one parameter.
std::vector<std::size_t> compass(const space::Space& space, std::size_t config) {
  const auto base = space.indices(config);
  std::vector<space::Index> idx(base.begin(), base.end());
  std::vector<std::size_t> out;
  for (std::size_t p = 0; p < idx.size(); ++p) {
    for (int d : {-1, 1}) {
      const long v = static_cast<long>(base[p]) + d;
      if (v < 0 || v >= static_cast<long>(space.values(p).size())) continue;
      idx[p] = static_cast<space::Index>(v);
      if (auto c = space.find(idx)) out.push_back(*c);
    }
    idx[p] = base[p];
  }
  return out;
}

// First-improvement descent; returns the configuration it ends on.
std::size_t descend(Context& ctx, std::size_t start, Local how) {
  std::size_t cur = start;
  double e = ctx.cost(cur);
  for (std::size_t move = 0; move < kLocalMoves && how != Local::none; ++move) {
    auto next = how == Local::compass ? compass(ctx.space(), cur) : ctx.neighbours(cur, Neighbourhood::hamming);
    for (std::size_t i = next.size(); i > 1; --i) std::swap(next[i - 1], next[ctx.rng().below(i)]);
    bool moved = false;
    for (std::size_t c : next) {
      const double ec = ctx.cost(c);
      if (ec < e) {
        cur = c, e = ec, moved = true;
        break;
      }
    }
    if (!moved) break;
  }
  return cur;
}

}  // namespace

void dual_annealing(Context& ctx) {
  const Local local = parse_local(ctx.option("method", std::string("hamming")));
  const std::size_t maxiter = count_option(ctx, "maxiter", 1000, 0);
  const Continuous box(ctx.space(), Scale::step);
  const auto& dims = box.active();
  Rng& rng = ctx.rng();

  // Start from the best of the starts (all evaluated first), else a random configuration.
  std::size_t start = ctx.starts().empty() ? ctx.random_unvisited() : ctx.starts().front();
  for (std::size_t c : ctx.starts())
    if (ctx.cost(c) < ctx.cost(start)) start = c;
  std::vector<double> x = box.position(start), best_x = x;
  double e = ctx.cost(start), best = e;
  if (dims.empty()) return;

  const double t1 = std::exp((kQv - 1.0) * std::log(2.0)) - 1.0;
  std::vector<double> trial;
  std::size_t i = 0;  // the step of the temperature schedule; a restart begins it again
  for (std::size_t iteration = 0; iteration < maxiter; ++iteration, ++i) {
    double temperature = kInitialTemp * t1 / (std::exp((kQv - 1.0) * std::log(i + 2.0)) - 1.0);
    if (temperature < kInitialTemp * kRestartRatio) {  // scipy: reset to a random location
      const std::size_t c = ctx.random_unvisited();
      x = box.position(c), e = ctx.cost(c);
      i = 0;
      temperature = kInitialTemp;
    }
    const double step_temperature = temperature / static_cast<double>(i + 1);
    bool improved = i == 0;
    for (std::size_t j = 0; j < 2 * dims.size(); ++j) {
      trial = x;
      if (j < dims.size()) {
        for (std::size_t d : dims) trial[d] = wrap(x[d] + visit(rng, temperature), box.upper(d));
      } else {
        const std::size_t d = dims[j - dims.size()];
        trial[d] = wrap(x[d] + visit(rng, temperature), box.upper(d));
      }
      const double et = ctx.cost(box.snap(trial, rng));
      if (et < e) {
        x = trial, e = et;
        if (et < best) best = et, best_x = trial, improved = true;
      } else {
        const double pqv = 1.0 - (1.0 - kQa) * (et - e) / step_temperature;
        const double accept = pqv <= 0 ? 0.0 : std::exp(std::log(pqv) / (1.0 - kQa));
        if (const double r = rng.uniform(); accept > 0 && r <= accept) x = trial, e = et;
      }
    }
    if (improved && local != Local::none) {
      const std::size_t c = descend(ctx, box.snap(best_x, rng), local);
      if (ctx.cost(c) < best) {
        best = ctx.cost(c), best_x = box.position(c);
        x = best_x, e = best;
      }
    }
  }
}

}  // namespace tune::search::strategy

// simulated_annealing, after Kernel Tuner's simulated_annealing.py: a walk over neighbouring
// configurations that always accepts a better one and accepts a worse one with probability
// exp(-d / T), d the relative cost difference (new - old) / old. The temperature falls as
// configurations are evaluated, T = T_start * alpha^evaluations (revisits are free and do not cool),
// and maxiter neighbours are tried per temperature step; at T_min (after log(T_min) / log(alpha)
// evaluations, 1,379 with the defaults) the anneal starts again elsewhere.
//
// Where this differs from Kernel Tuner, for the sake of finding good configurations sooner:
// - d is measured in units of the median relative difference between recent neighbours, so T
//   means the same on a flat space (dedispersion on an A100: neighbours differ by ~1%) as on a
//   rugged one (convolution on an MI250X: by ~100%); otherwise the walk stays a random walk until T
//   is below the space's typical relative difference.
// - A neighbour changes one parameter: to its next lower or higher value or, with equal chance, to
//   any other value; a change that breaks a restriction also changes one more parameter (Kernel
//   Tuner draws strictly adjacent neighbours, which move most parameters at once, and Hamming ones).
// - Each anneal starts at the best of 10 random unvisited configurations (or the given starts), and
//   a walk that only revisits for 100 steps starts again likewise.
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {

constexpr std::size_t kSampledStarts = 10;
constexpr int kIdleSteps = 100;

// A random configuration that differs from `config` in one parameter (after a repair, in two).
std::optional<std::size_t> random_neighbour(Context& ctx, std::size_t config) {
  const space::Space& space = ctx.space();
  const auto base = space.indices(config);
  std::vector<space::Index> idx(base.begin(), base.end());
  Rng& rng = ctx.rng();
  std::vector<std::size_t> repairs;
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::size_t p = rng.below(idx.size());
    const long nv = static_cast<long>(space.values(p).size());
    if (nv < 2) continue;
    long v = static_cast<long>(base[p]);
    if (rng.uniform() < 0.5) {
      v += rng.below(2) ? 1 : -1;
      if (v < 0 || v >= nv) continue;
    } else {
      const long w = static_cast<long>(rng.below(static_cast<std::uint64_t>(nv - 1)));
      v = w >= v ? w + 1 : w;
    }
    idx[p] = static_cast<space::Index>(v);
    if (auto c = space.find(idx)) return c;
    repairs.clear();
    for (std::size_t q = 0; q < idx.size(); ++q) {
      if (q == p) continue;
      const auto keep = idx[q];
      for (std::size_t w = 0; w < space.values(q).size(); ++w) {
        if (w == keep) continue;
        idx[q] = static_cast<space::Index>(w);
        if (auto c = space.find(idx)) repairs.push_back(*c);
      }
      idx[q] = keep;
    }
    idx[p] = base[p];
    if (!repairs.empty()) return repairs[rng.below(repairs.size())];
  }
  const auto any = ctx.neighbours(config, Neighbourhood::adjacent);  // an all but isolated configuration
  if (any.empty()) return std::nullopt;
  return any[rng.below(any.size())];
}

// The unit of relative differences: the median over the last 256 differing neighbour pairs, a robust
// scale that adapts as the walk settles among better configurations (1 before any is known).
class Spread {
 public:
  void add(double d) {
    if (recent_.size() < kWindow)
      recent_.push_back(d);
    else
      recent_[added_ % kWindow] = d;
    if (added_++ % 32 == 0 || recent_.size() < 32) {
      scratch_ = recent_;
      std::nth_element(scratch_.begin(), scratch_.begin() + scratch_.size() / 2, scratch_.end());
      median_ = scratch_[scratch_.size() / 2];
    }
  }
  double unit() const { return median_ > 0 ? median_ : 1.0; }

 private:
  static constexpr std::size_t kWindow = 256;
  std::vector<double> recent_, scratch_;
  std::size_t added_ = 0;
  double median_ = 0;
};

double acceptance(double old_cost, double new_cost, double T) {
  if (old_cost >= Context::kFailed) return 1.0;  // standing on a failure: move anywhere
  if (new_cost >= Context::kFailed) return 0.0;  // never move onto a failure
  if (new_cost < old_cost) return 1.0;
  if (old_cost <= 0) return 0.0;
  return std::exp(((old_cost - new_cost) / old_cost) / T);
}

}  // namespace

void simulated_annealing(Context& ctx) {
  const double T_start = ctx.option("T", 1.0);
  const double T_min = ctx.option("T_min", 0.001);
  const double alpha = ctx.option("alpha", 0.995);
  const long maxiter = ctx.option("maxiter", 1L);
  if (!(T_start > 0)) throw InputError("--strategy-option T: must be positive");
  if (!(T_min > 0 && T_min < T_start)) throw InputError("--strategy-option T_min: must be in (0, T)");
  if (!(alpha > 0 && alpha < 1)) throw InputError("--strategy-option alpha: must be in (0, 1)");
  if (maxiter < 1) throw InputError("--strategy-option maxiter: must be at least 1");

  std::optional<std::size_t> pos;
  double cost = Context::kFailed;
  auto consider = [&](std::size_t c) {
    const double v = ctx.cost(c);
    if (!pos || v < cost) pos = c, cost = v;
  };
  auto sample = [&] {
    pos.reset();
    for (std::size_t k = 0; k < kSampledStarts; ++k) consider(ctx.random_unvisited());
  };
  for (std::size_t s : ctx.starts()) consider(s);
  if (!pos) sample();

  std::size_t anneal_from = ctx.evaluations();  // the evaluation count the schedule starts at
  std::size_t seen = ctx.evaluations();
  int idle = 0;
  Spread spread;
  while (true) {
    const double T = T_start * std::pow(alpha, static_cast<double>(ctx.evaluations() - anneal_from));
    if (T <= T_min) {  // the schedule is done: anneal again from somewhere new
      sample();
      anneal_from = ctx.evaluations();
      continue;
    }
    for (long i = 0; i < maxiter; ++i) {
      const auto next = random_neighbour(ctx, *pos);
      if (!next) break;
      const double next_cost = ctx.cost(*next);
      if (cost < Context::kFailed && next_cost < Context::kFailed && cost > 0 && next_cost != cost)
        spread.add(std::abs(next_cost - cost) / cost);
      if (acceptance(cost, next_cost, T * spread.unit()) > ctx.rng().uniform()) pos = next, cost = next_cost;
    }
    idle = ctx.evaluations() == seen ? idle + 1 : 0;
    seen = ctx.evaluations();
    if (idle > kIdleSteps) {  // only revisits: this region is done
      sample();
      idle = 0;
    }
  }
}

}  // namespace tune::search::strategy

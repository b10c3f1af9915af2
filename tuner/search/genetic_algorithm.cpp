// genetic_algorithm, after Kernel Tuner's genetic_algorithm.py. A configuration's genes are its
// value indices. Each generation is evaluated and ranked; pairs of parents are drawn with a bias to
// the head of the ranking (the rank is Beta(1, 2.5) distributed, as in Kernel Tuner), crossed over
// (method: single_point, two_point, uniform, disruptive_uniform) and mutated (each gene with chance
// 1/mutation_chance takes another value). A child that breaks the restrictions is repaired to a
// valid configuration near it (a valid one that differs in one gene or two, else the child with
// genes taken back from its first parent until it is valid), so only valid configurations are ever
// evaluated. Unlike Kernel Tuner, whose children replace their parents, the next parents are the
// best popsize of parents and children together (a (mu + lambda) selection: revisits are free, so
// keeping good parents costs nothing and the search converges sooner). A generation that evaluates
// nothing new has converged: half of the next one is unvisited configurations. After maxiter
// generations the population starts afresh (keeping the best) until the budget ends.
#include <algorithm>
#include <cmath>
#include <optional>

#include "common/error.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {

using Genes = std::vector<space::Index>;

enum class Crossover { single_point, two_point, uniform, disruptive_uniform };

Crossover crossover_option(const Context& ctx) {
  const std::string m = ctx.option("method", std::string("uniform"));
  if (m == "single_point") return Crossover::single_point;
  if (m == "two_point") return Crossover::two_point;
  if (m == "uniform") return Crossover::uniform;
  if (m == "disruptive_uniform") return Crossover::disruptive_uniform;
  throw InputError("--strategy-option method=" + m +
                   ": expected single_point, two_point, uniform or disruptive_uniform");
}

Genes genes(const space::Space& space, std::size_t config) {
  const auto idx = space.indices(config);
  return {idx.begin(), idx.end()};
}

void crossover(Crossover method, Genes& a, Genes& b, Rng& rng) {
  const std::size_t n = a.size();
  if (n < 2) return;
  switch (method) {
    case Crossover::single_point: {
      const std::size_t cut = 1 + rng.below(n - 1);
      for (std::size_t i = cut; i < n; ++i) std::swap(a[i], b[i]);
      break;
    }
    case Crossover::two_point: {
      std::size_t p = rng.below(n + 1), q = rng.below(n + 1);
      if (p > q) std::swap(p, q);
      for (std::size_t i = p; i < q; ++i) std::swap(a[i], b[i]);
      break;
    }
    case Crossover::uniform:
      for (std::size_t i = 0; i < n; ++i)
        if (rng.uniform() < 0.5) std::swap(a[i], b[i]);
      break;
    case Crossover::disruptive_uniform: {
      // Swap half (rounded up) of the genes in which the parents differ, chosen at random.
      std::vector<std::size_t> differ;
      for (std::size_t i = 0; i < n; ++i)
        if (a[i] != b[i]) differ.push_back(i);
      for (std::size_t i = differ.size(); i > 1; --i) std::swap(differ[i - 1], differ[rng.below(i)]);
      for (std::size_t k = 0; k < (differ.size() + 1) / 2; ++k) std::swap(a[differ[k]], b[differ[k]]);
      break;
    }
  }
}

void mutate(const space::Space& space, Genes& g, double chance, Rng& rng) {
  for (std::size_t p = 0; p < g.size(); ++p) {
    const std::size_t nv = space.values(p).size();
    if (nv < 2 || rng.uniform() >= chance) continue;
    const auto v = static_cast<space::Index>(rng.below(nv - 1));
    g[p] = v >= g[p] ? static_cast<space::Index>(v + 1) : v;  // any value but the current one
  }
}

// A valid configuration at or near `child`: the child itself, else a random valid one that differs
// from it in one gene, else in two, else the child with genes of `parent` (valid) restored one by
// one in random order until it is valid.
std::size_t repair(const space::Space& space, Genes child, const Genes& parent, Rng& rng) {
  if (auto c = space.find(child)) return *c;
  const std::size_t n = child.size();
  std::vector<std::size_t> found;
  for (std::size_t p = 0; p < n; ++p) {
    const auto keep = child[p];
    for (std::size_t v = 0; v < space.values(p).size(); ++v) {
      child[p] = static_cast<space::Index>(v);
      if (auto c = space.find(child)) found.push_back(*c);
    }
    child[p] = keep;
  }
  if (!found.empty()) return found[rng.below(found.size())];
  for (std::size_t p = 0; p < n; ++p)
    for (std::size_t q = p + 1; q < n; ++q) {
      const auto kp = child[p], kq = child[q];
      for (std::size_t v = 0; v < space.values(p).size(); ++v)
        for (std::size_t w = 0; w < space.values(q).size(); ++w) {
          child[p] = static_cast<space::Index>(v), child[q] = static_cast<space::Index>(w);
          if (auto c = space.find(child)) found.push_back(*c);
        }
      child[p] = kp, child[q] = kq;
    }
  if (!found.empty()) return found[rng.below(found.size())];
  std::vector<std::size_t> differ;
  for (std::size_t p = 0; p < n; ++p)
    if (child[p] != parent[p]) differ.push_back(p);
  for (std::size_t i = differ.size(); i > 1; --i) std::swap(differ[i - 1], differ[rng.below(i)]);
  for (std::size_t p : differ) {
    child[p] = parent[p];
    if (auto c = space.find(child)) return *c;
  }
  throw Error("genetic_algorithm: a parent is not a valid configuration");  // unreachable
}

// A rank in [0, n) biased to the head: floor(n * Beta(1, 2.5)).
std::size_t biased_rank(Rng& rng, std::size_t n) {
  const double x = 1.0 - std::pow(1.0 - rng.uniform(), 1.0 / 2.5);
  return std::min(n - 1, static_cast<std::size_t>(x * static_cast<double>(n)));
}

bool contains(const std::vector<std::size_t>& v, std::size_t x) { return std::find(v.begin(), v.end(), x) != v.end(); }

// Adds unvisited configurations until `pop` holds `size` members.
void fill_unvisited(Context& ctx, std::vector<std::size_t>& pop, std::size_t size) {
  for (std::size_t tries = 0; pop.size() < size && tries < 4 * size; ++tries) {
    const std::size_t c = ctx.random_unvisited();
    if (!contains(pop, c)) pop.push_back(c);
  }
}

}  // namespace

void genetic_algorithm(Context& ctx) {
  const long popsize_opt = ctx.option("popsize", 20L);
  const long maxiter = ctx.option("maxiter", 100L);
  const Crossover method = crossover_option(ctx);
  const double mutation_chance = ctx.option("mutation_chance", 10.0);
  if (popsize_opt < 2) throw InputError("--strategy-option popsize: must be at least 2");
  if (maxiter < 1) throw InputError("--strategy-option maxiter: must be at least 1");
  if (!(mutation_chance >= 1)) throw InputError("--strategy-option mutation_chance: must be at least 1");
  const space::Space& space = ctx.space();
  const std::size_t popsize = std::min<std::size_t>(static_cast<std::size_t>(popsize_opt), ctx.size());
  Rng& rng = ctx.rng();
  if (popsize < 2) {  // a one-configuration space: nothing to breed
    for (std::size_t c = 0; c < ctx.size(); ++c) ctx.evaluate(c);
    return;
  }

  std::vector<std::size_t> children;  // the generation to evaluate
  for (std::size_t s : ctx.starts())
    if (children.size() < popsize && !contains(children, s)) children.push_back(s);
  fill_unvisited(ctx, children, popsize);
  std::vector<std::pair<double, std::size_t>> parents;  // the best so far of this run, best first

  while (true) {
    for (long generation = 0; generation < maxiter; ++generation) {
      // Evaluate the children; the best popsize of parents and children are the next parents.
      const std::size_t before = ctx.evaluations();
      for (std::size_t c : children)
        if (std::none_of(parents.begin(), parents.end(), [&](const auto& p) { return p.second == c; }))
          parents.emplace_back(ctx.cost(c), c);
      std::stable_sort(parents.begin(), parents.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      if (parents.size() > popsize) parents.resize(popsize);

      children.clear();
      if (parents.size() < 2) {  // a nearly exhausted space: nothing to pair
        fill_unvisited(ctx, children, popsize);
        continue;
      }
      if (ctx.evaluations() == before && generation > 0)  // nothing new: converged, bring in new blood
        fill_unvisited(ctx, children, popsize / 2);
      for (std::size_t tries = 0; children.size() < popsize && tries < 50 * popsize; ++tries) {
        const std::size_t i = biased_rank(rng, parents.size());
        std::size_t j = biased_rank(rng, parents.size());
        while (j == i) j = biased_rank(rng, parents.size());
        Genes a = genes(space, parents[i].second), b = genes(space, parents[j].second);
        const Genes pa = a, pb = b;
        crossover(method, a, b, rng);
        for (auto [child, parent] : {std::pair{&a, &pa}, std::pair{&b, &pb}}) {
          mutate(space, *child, 1.0 / mutation_chance, rng);
          const std::size_t c = repair(space, *child, *parent, rng);
          if (children.size() < popsize && !contains(children, c)) children.push_back(c);
        }
      }
      fill_unvisited(ctx, children, popsize);  // children too alike to fill the generation
    }
    // maxiter generations done: start a fresh population around the best.
    parents.clear();
    children.clear();
    if (ctx.best()) children.push_back(*ctx.best());
    fill_unvisited(ctx, children, popsize);
  }
}

}  // namespace tune::search::strategy

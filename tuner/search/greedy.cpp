// Greedy local search: greedy_mls (multi-start local search) and greedy_ils (iterated local search),
// after Kernel Tuner's greedy_mls.py / greedy_ils.py / hillclimbers.py. Both climb one parameter at
// a time: the neighbours of a configuration are the valid configurations that change one parameter
// (to any other value with neighbor=Hamming, to the next lower or higher value with
// neighbor=adjacent), visited parameter by parameter in a random (randomize=True) or given (order)
// order. restart=True moves as soon as a neighbour improves (first improvement) and scans again
// from there; restart=False scans every neighbour and moves to the best (steepest descent).
// (Kernel Tuner's hill climber returns after its first improvement when restart is set; here the
// climb always continues to a local optimum, so a start is never abandoned half-way down.)
#include <algorithm>
#include <cctype>
#include <optional>

#include "common/error.h"
#include "search/strategies.h"

namespace tune::search::strategy {
namespace {

std::string lower(std::string s) {
  for (char& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// True/False as Kernel Tuner's options are written on a command line ("True", "false", "1", "0");
// `fallback` when the option is not given.
int bool_option(const Context& ctx, const std::string& key, int fallback) {
  const std::string raw = ctx.option(key, std::string());
  if (raw.empty()) return fallback;
  const std::string v = lower(trim(raw));
  if (v == "true" || v == "1" || v == "yes" || v == "on") return 1;
  if (v == "false" || v == "0" || v == "no" || v == "off") return 0;
  throw InputError("--strategy-option " + key + "=" + raw + ": expected True or False");
}

template <class T>
void shuffle(std::vector<T>& v, Rng& rng) {
  for (std::size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[rng.below(i)]);
}

struct Climb {
  Neighbourhood neighbour = Neighbourhood::hamming;
  bool first_improvement = true;   // restart
  bool randomize = true;           // shuffle the parameter order (and the values) each scan
  std::vector<std::size_t> order;  // the parameters to climb along, in this order
};

Climb climb_options(const Context& ctx, bool with_order) {
  Climb c;
  const std::string raw = ctx.option("neighbor", std::string("Hamming"));
  const std::string n = lower(trim(raw));
  if (n == "hamming")
    c.neighbour = Neighbourhood::hamming;
  else if (n == "adjacent" || n == "strictly-adjacent")
    c.neighbour = Neighbourhood::adjacent;
  else
    throw InputError("--strategy-option neighbor=" + raw + ": expected Hamming or adjacent");
  c.first_improvement = bool_option(ctx, "restart", 1) == 1;

  const space::Space& space = ctx.space();
  const std::string order = with_order ? ctx.option("order", std::string()) : std::string();
  const int randomize = with_order ? bool_option(ctx, "randomize", -1) : -1;  // -1: not given
  if (order.empty() || lower(trim(order)) == "none") {
    for (std::size_t p = 0; p < space.num_params(); ++p) c.order.push_back(p);
    c.randomize = randomize != 0;
    return c;
  }
  // order: parameter names or 0-based indices, separated by commas, optionally in brackets.
  if (randomize == 1) throw InputError("--strategy-option order=" + order + ": cannot be combined with randomize=True");
  c.randomize = false;
  std::string list = trim(order);
  if (list.size() >= 2 && list.front() == '[' && list.back() == ']') list = list.substr(1, list.size() - 2);
  for (std::size_t at = 0; at <= list.size();) {
    const std::size_t comma = std::min(list.find(',', at), list.size());
    std::string item = trim(list.substr(at, comma - at));
    if (item.size() >= 2 && (item.front() == '"' || item.front() == '\'')) item = item.substr(1, item.size() - 2);
    at = comma + 1;
    std::optional<std::size_t> p;
    for (std::size_t q = 0; q < space.num_params(); ++q)
      if (space.names()[q] == item) p = q;
    if (!p && !item.empty() && std::all_of(item.begin(), item.end(), [](char ch) { return std::isdigit(ch); }))
      if (std::size_t q = std::stoul(item); q < space.num_params()) p = q;
    if (!p || std::find(c.order.begin(), c.order.end(), *p) != c.order.end())
      throw InputError("--strategy-option order=" + order + ": '" + item +
                       "' is not a parameter (a name or 0-based index, each at most once)");
    c.order.push_back(*p);
  }
  return c;
}

// A random valid configuration that differs from `idx` (which breaks a restriction) in one more
// parameter than `p` (by one value step for the adjacent neighbourhood), if there is one.
std::optional<std::size_t> repaired(Context& ctx, std::vector<space::Index>& idx, std::size_t p, Neighbourhood kind) {
  const space::Space& space = ctx.space();
  std::vector<std::size_t> found;
  for (std::size_t q = 0; q < idx.size(); ++q) {
    if (q == p) continue;
    const auto keep = idx[q];
    for (std::size_t w = 0; w < space.values(q).size(); ++w) {
      if (w == keep || (kind == Neighbourhood::adjacent && w + 1 != keep && w != keep + 1u)) continue;
      idx[q] = static_cast<space::Index>(w);
      if (auto c = space.find(idx)) found.push_back(*c);
    }
    idx[q] = keep;
  }
  if (found.empty()) return std::nullopt;
  return found[ctx.rng().below(found.size())];
}

// The neighbours the climber scans from `config`, in scanning order: nearest values first (every
// parameter's next lower and higher value, then two value steps away, ...), parameters in random
// (or the given) order within each ring, so a first-improvement climb tries the small steps that
// usually pay first yet stops only where no single-parameter change improves. A change that breaks
// a restriction is repaired by changing one more parameter (tile_size_y 2 -> 1 is only valid
// together with tile_stride_y 1 -> 0 in the dedispersion space): without that, restrictions wall
// off the best configurations from single-parameter climbs.
std::vector<std::size_t> scan(Context& ctx, std::size_t config, const Climb& o) {
  const space::Space& space = ctx.space();
  const auto base = space.indices(config);
  std::vector<space::Index> idx(base.begin(), base.end());
  std::vector<std::size_t> params = o.order;
  if (o.randomize) shuffle(params, ctx.rng());
  std::vector<std::pair<long, std::size_t>> ring;  // (value steps away, configuration)
  std::vector<std::pair<long, std::size_t>> mine;
  for (std::size_t p : params) {
    const long nv = static_cast<long>(space.values(p).size());
    mine.clear();
    for (long v = 0; v < nv; ++v) {
      const long step = std::abs(v - static_cast<long>(base[p]));
      if (step == 0 || (o.neighbour == Neighbourhood::adjacent && step != 1)) continue;
      idx[p] = static_cast<space::Index>(v);
      std::optional<std::size_t> c = space.find(idx);
      if (!c) c = repaired(ctx, idx, p, o.neighbour);
      if (c) mine.emplace_back(step, *c);
    }
    idx[p] = base[p];
    if (o.randomize) shuffle(mine, ctx.rng());
    ring.insert(ring.end(), mine.begin(), mine.end());
  }
  std::stable_sort(ring.begin(), ring.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> out;
  for (const auto& r : ring)
    if (r.second != config && std::find(out.begin(), out.end(), r.second) == out.end()) out.push_back(r.second);
  // Single steps may all be blocked by the restrictions; then take any adjacent configuration.
  if (out.empty() && o.neighbour == Neighbourhood::adjacent) {
    out = ctx.neighbours(config, Neighbourhood::adjacent);
    if (o.randomize) shuffle(out, ctx.rng());
  }
  return out;
}

// Descends from `start` to a local optimum and returns it.
std::size_t hill_climb(Context& ctx, std::size_t start, const Climb& o) {
  std::size_t at = start;
  double best = ctx.cost(at);
  while (true) {
    std::optional<std::size_t> next;
    const auto order = scan(ctx, at, o);
    ctx.hint(order);  // compile-ahead on a GPU: the scan's order is the evaluation order
    for (std::size_t c : order) {
      const double s = ctx.cost(c);
      if (s < best) {
        best = s;
        next = c;
        if (o.first_improvement) break;
      }
    }
    if (!next) return at;
    at = *next;
  }
}

// The given starts in order of their objective, best first (each is evaluated).
std::vector<std::size_t> ranked_starts(Context& ctx) {
  std::vector<std::pair<double, std::size_t>> ranked;
  for (std::size_t s : ctx.starts()) ranked.emplace_back(ctx.cost(s), s);
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::size_t> out;
  for (const auto& r : ranked)
    if (std::find(out.begin(), out.end(), r.second) == out.end()) out.push_back(r.second);
  return out;
}

// A random Hamming neighbour (or the configuration itself when it has none).
std::size_t random_hamming_step(Context& ctx, std::size_t config) {
  const auto n = ctx.neighbours(config, Neighbourhood::hamming);
  return n.empty() ? config : n[ctx.rng().below(n.size())];
}

// Each climb starts from the best of this many random unvisited configurations: a start in the
// long tail of slow configurations costs a long climb, and sampling first keeps the search as
// good as random sampling while it has found nothing better.
constexpr std::size_t kSampledStarts = 10;

// Evaluates `k` random unvisited configurations and returns the best (the last when all failed).
std::size_t best_of_random(Context& ctx, std::size_t k) {
  std::size_t best = ctx.random_unvisited();
  double best_cost = ctx.cost(best);
  for (std::size_t i = 1; i < k; ++i) {
    const std::size_t c = ctx.random_unvisited();
    if (const double s = ctx.cost(c); s < best_cost) best = c, best_cost = s;
  }
  return best;
}

}  // namespace

void greedy_mls(Context& ctx) {
  const Climb o = climb_options(ctx, true);
  for (std::size_t s : ranked_starts(ctx)) hill_climb(ctx, s, o);
  while (true) hill_climb(ctx, best_of_random(ctx, kSampledStarts), o);  // Stop ends it
}

void greedy_ils(Context& ctx) {
  const Climb o = climb_options(ctx, false);
  const long no_improvement = ctx.option("no_improvement", 50L);
  const double random_walk = ctx.option("random_walk", 0.3);
  if (no_improvement < 1) throw InputError("--strategy-option no_improvement: must be at least 1");
  if (!(random_walk >= 0)) throw InputError("--strategy-option random_walk: must be at least 0");
  const std::size_t walk =
      std::max<std::size_t>(1, static_cast<std::size_t>(random_walk * static_cast<double>(ctx.space().num_params())));

  const auto starts = ranked_starts(ctx);
  std::size_t current = hill_climb(ctx, starts.empty() ? best_of_random(ctx, kSampledStarts) : starts.front(), o);
  long since_improvement = 0;
  while (true) {
    // Perturb the incumbent local optimum by a short random walk and descend again; keep the
    // result when it is better. After no_improvement fruitless perturbations, start afresh.
    std::size_t candidate = current;
    for (std::size_t i = 0; i < walk; ++i) candidate = random_hamming_step(ctx, candidate);
    const std::size_t local = hill_climb(ctx, candidate, o);
    if (ctx.cost(local) < ctx.cost(current)) {
      current = local;
      since_improvement = 0;
    } else if (++since_improvement >= no_improvement) {
      current = hill_climb(ctx, best_of_random(ctx, kSampledStarts), o);
      since_improvement = 0;
    }
  }
}

}  // namespace tune::search::strategy

#include "search/search.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <numeric>

#include "common/error.h"
#include "common/suggest.h"
#include "search/lanes.h"
#include "search/strategies.h"

namespace tune::search {

std::uint64_t Rng::next() {
  std::uint64_t z = (state_ += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

std::uint64_t Rng::below(std::uint64_t n) {
  const std::uint64_t limit = UINT64_MAX - UINT64_MAX % n;
  std::uint64_t x;
  do x = next();
  while (x >= limit);
  return x % n;
}

double Rng::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

double Rng::normal() {
  double u1 = uniform(), u2 = uniform();
  if (u1 < 1e-300) u1 = 1e-300;
  return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
}

Context::Context(const space::Space& space, Evaluator& evaluator, Budget budget, std::uint64_t seed,
                 StrategyOptions options, std::vector<std::size_t> starts)
    : space_(space),
      evaluator_(evaluator),
      budget_(budget),
      rng_(seed),
      options_(std::move(options)),
      starts_(std::move(starts)),
      results_(space.size()),
      unvisited_(space.size()),
      slot_(space.size()) {
  std::iota(unvisited_.begin(), unvisited_.end(), std::size_t{0});
  std::iota(slot_.begin(), slot_.end(), std::size_t{0});
  std::erase_if(starts_, [&](std::size_t c) { return c >= space.size(); });
  const auto& names = space.names();
  for (std::size_t px = 0; px < names.size() && mirror_pairs_.size() < kMirrorPairs; ++px) {
    const std::string& x = names[px];
    if (x.size() < 2 || x.back() != 'x') continue;
    const std::string y = x.substr(0, x.size() - 1) + 'y';
    if (const auto it = std::find(names.begin(), names.end(), y); it != names.end())
      mirror_pairs_.emplace_back(px, static_cast<std::size_t>(it - names.begin()));
  }
}

bool Context::budget_left() const {
  if (budget_.max_fevals && evaluations_ >= *budget_.max_fevals) return false;
  return !(budget_.time_limit_s && evaluator_.elapsed_s() >= *budget_.time_limit_s);
}

void Context::record(std::size_t config, std::optional<double> r) {
  ++evaluations_;
  idle_revisits_ = 0;
  remember(config, r);
}

void Context::learn(std::size_t config, std::optional<double> objective) {
  check_index(config);
  if (!results_[config]) remember(config, objective);
}

void Context::remember(std::size_t config, std::optional<double> r) {
  results_[config] = r;
  // Remove from the unvisited pool (swap with the last).
  const std::size_t at = slot_[config], last = unvisited_.back();
  unvisited_[at] = last;
  slot_[last] = at;
  unvisited_.pop_back();
  if (r && *r < best_objective_) {
    best_objective_ = *r;
    best_ = config;
  }
}

void Context::check_index(std::size_t config) const {
  if (config >= results_.size()) throw Error("search: configuration index " + std::to_string(config) + " out of range");
}

bool Context::idle(std::size_t n) {
  idle_revisits_ += n;
  return idle_revisits_ > std::max<std::size_t>(100000, 20 * results_.size());
}

std::optional<double> Context::evaluate(std::size_t config) {
  check_index(config);
  if (results_[config]) {
    // A strategy that only revisits has converged; end it rather than spin.
    if (idle(1)) throw Stop{};
    return *results_[config];
  }
  if (unvisited_.empty() || !budget_left()) throw Stop{};
  std::optional<double> r = evaluator_.evaluate(config);
  record(config, r);
  return r;
}

std::vector<std::optional<double>> Context::evaluate_batch(const std::vector<std::size_t>& configs) {
  if (configs.size() == 1) return {evaluate(configs.front())};
  std::vector<std::size_t> fresh;
  bool left_out = false;
  for (std::size_t c : configs) {
    check_index(c);
    if (results_[c] || std::find(fresh.begin(), fresh.end(), c) != fresh.end()) continue;
    if (budget_.max_fevals && evaluations_ + fresh.size() >= *budget_.max_fevals)
      left_out = true;
    else
      fresh.push_back(c);
  }
  if (!fresh.empty()) {
    if (!budget_left()) throw Stop{};
    const auto rs = evaluator_.evaluate_batch(fresh);
    if (rs.size() != fresh.size()) throw Error("search: the evaluator answered a batch with a different count");
    for (std::size_t i = 0; i < fresh.size(); ++i) record(fresh[i], rs[i]);
  } else if (left_out) {
    throw Stop{};
  } else if (idle(configs.size())) {
    throw Stop{};
  }
  if (left_out) throw Stop{};
  std::vector<std::optional<double>> out;
  out.reserve(configs.size());
  for (std::size_t c : configs) out.push_back(*results_[c]);
  return out;
}

LaneSchedule schedule_lanes(const std::vector<double>& costs, std::size_t lanes) {
  std::vector<double> busy(std::max<std::size_t>(1, lanes), 0.0);  // each lane's time in this batch
  LaneSchedule out;
  out.finish.reserve(costs.size());
  for (double c : costs) {
    auto lane = std::min_element(busy.begin(), busy.end());
    *lane += c;
    out.finish.push_back(*lane);
  }
  out.makespan = *std::max_element(busy.begin(), busy.end());
  return out;
}

std::vector<std::optional<double>> TableEvaluator::evaluate_batch(const std::vector<std::size_t>& configs) {
  std::vector<double> costs;
  std::vector<std::optional<double>> out;
  for (std::size_t c : configs) {
    costs.push_back(cost_s_.at(c));
    out.push_back(objective_.at(c));
  }
  clock_s_ += schedule_lanes(costs, lanes_).makespan;
  return out;
}

void Context::hint(const std::vector<std::size_t>& configs) {
  if (!evaluator_.wants_prefetch()) return;
  // Near the end of a budget of evaluations, compiles for evaluations that will never come would
  // only hold the run up at its end: at most twice the evaluations left.
  std::size_t most = kHint;
  if (budget_.max_fevals)
    most = std::min(most, 2 * (*budget_.max_fevals - std::min(*budget_.max_fevals, evaluations_)));
  std::vector<std::size_t> ahead;
  for (std::size_t c : configs) {
    if (ahead.size() >= most) break;
    if (c < results_.size() && !visited(c) && std::find(ahead.begin(), ahead.end(), c) == ahead.end())
      ahead.push_back(c);
  }
  if (!ahead.empty()) evaluator_.prefetch(ahead);
}

std::size_t Context::random_config() { return static_cast<std::size_t>(rng_.below(space_.size())); }

std::size_t Context::random_unvisited() {
  if (unvisited_.empty()) throw Stop{};
  return unvisited_[rng_.below(unvisited_.size())];
}

namespace {
// The valid configurations one parameter away from the point `idx` (valid or not), parameters
// marked in `keep` left as they are, appended to `out` in parameter and value order.
void one_away(const space::Space& space, std::vector<space::Index>& idx, const std::vector<bool>& keep,
              std::vector<std::size_t>& out) {
  for (std::size_t p = 0; p < idx.size(); ++p) {
    if (keep[p]) continue;
    const space::Index at = idx[p];
    for (std::size_t v = 0; v < space.values(p).size(); ++v) {
      if (v == at) continue;
      idx[p] = static_cast<space::Index>(v);
      if (auto c = space.find(idx)) out.push_back(*c);
    }
    idx[p] = at;
  }
}
}  // namespace

std::vector<std::size_t> Context::neighbours(std::size_t config, Neighbourhood kind) const {
  const std::size_t np = space_.num_params();
  const auto base = space_.indices(config);
  std::vector<space::Index> idx(base.begin(), base.end());
  std::vector<std::size_t> out;
  if (kind == Neighbourhood::hamming) {
    one_away(space_, idx, std::vector<bool>(np, false), out);
    return out;
  }
  if (kind == Neighbourhood::mirror) {
    std::vector<std::pair<std::size_t, std::size_t>> swaps;  // value index pairs for each x/y pair
    std::vector<std::pair<std::size_t, std::size_t>> pairs;
    for (const auto& [px, py] : mirror_pairs_) {
      const auto& vx = space_.values(px);
      const auto& vy = space_.values(py);
      const auto ix = std::find(vy.begin(), vy.end(), vx[base[px]]);  // x's value, as a y index
      const auto iy = std::find(vx.begin(), vx.end(), vy[base[py]]);
      if (ix == vy.end() || iy == vx.end() || (ix - vy.begin() == base[py])) continue;  // equal: no change
      pairs.emplace_back(px, py);
      swaps.emplace_back(static_cast<std::size_t>(iy - vx.begin()), static_cast<std::size_t>(ix - vy.begin()));
    }
    for (std::size_t subset = (std::size_t{1} << pairs.size()) - 1; subset > 0; --subset) {  // all pairs first
      for (std::size_t k = 0; k < pairs.size(); ++k) {
        const bool on = (subset >> k) & 1U;
        idx[pairs[k].first] = on ? static_cast<space::Index>(swaps[k].first) : base[pairs[k].first];
        idx[pairs[k].second] = on ? static_cast<space::Index>(swaps[k].second) : base[pairs[k].second];
      }
      if (auto c = space_.find(idx)) {
        out.push_back(*c);
      } else if (subset + 1 == std::size_t{1} << pairs.size()) {
        // The whole mirror is not valid (a constraint that the transposed shape breaks, such as
        // matching's min_blocks 2 with 8 x 16 threads): its valid configurations one other
        // parameter away stand for it, before the partial mirrors.
        std::vector<bool> paired(np, false);
        for (const auto& [px, py] : pairs) paired[px] = paired[py] = true;
        one_away(space_, idx, paired, out);
      }
    }
    return out;
  }
  // adjacent: every combination of -1/0/+1 steps (3^np - 1 candidates); beyond 12 parameters
  // (531,441 candidates) only single-parameter steps are taken.
  if (np > 12) {
    for (std::size_t p = 0; p < np; ++p)
      for (int d : {-1, 1}) {
        const long v = static_cast<long>(base[p]) + d;
        if (v < 0 || v >= static_cast<long>(space_.values(p).size())) continue;
        idx[p] = static_cast<space::Index>(v);
        if (auto c = space_.find(idx)) out.push_back(*c);
        idx[p] = base[p];
      }
    return out;
  }
  std::vector<int> step(np, -1);
  while (true) {
    bool ok = true, zero = true;
    for (std::size_t p = 0; p < np && ok; ++p) {
      const long v = static_cast<long>(base[p]) + step[p];
      ok = v >= 0 && v < static_cast<long>(space_.values(p).size());
      zero = zero && step[p] == 0;
      if (ok) idx[p] = static_cast<space::Index>(v);
    }
    if (ok && !zero)
      if (auto c = space_.find(idx)) out.push_back(*c);
    std::size_t p = 0;
    while (p < np && step[p] == 1) step[p++] = -1;
    if (p == np) break;
    ++step[p];
  }
  return out;
}

std::vector<std::size_t> Context::unvisited_neighbours(std::size_t config, Neighbourhood kind) const {
  auto out = neighbours(config, kind);
  std::erase_if(out, [&](std::size_t c) { return visited(c); });
  return out;
}

namespace {
const std::string* lookup(const StrategyOptions& o, const std::string& key) {
  auto it = o.find(key);
  return it == o.end() ? nullptr : &it->second;
}
}  // namespace

double Context::option(const std::string& key, double fallback) const {
  const std::string* s = lookup(options_, key);
  if (!s) return fallback;
  try {
    std::size_t used = 0;
    double v = std::stod(*s, &used);
    if (used == s->size()) return v;
  } catch (const std::exception&) {}
  throw InputError("--strategy-option " + key + "=" + *s + ": not a number");
}

long Context::option(const std::string& key, long fallback) const {
  const std::string* s = lookup(options_, key);
  if (!s) return fallback;
  long v = 0;
  auto [end, ec] = std::from_chars(s->data(), s->data() + s->size(), v);
  if (ec != std::errc() || end != s->data() + s->size())
    throw InputError("--strategy-option " + key + "=" + *s + ": not an integer");
  return v;
}

std::string Context::option(const std::string& key, const std::string& fallback) const {
  const std::string* s = lookup(options_, key);
  return s ? *s : fallback;
}

std::vector<std::string> strategy_names() {
  std::vector<std::string> names;
  for (const auto& s : strategies()) names.push_back(s.name);
  return names;
}

const Strategy& find_strategy(const std::string& name, const StrategyOptions& options) {
  std::string known;
  for (const auto& s : strategies()) {
    if (s.name != name) {
      known += (known.empty() ? "" : ", ") + s.name;
      continue;
    }
    for (const auto& [key, value] : options) {
      if (std::find(s.options.begin(), s.options.end(), key) != s.options.end()) continue;
      std::string keys;
      std::vector<std::string_view> key_names;
      for (const auto& k : s.options) {
        keys += (keys.empty() ? "" : ", ") + k;
        key_names.emplace_back(k);
      }
      std::string message = "--strategy-option " + key;
      message += ": strategy " + name + " has no such option" + did_you_mean(key, key_names);
      message += " (it has: " + (keys.empty() ? std::string("none") : keys) + ")";
      throw InputError(message);
    }
    return s;
  }
  std::vector<std::string_view> names;
  for (const auto& s : strategies()) names.emplace_back(s.name);
  throw InputError("unknown --strategy '" + name + "'" + did_you_mean(name, names) + " (available: " + known + ")");
}

StrategyOptions parse_options(const std::vector<std::string>& items) {
  StrategyOptions out;
  for (const auto& item : items) {
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError("--strategy-option '" + item + "': expected key=value");
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

std::size_t run(const std::string& name, Context& ctx) {
  const Strategy& s = find_strategy(name);
  try {
    if (ctx.batch_size() > 1 && !s.batches)
      run_lanes(s, ctx);
    else
      s.body(ctx);
  } catch (const Stop&) {}
  return ctx.evaluations();
}

}  // namespace tune::search

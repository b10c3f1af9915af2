#include "space/space.h"

#include <algorithm>
#include <chrono>
#include <numeric>

#include "spec/bind.h"

namespace tune::space {

namespace {

// Parameters connected through conditions, with their valid sub-tuples.
struct Group {
  std::vector<std::size_t> params;            // ascending (declaration order)
  std::vector<const spec::Condition*> conds;  // conditions over these parameters only
  std::vector<Index> tuples;                  // count x params.size(), lexicographic
  std::size_t count = 0;
};

struct UnionFind {
  std::vector<std::size_t> parent;
  explicit UnionFind(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0); }
  std::size_t find(std::size_t x) { return parent[x] == x ? x : parent[x] = find(parent[x]); }
  void join(std::size_t a, std::size_t b) { parent[find(a)] = find(b); }
};

std::string describe(const spec::Spec& spec, std::span<const expr::Value> vars,
                     const std::vector<std::size_t>& params) {
  std::string s;
  for (std::size_t p : params) s += (s.empty() ? "" : ", ") + spec.parameters[p].name + "=" + vars[p].repr();
  return s;
}

bool check(const spec::Spec& spec, const spec::Condition& c, std::span<const expr::Value> vars) {
  try {
    return c.program.test(vars);
  } catch (const expr::Error& e) {
    throw expr::Error(expr::Location{spec.path.string(), c.json_path}, c.program.source(), e.column(),
                      e.cause() + " (with " + describe(spec, vars, c.params) + ")");
  }
}

// Search order inside a group: next the parameter that completes the most conditions, then the one
// with the fewest values, so that conditions prune as high in the tree as possible.
std::vector<std::size_t> search_order(const Group& g, const spec::Spec& spec) {
  std::vector<std::size_t> order;
  std::vector<bool> fixed(spec.parameters.size(), false);
  while (order.size() < g.params.size()) {
    std::size_t best = 0;
    long best_done = -1;
    std::size_t best_n = 0;
    for (std::size_t p : g.params) {
      if (fixed[p]) continue;
      long done = 0;
      for (const auto* c : g.conds) {
        bool needs_p = false, rest = true;
        for (std::size_t q : c->params) {
          if (q == p)
            needs_p = true;
          else if (!fixed[q])
            rest = false;
        }
        done += needs_p && rest;
      }
      std::size_t n = spec.parameters[p].values.size();
      if (done > best_done || (done == best_done && n < best_n)) best = p, best_done = done, best_n = n;
    }
    fixed[best] = true;
    order.push_back(best);
  }
  return order;
}

// Depth-first enumeration of one group's valid sub-tuples. Bounded: at most kMaxVisits partial
// assignments (a condition prunes only once all its parameters are set, so one condition over 40
// two-valued parameters would visit 2^41 of them) and at most kMaxTupleValues stored indices.
constexpr std::uint64_t kMaxVisits = std::uint64_t{1} << 25;
constexpr std::uint64_t kMaxTupleValues = std::uint64_t{1} << 31;
// Wall time a construction may take (real spaces take well under a second). A group whose costly
// conditions project past it, from the time per partial assignment so far times the assignments
// left at most, is refused once a sample of kSampleSeconds shows it; none runs past it.
constexpr double kMaxSeconds = 60;
constexpr double kSampleSeconds = 1;
constexpr std::uint64_t kClockEvery = 16;  // visits between two looks at the clock

// The partial assignments a depth-first walk over `order` visits at most (no condition prunes).
double max_visits(const spec::Spec& spec, const std::vector<std::size_t>& order) {
  double total = 0, level = 1;
  for (std::size_t p : order) {
    level *= static_cast<double>(spec.parameters[p].values.size());
    total += level;
  }
  return std::min(total, static_cast<double>(kMaxVisits));
}

void enumerate(Group& g, const spec::Spec& spec, std::vector<expr::Value>& vars, const std::string& file,
               std::chrono::steady_clock::time_point t0) {
  std::uint64_t visits = 0;
  auto names = [&] {
    std::string out;
    for (std::size_t p : g.params) {
      if (out.size() > 80) return out + ", ...";
      out += (out.empty() ? "" : ", ") + spec.parameters[p].name;
    }
    return out;
  };
  const std::size_t n = g.params.size();
  std::vector<std::size_t> order = search_order(g, spec);
  const double bound = max_visits(spec, order);
  const auto g0 = std::chrono::steady_clock::now();
  auto check_time = [&] {
    const auto now = std::chrono::steady_clock::now();
    const double spent = std::chrono::duration<double>(now - t0).count();
    const double here = std::chrono::duration<double>(now - g0).count();
    const double projected = here / static_cast<double>(visits) * (bound - static_cast<double>(visits));
    if (spent > kMaxSeconds || (here >= kSampleSeconds && spent + projected > kMaxSeconds))
      throw InputError(file + ": the conditions connecting " + std::to_string(n) + " parameters (" + names() +
                       ") took " + std::to_string(static_cast<long>(spent)) + " s for " + std::to_string(visits) +
                       " partial configurations and project to up to " +
                       std::to_string(static_cast<long long>(spent + projected)) +
                       " s for the rest: the space takes longer than " + std::to_string(static_cast<int>(kMaxSeconds)) +
                       " s to construct; simplify the conditions or split them by parameter");
  };
  // conditions to check once depth d is fixed
  std::vector<std::vector<const spec::Condition*>> at(n);
  for (const auto* c : g.conds) {
    std::size_t depth = 0;
    for (std::size_t q : c->params)
      depth = std::max<std::size_t>(depth, std::find(order.begin(), order.end(), q) - order.begin());
    at[depth].push_back(c);
  }
  std::vector<std::size_t> slot(n);  // position in declaration order of order[d]
  for (std::size_t d = 0; d < n; ++d)
    slot[d] = std::find(g.params.begin(), g.params.end(), order[d]) - g.params.begin();

  std::vector<Index> cur(n, 0);
  std::vector<std::size_t> pos(n, 0);
  std::size_t d = 0;
  pos[0] = 0;
  while (true) {
    const auto& vals = spec.parameters[order[d]].values;
    if (pos[d] == vals.size()) {
      if (d == 0) break;
      ++pos[--d];
      continue;
    }
    if (++visits > kMaxVisits)
      throw InputError(file + ": the conditions connecting " + std::to_string(n) + " parameters (" + names() +
                       ") leave more than " + std::to_string(kMaxVisits) +
                       " partial configurations to check: the space is too large to construct");
    if (visits % kClockEvery == 0) check_time();
    vars[order[d]] = vals[pos[d]];
    cur[slot[d]] = static_cast<Index>(pos[d]);
    bool ok = true;
    for (const auto* c : at[d])
      if (!check(spec, *c, vars)) {
        ok = false;
        break;
      }
    if (ok && d + 1 == n) {
      if (g.tuples.size() + n > kMaxTupleValues)
        throw InputError(file + ": the space has more valid configurations than tune can hold in memory");
      g.tuples.insert(g.tuples.end(), cur.begin(), cur.end());
      ++g.count;
    }
    if (ok && d + 1 < n)
      pos[++d] = 0;
    else
      ++pos[d];
  }

  bool sorted = std::is_sorted(order.begin(), order.end());
  if (!sorted && g.count > 1) {  // put the tuples in declaration-order lexicographic order
    std::vector<std::size_t> idx(g.count);
    std::iota(idx.begin(), idx.end(), 0);
    const Index* t = g.tuples.data();
    std::sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
      return std::lexicographical_compare(t + a * n, t + a * n + n, t + b * n, t + b * n + n);
    });
    std::vector<Index> out(g.tuples.size());
    for (std::size_t i = 0; i < g.count; ++i) std::copy_n(t + idx[i] * n, n, out.data() + i * n);
    g.tuples.swap(out);
  }
}

// Walks the parameters in declaration order; each group's sorted tuples form an implicit trie whose
// current node is a range [lo, hi). Every leaf is a valid configuration, so no work is wasted.
struct Product {
  const std::vector<Group>& groups;
  std::vector<std::size_t> group_of, pos_in_group;
  std::vector<std::pair<std::size_t, std::size_t>> range;
  std::vector<Index> cur;
  std::vector<Index>& rows;

  void walk(std::size_t p) {
    const std::size_t gi = group_of[p], k = pos_in_group[p];
    const Group& g = groups[gi];
    const std::size_t w = g.params.size();
    const auto [lo, hi] = range[gi];
    const bool last = p + 1 == cur.size();
    for (std::size_t i = lo; i < hi;) {
      const Index v = g.tuples[i * w + k];
      std::size_t j = i + 1;
      while (j < hi && g.tuples[j * w + k] == v) ++j;
      cur[p] = v;
      if (last) {
        rows.insert(rows.end(), cur.begin(), cur.end());
      } else {
        range[gi] = {i, j};
        walk(p + 1);
      }
      i = j;
    }
    range[gi] = {lo, hi};
  }
};

}  // namespace

Space Space::build(const spec::Spec& spec) {
  auto t0 = std::chrono::steady_clock::now();
  Space s;
  s.file_ = spec.path.string();
  const std::size_t np = spec.parameters.size();
  for (const auto& p : spec.parameters) {
    s.names_.push_back(p.name);
    s.values_.push_back(p.values);
    unsigned __int128 c = static_cast<unsigned __int128>(s.cartesian_) * p.values.size();
    s.cartesian_ = c > UINT64_MAX ? UINT64_MAX : static_cast<std::uint64_t>(c);
  }
  for (const auto& c : spec.conditions) s.conditions_.push_back(c.program);

  std::vector<expr::Value> vars(spec.expression_names().size());
  UnionFind uf(np);
  std::vector<const spec::Condition*> constant;
  for (const auto& c : spec.conditions) {
    if (c.params.empty()) constant.push_back(&c);
    for (std::size_t i = 1; i < c.params.size(); ++i) uf.join(c.params[0], c.params[i]);
  }
  for (const auto* c : constant)
    if (!check(spec, *c, vars))
      throw InputError(s.file_ + ": " + c->json_path + ": the condition `" + c->program.source() +
                       "` is always false: the space is empty");

  std::vector<Group> groups;
  std::vector<std::size_t> group_of(np, SIZE_MAX), pos_in_group(np);
  for (std::size_t p = 0; p < np; ++p) {
    std::size_t root = uf.find(p);
    if (group_of[root] == SIZE_MAX) group_of[root] = groups.size(), groups.emplace_back();
    group_of[p] = group_of[root];
    pos_in_group[p] = groups[group_of[p]].params.size();
    groups[group_of[p]].params.push_back(p);
  }
  for (const auto& c : spec.conditions)
    if (!c.params.empty()) groups[group_of[c.params[0]]].conds.push_back(&c);

  std::uint64_t total = 1;
  for (auto& g : groups) {
    if (g.conds.empty() && g.params.size() == 1) {
      g.count = spec.parameters[g.params[0]].values.size();
      g.tuples.resize(g.count);
      std::iota(g.tuples.begin(), g.tuples.end(), Index{0});
    } else {
      enumerate(g, spec, vars, s.file_, t0);
    }
    if (g.count == 0) throw InputError(s.file_ + ": the conditions leave no valid configuration: the space is empty");
    unsigned __int128 t = static_cast<unsigned __int128>(total) * g.count;
    if (t * np > (unsigned __int128)1 << 31)
      throw InputError(s.file_ + ": the space has more valid configurations than tune can hold in memory");
    total = static_cast<std::uint64_t>(t);
  }

  s.count_ = total;
  s.groups_ = groups.size();
  s.rows_.reserve(total * np);
  Product prod{groups, group_of, pos_in_group, {}, std::vector<Index>(np), s.rows_};
  for (const auto& g : groups) prod.range.emplace_back(0, g.count);
  prod.walk(0);
  s.seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

std::optional<std::size_t> Space::find(std::span<const Index> idx) const {
  const std::size_t n = names_.size();
  if (idx.size() != n) return std::nullopt;
  std::size_t lo = 0, hi = count_;
  while (lo < hi) {  // rows are sorted lexicographically
    std::size_t mid = lo + (hi - lo) / 2;
    const Index* r = rows_.data() + mid * n;
    if (std::lexicographical_compare(r, r + n, idx.begin(), idx.end()))
      lo = mid + 1;
    else
      hi = mid;
  }
  if (lo < count_ && std::equal(idx.begin(), idx.end(), rows_.data() + lo * n)) return lo;
  return std::nullopt;
}

bool Space::satisfies(std::span<const expr::Value> values) const {
  std::vector<expr::Value> vars(values.begin(), values.end());
  vars.resize(names_.size() + 1);  // + ProblemSize slot, unused by conditions
  for (const auto& c : conditions_)
    if (!c.test(vars)) return false;
  return true;
}

std::vector<expr::Value> Space::config_values(std::size_t config) const {
  std::vector<expr::Value> out;
  for (std::size_t p = 0; p < names_.size(); ++p) out.push_back(value(config, p));
  return out;
}

std::string Space::params_json(std::size_t config) const {
  std::string out = "{";
  for (std::size_t p = 0; p < names_.size(); ++p) {
    if (p) out += ',';
    out += nlohmann::json(names_[p]).dump();
    out += ':';
    out += spec::to_json(value(config, p)).dump();
  }
  return out + "}";
}

void check_config_rules(const spec::Spec& spec, const Space& space) {
  const auto named = [](const auto& axes) {
    return std::any_of(axes.begin(), axes.end(), [](const auto& a) { return a.has_value(); });
  };
  const bool align = named(spec.alignment), launch = named(spec.launch.cluster) || spec.launch.dynamic_shared;
  if (!align && !launch) return;
  const sizes::Size one = sizes::parse_one("1");
  for (std::size_t c = 0; c < space.size(); ++c) {
    const auto bound = spec::bind_config(spec, space.config_values(c), one);
    if (align) (void)spec::alignment(spec, bound);
    if (launch) spec::check_launch_bounds(spec, bound);
  }
}

}  // namespace tune::space

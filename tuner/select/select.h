// The selection rule: which configuration to run at a problem size, from everything measured.
//
// One source, used verbatim everywhere a configuration is chosen: `tune best` (query/), the
// generated headers (header/ pastes this file into the .h and the --dispatch .cuh) and the runtime
// library (runtime/table.cpp reads the --table JSON into a Model). Standard C++17 and the standard
// library only, as nvcc compiles the generated headers inside applications.
//
// The data (select/build.h makes it from the stored measurements):
// - the measured sizes, each with the configuration decided there (exact match: that decision);
// - the candidates: at each measured size, the kTop fastest configurations of each alignment
//   (so that each fast-path class keeps its best) within kKeep of that alignment's best there, and
//   every decision; each with an alignment divisor per axis (the spec's Tune.alignment: its fast
//   path applies at a size whose extents are multiples of them);
// - each candidate's regret at each measured size: its time / the best time there, stored as
//   round(regret * kScale) so that every consumer computes with the same numbers (0: not measured).
// At a size not measured, each candidate's regret is predicted from the kNeighbours measured sizes
// nearest to it (distance: per axis the log of the ratio of the extents) where the candidate is in
// the same applicability class as at the asked size (its fast path applies at both, or at
// neither), by inverse-distance weights (1 / d^4); the lowest predicted regret wins. Candidates
// without evidence in their class at the asked size rank after every candidate with it (those whose
// fast path applies first), so a configuration whose fast path does not apply is never chosen over
// one that applies and was measured there. Ties go to the earlier candidate (the candidates are
// ordered by their mean regret).
#ifndef TUNE_SELECT_H_V1
#define TUNE_SELECT_H_V1
#include <cmath>
#include <vector>

namespace tune_select {

inline constexpr unsigned kNeighbours = 2;  // measured sizes per prediction: one on each side of a sweep's gap
inline constexpr double kScale = 10000;     // regrets are stored as round(regret * kScale)
inline constexpr double kKeep = 1.15;       // a candidate is within this of its alignment's best somewhere
inline constexpr unsigned kTop = 4;         // ... and among its alignment's kTop fastest there
inline constexpr double kSlack = 0.005;     // the nearest size's decision wins within this of the lowest regret

// How a selection matched: the measured size itself; predicted from measured sizes around it (every
// extent inside the measured range of its axis); extrapolated beyond the measured range; none: the
// model is empty (the fallback).
enum class How : unsigned char { exact, predicted, extrapolated, none };

constexpr const char* how_name(How h) {
  return h == How::exact          ? "exact"
         : h == How::predicted    ? "predicted"
         : h == How::extrapolated ? "extrapolated"
                                  : "none";
}

// A measured size and what was decided there.
struct Point {
  long long x, y, z;
  unsigned decision;  // the variant decided at this size
  double time_ms;     // its time
  double best_ms;     // the best time measured at this size (regrets are relative to it)
};

// A configuration the model may choose, and the divisors its fast path needs per axis.
struct Candidate {
  unsigned variant;
  long long align[3];
};

// One device's model: num_sizes points, num_candidates candidates and their regrets, row by row
// (regret[s * num_candidates + c], 0: not measured).
struct Model {
  const Point* sizes;
  unsigned num_sizes;
  const Candidate* candidates;
  unsigned num_candidates;
  const unsigned* regret;
  unsigned fallback;  // the variant of an empty model
};

// A measurement a choice rests on: the size (index into Model::sizes) and the regret there (x kScale).
struct Evidence {
  unsigned size;
  unsigned regret;
};

struct Choice {
  unsigned variant = 0;
  How how = How::none;
  unsigned candidate = 0;  // index into Model::candidates (num_candidates when none)
  double regret = 0;       // predicted (or measured, when exact) time / the best time at the size
  bool applies = true;     // its fast path applies at the size (the size is a multiple of its alignment)
  bool in_class = true;    // its evidence comes from sizes of the same applicability class
  bool preferred = false;  // the nearest measured size's decision, predicted within kSlack of the best
  unsigned nearest = 0;    // the nearest measured size (index into Model::sizes; num_sizes when none)
  unsigned count = 0;      // evidence[0..count): the measurements the prediction used, nearest first
  Evidence evidence[kNeighbours] = {};
};

constexpr bool applies(const Candidate& c, long long x, long long y, long long z) {
  return x % c.align[0] == 0 && y % c.align[1] == 0 && z % c.align[2] == 0;
}

// How far apart two sizes are: the sum over axes of log(extent a / extent b)^2.
inline double distance2(long long ax, long long ay, long long az, long long bx, long long by, long long bz) {
  const double dx = std::log(double(ax)) - std::log(double(bx)), dy = std::log(double(ay)) - std::log(double(by)),
               dz = std::log(double(az)) - std::log(double(bz));
  return dx * dx + dy * dy + dz * dz;
}

namespace detail {

inline double distance2(const Point& p, long long x, long long y, long long z) {
  return ::tune_select::distance2(x, y, z, p.x, p.y, p.z);
}

// Every extent inside the measured range of its axis.
inline bool inside(const Model& m, long long x, long long y, long long z) {
  long long lo[3] = {m.sizes[0].x, m.sizes[0].y, m.sizes[0].z}, hi[3] = {lo[0], lo[1], lo[2]};
  for (unsigned s = 1; s < m.num_sizes; ++s) {
    const long long e[3] = {m.sizes[s].x, m.sizes[s].y, m.sizes[s].z};
    for (int a = 0; a < 3; ++a) {
      lo[a] = e[a] < lo[a] ? e[a] : lo[a];
      hi[a] = e[a] > hi[a] ? e[a] : hi[a];
    }
  }
  return x >= lo[0] && x <= hi[0] && y >= lo[1] && y <= hi[1] && z >= lo[2] && z <= hi[2];
}

// Candidate c's prediction at (x, y, z) from its kNeighbours nearest measurements among the sizes
// for which `wanted(size)` holds; count = 0 when there are none.
template <class Wanted>
Choice predict(const Model& m, const std::vector<double>& d2, unsigned c, Wanted wanted) {
  Choice out;
  out.candidate = c;
  out.variant = m.candidates[c].variant;
  double dist[kNeighbours] = {};
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    const unsigned r = m.regret[static_cast<unsigned long long>(s) * m.num_candidates + c];
    if (r == 0 || !wanted(m.sizes[s])) continue;
    unsigned k = out.count < kNeighbours ? out.count++ : kNeighbours;  // insertion into the nearest list
    while (k > 0 && dist[k - 1] > d2[s]) {
      if (k < kNeighbours) dist[k] = dist[k - 1], out.evidence[k] = out.evidence[k - 1];
      --k;
    }
    if (k < kNeighbours) dist[k] = d2[s], out.evidence[k] = Evidence{s, r};
  }
  double sw = 0, swr = 0;
  for (unsigned k = 0; k < out.count; ++k) {
    const double w = 1.0 / (dist[k] * dist[k] + 1e-12);
    sw += w;
    swr += w * (out.evidence[k].regret / kScale);
  }
  out.regret = out.count > 0 ? swr / sw : 0;
  return out;
}

// Ranking: evidence in the class first, then (without it) a candidate whose fast path applies, then
// the lowest predicted regret, then the earlier candidate.
inline int tier(const Choice& c) { return c.count == 0 ? 3 : c.in_class ? 0 : c.applies ? 1 : 2; }
inline bool before(const Choice& a, const Choice& b) {
  if (tier(a) != tier(b)) return tier(a) < tier(b);
  if (a.preferred != b.preferred) return a.preferred;
  if (a.regret != b.regret) return a.regret < b.regret;
  return a.candidate < b.candidate;
}

inline Choice predict(const Model& m, const std::vector<double>& d2, unsigned c, long long x, long long y,
                      long long z) {
  const Candidate& cand = m.candidates[c];
  const bool here = applies(cand, x, y, z);
  Choice ch = predict(m, d2, c, [&](const Point& p) { return applies(cand, p.x, p.y, p.z) == here; });
  if (ch.count == 0) {  // no measurement in its class: any measurement, ranked after
    ch = predict(m, d2, c, [](const Point&) { return true; });
    ch.in_class = false;
  }
  ch.applies = here;
  return ch;
}

}  // namespace detail

// The n best candidates at (x, y, z), best first (at a measured size the decision there first);
// returns how many were written to out (at most n and num_candidates).
inline unsigned top_candidates(const Model& m, long long x, long long y, long long z, Choice* out, unsigned n) {
  if (m.num_sizes == 0 || m.num_candidates == 0 || n == 0) return 0;
  std::vector<double> d2(m.num_sizes);
  unsigned nearest = 0, exact = m.num_sizes;
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    d2[s] = detail::distance2(m.sizes[s], x, y, z);
    if (d2[s] < d2[nearest]) nearest = s;
    if (m.sizes[s].x == x && m.sizes[s].y == y && m.sizes[s].z == z) exact = s;
  }
  const How how = exact < m.num_sizes ? How::exact : detail::inside(m, x, y, z) ? How::predicted : How::extrapolated;
  std::vector<Choice> all;
  all.reserve(m.num_candidates);
  for (unsigned c = 0; c < m.num_candidates; ++c) {
    Choice ch = detail::predict(m, d2, c, x, y, z);
    ch.how = how;
    ch.nearest = exact < m.num_sizes ? exact : nearest;
    if (exact < m.num_sizes && ch.variant == m.sizes[exact].decision) ch.regret = -1;  // the decision first
    all.push_back(ch);
  }
  // The nearest measured size's decision (tie-broken there towards its neighbours' choice) is
  // preferred while its predicted regret is within kSlack of the lowest in its tier.
  if (exact == m.num_sizes) {
    unsigned best = 0;
    for (unsigned c = 1; c < all.size(); ++c)
      if (detail::before(all[c], all[best])) best = c;
    for (auto& ch : all)
      if (ch.variant == m.sizes[nearest].decision && detail::tier(ch) == detail::tier(all[best]) &&
          ch.regret <= all[best].regret + kSlack)
        ch.preferred = true;
  }
  const unsigned k = n < m.num_candidates ? n : m.num_candidates;
  for (unsigned i = 0; i < k; ++i) {  // partial selection sort: k is small
    unsigned b = i;
    for (unsigned j = i + 1; j < all.size(); ++j)
      if (detail::before(all[j], all[b])) b = j;
    const Choice t = all[i];
    all[i] = all[b];
    all[b] = t;
    if (all[i].regret < 0) all[i].regret = m.sizes[exact].time_ms / m.sizes[exact].best_ms;
    out[i] = all[i];
  }
  return k;
}

// The configuration to run at (x, y, z): the decision at a measured size, else the lowest predicted
// regret; the model's fallback when it is empty.
inline Choice select(const Model& m, long long x, long long y = 1, long long z = 1) {
  Choice best;
  if (top_candidates(m, x, y, z, &best, 1) == 0) {
    best.variant = m.fallback;
    best.how = How::none;
    best.candidate = m.num_candidates;
    best.nearest = m.num_sizes;
    return best;
  }
  if (best.how == How::exact) {  // the stored decision, even if it is not among the candidates
    const unsigned s = best.nearest;
    const Point& p = m.sizes[s];
    if (best.variant != p.decision) {
      best = Choice{};
      best.variant = p.decision;
      best.how = How::exact;
      best.candidate = m.num_candidates;
      best.regret = p.time_ms / p.best_ms;
      best.nearest = s;
      best.count = 1;
      best.evidence[0] = Evidence{s, static_cast<unsigned>(std::lround(best.regret * kScale))};
    }
  }
  return best;
}

}  // namespace tune_select
#endif  // TUNE_SELECT_H_V1

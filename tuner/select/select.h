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
// At a size not measured, each candidate's regret is predicted from its nearest measured sizes of
// its own divisibility class (per axis the greatest common divisor of the extent and its alignment:
// 1001, 1002 and 1004 are three classes for a 4-wide vector, one for a scalar configuration), so
// that a vector configuration is judged where its fast path applies, or not, as at the asked size.
// Two sizes per axis along which the measured sizes vary (one each side of a gap), within reach:
// kFar, or kFar / r from a size of r > 1 times the asked one's elements (a size 7 times larger on
// an axis says less about the asked size than sizes of its own scale do). Distance: per axis the
// log of the ratio of the extents, squared and summed, plus kPow2 where one extent is a power of
// two and the other not (their rows fall on the same memory partitions). The prediction is the
// mean of the log of its time there relative to a reference, weighted by 1 / sqrt(distance2 +
// kNear): nearly even, as a configuration's regret swings 10-20% between sizes 5% apart (block
// counts against the SMs, L2 capacity), so the one robust around the asked size beats the one that
// won at the nearest size. The reference at a measured size is the fastest candidate there whose
// class there is its class at the asked size (the best time, when the asked size is aligned as
// that size is), so that a scalar configuration is not judged by the vector ones' speed at aligned
// sizes when the asked size is odd.
// The lowest prediction wins. Candidates without a measurement in their class within reach rank
// after every candidate with one (those whose fast path applies first, each predicted from sizes
// where it applies, or not, as at the asked size), so a configuration whose fast path does not
// apply is never chosen over one measured in the asked size's class. Predicted regrets in the same
// step of kSlack tie, and ties go to the earlier candidate (the candidates are ordered by their
// mean regret: the more robust one).
// Over the measured range the nearest sizes are no guide (configurations tied there part by
// 10-35% further out): the lowest geometric mean of a candidate's regrets wins, over the measured
// sizes of at least kBand x the largest elements (x the asked size's, if fewer) where its fast
// path applies as at the asked size (at least two; those whose fast path applies first), moved
// along the trend of its log regret against log elements there towards the asked size's elements,
// by at most kTrend (a configuration that gains with size keeps gaining a little past the range).
#ifndef TUNE_SELECT_H_V8
#define TUNE_SELECT_H_V8
#include <algorithm>
#include <cmath>
#include <vector>

namespace tune_select {

inline constexpr unsigned kNeighbours = 6;  // sizes per prediction: two per axis at most
inline constexpr double kScale = 10000;     // regrets are stored as round(regret * kScale)
inline constexpr double kKeep = 1.15;       // within this of its alignment's best somewhere
inline constexpr unsigned kTop = 4;         // ... and among its alignment's kTop fastest there
inline constexpr double kPow2 = 0.120113;   // log(2)^2 / 4: power of two against not
inline constexpr double kSlack = 0.005;     // predictions this close tie
inline constexpr double kNear = 0.01;       // weights 1 / sqrt(distance2 + kNear)
inline constexpr double kFar = 4.0;         // class evidence's reach (distance2; e^2 on one axis)
inline constexpr double kBand = 0.5;        // over the range: the band's share of the elements
inline constexpr double kTrend = 0.35;      // ... and how far (log elements) a trend extrapolates

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

// A measurement a choice rests on: the size (index into Model::sizes) and the regret there
// (x kScale).
struct Evidence {
  unsigned size;
  unsigned regret;
};

struct Choice {
  unsigned variant = 0;
  How how = How::none;
  unsigned candidate = 0;  // index into Model::candidates (num_candidates when none)
  double regret = 0;       // predicted (or measured, when exact) time / the best time at the size
  bool applies = true;     // its fast path applies at the size (a multiple of its alignment)
  bool in_class = true;    // its evidence comes from sizes of the same divisibility class
  unsigned nearest = 0;  // the nearest measured size (index into Model::sizes; num_sizes when none)
  unsigned count = 0;    // evidence[0..count): the measurements the prediction used, nearest first
  Evidence evidence[kNeighbours] = {};
};

constexpr bool applies(const Candidate& c, long long x, long long y, long long z) {
  return x % c.align[0] == 0 && y % c.align[1] == 0 && z % c.align[2] == 0;
}

constexpr long long gcd(long long a, long long b) { return b == 0 ? a : gcd(b, a % b); }

// The candidate's divisibility class at a size is the same at both sizes: per axis the greatest
// common divisor of the extent and the candidate's alignment.
constexpr bool same_class(const Candidate& c, long long ax, long long ay, long long az,
                          long long bx, long long by, long long bz) {
  return gcd(ax, c.align[0]) == gcd(bx, c.align[0]) && gcd(ay, c.align[1]) == gcd(by, c.align[1]) &&
         gcd(az, c.align[2]) == gcd(bz, c.align[2]);
}

// How far apart two sizes are: the sum over axes of log(extent a / extent b)^2.
inline double distance2(long long ax, long long ay, long long az, long long bx, long long by,
                        long long bz) {
  const double dx = std::log(double(ax)) - std::log(double(bx)),
               dy = std::log(double(ay)) - std::log(double(by)),
               dz = std::log(double(az)) - std::log(double(bz));
  return dx * dx + dy * dy + dz * dz;
}

namespace detail {

inline double distance2(const Point& p, long long x, long long y, long long z) {
  return ::tune_select::distance2(x, y, z, p.x, p.y, p.z);
}

inline bool pow2(long long v) { return v > 0 && (v & (v - 1)) == 0; }

// Extents that are powers of two behave apart (rows a power of two apart meet the same memory
// partitions): per axis where one extent is a power of two and the other not, a size counts as far
// as one 1.41 times larger (kPow2 = log(2)^2 / 4).
inline double pow2_penalty(const Point& p, long long x, long long y, long long z) {
  return kPow2 * ((pow2(p.x) != pow2(x)) + (pow2(p.y) != pow2(y)) + (pow2(p.z) != pow2(z)));
}

// The measured range: per axis the lowest and the highest extent; the most elements of a size.
struct Range {
  long long lo[3], hi[3];
  double largest;
};
inline Range range(const Model& m) {
  Range r{
      {m.sizes[0].x, m.sizes[0].y, m.sizes[0].z}, {m.sizes[0].x, m.sizes[0].y, m.sizes[0].z}, 0};
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    const long long e[3] = {m.sizes[s].x, m.sizes[s].y, m.sizes[s].z};
    for (int a = 0; a < 3; ++a)
      r.lo[a] = std::min(r.lo[a], e[a]), r.hi[a] = std::max(r.hi[a], e[a]);
    r.largest = std::fmax(r.largest, double(e[0]) * double(e[1]) * double(e[2]));
  }
  return r;
}

// Keeps out.evidence[0..count) the n <= kNeighbours nearest measurements (dist: their distances).
inline void keep_nearest(Choice& out, double (&dist)[kNeighbours], double d2, Evidence e,
                         unsigned n = kNeighbours) {
  unsigned k = out.count < n ? out.count++ : n;
  while (k > 0 && dist[k - 1] > d2) {
    if (k < n) dist[k] = dist[k - 1], out.evidence[k] = out.evidence[k - 1];
    --k;
  }
  if (k < n) dist[k] = d2, out.evidence[k] = e;
}

// Per measured size, the reference the candidates' times are taken relative to at (x, y, z) (x
// kScale): the lowest regret there of a candidate whose divisibility class there is its class at
// (x, y, z), else kScale (the best).
inline std::vector<double> references(const Model& m, long long x, long long y, long long z) {
  std::vector<double> ref(m.num_sizes, 0);
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    const Point& p = m.sizes[s];
    for (unsigned c = 0; c < m.num_candidates; ++c) {
      const unsigned r = m.regret[static_cast<unsigned long long>(s) * m.num_candidates + c];
      if (r != 0 && (ref[s] == 0 || r < ref[s]) &&
          same_class(m.candidates[c], p.x, p.y, p.z, x, y, z))
        ref[s] = r;
    }
    if (ref[s] == 0) ref[s] = kScale;
  }
  return ref;
}

// Candidate c's prediction from its n nearest measurements among the sizes s for which `wanted(s)`
// holds: the mean of their log time ratios to the reference, weighted by 1 / sqrt(d2 + kNear);
// count = 0 when there are none.
template <class Wanted>
Choice predict(const Model& m, const std::vector<double>& d2, const std::vector<double>& ref,
               unsigned c, unsigned n, Wanted wanted) {
  Choice out;
  out.candidate = c;
  out.variant = m.candidates[c].variant;
  double dist[kNeighbours] = {};
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    const unsigned r = m.regret[static_cast<unsigned long long>(s) * m.num_candidates + c];
    if (r != 0 && wanted(s)) keep_nearest(out, dist, d2[s], Evidence{s, r}, n);
  }
  double sw = 0, swr = 0;
  for (unsigned k = 0; k < out.count; ++k) {
    const double w = 1.0 / std::sqrt(dist[k] + kNear);
    sw += w;
    swr += w * std::log(out.evidence[k].regret / ref[out.evidence[k].size]);
  }
  out.regret = out.count > 0 ? std::exp(swr / sw) : 0;
  return out;
}

// Ranking: evidence in its class first, then (without it) a candidate whose fast path applies, then
// the lowest predicted regret in steps of kSlack, then the earlier candidate.
inline int tier(const Choice& c) { return c.count == 0 ? 3 : c.in_class ? 0 : c.applies ? 1 : 2; }
inline bool before(const Choice& a, const Choice& b) {
  if (tier(a) != tier(b)) return tier(a) < tier(b);
  // predictions within kSlack of each other are not told apart: the candidate better on average
  // wins
  const double qa = std::floor(a.regret / kSlack), qb = std::floor(b.regret / kSlack);
  if (qa != qb) return qa < qb;
  return a.candidate < b.candidate;
}

inline double elements(long long x, long long y, long long z) { return double(x) * double(y) * z; }

// Measured point p, at squared distance d2 from (x, y, z), is near enough to be class evidence:
// within kFar, or within kFar / r when p has r > 1 times the elements (a configuration that wins
// with the blocks of a larger size may leave much of the GPU idle at the asked one).
inline bool within_reach(const Point& p, double d2, long long x, long long y, long long z) {
  const double r = elements(p.x, p.y, p.z) / elements(x, y, z);
  return d2 < (r > 1 ? kFar / r : kFar);
}

// Per measured size, whether it is within reach of (x, y, z) (the same for every candidate).
inline std::vector<char> reach(const Model& m, const std::vector<double>& d2, long long x,
                               long long y, long long z) {
  std::vector<char> r(m.num_sizes);
  for (unsigned s = 0; s < m.num_sizes; ++s) r[s] = within_reach(m.sizes[s], d2[s], x, y, z);
  return r;
}

// Candidate c at (x, y, z) from the sizes around it: its evidence the nearest sizes of its own
// divisibility class within reach (in_reach: per size, from reach()); without any, the sizes where its
// fast path applies as here, else any (ranked after every candidate with class evidence).
inline Choice predict(const Model& m, const std::vector<double>& d2, const std::vector<double>& ref,
                      const std::vector<char>& in_reach, unsigned c, unsigned n, long long x,
                      long long y, long long z) {
  const Candidate& cand = m.candidates[c];
  const bool here = applies(cand, x, y, z);
  Choice ch = predict(m, d2, ref, c, n, [&](unsigned s) {
    const Point& p = m.sizes[s];
    return in_reach[s] != 0 && same_class(cand, p.x, p.y, p.z, x, y, z);
  });
  if (ch.count == 0) {
    ch = predict(m, d2, ref, c, n, [&](unsigned s) {
      return applies(cand, m.sizes[s].x, m.sizes[s].y, m.sizes[s].z) == here;
    });
    if (ch.count == 0) ch = predict(m, d2, ref, c, n, [](unsigned) { return true; });
    ch.in_class = false;
  }
  ch.applies = here;
  return ch;
}

// The band rule (above): candidate c scored over the sizes of at least `floor` elements where its
// fast path applies as at (x, y, z): the mean log regret, moved along its least-squares line in
// log elements by up to kTrend; its evidence the nearest of them; count = 0 with fewer than 2.
inline Choice band_predict(const Model& m, const std::vector<double>& d2, unsigned c, double floor,
                           long long x, long long y, long long z) {
  Choice out;
  out.candidate = c;
  out.variant = m.candidates[c].variant;
  const Candidate& cand = m.candidates[c];
  const bool here = applies(cand, x, y, z);
  double dist[kNeighbours] = {}, sx = 0, sy = 0, sxx = 0, sxy = 0;  // log elements x, log regret y
  unsigned n = 0;
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    const Point& p = m.sizes[s];
    const unsigned r = m.regret[static_cast<unsigned long long>(s) * m.num_candidates + c];
    if (r == 0 || elements(p.x, p.y, p.z) < floor || applies(cand, p.x, p.y, p.z) != here) continue;
    const double lx = std::log(elements(p.x, p.y, p.z)), ly = std::log(r / kScale);
    sx += lx, sy += ly, sxx += lx * lx, sxy += lx * ly, ++n;
    keep_nearest(out, dist, d2[s], Evidence{s, r});
  }
  if (n < 2) out.count = 0;
  const double k = n < 2 ? 1 : n, mx = sx / k, my = sy / k;  // means (unused under 2)
  const double vxx = sxx / k - mx * mx, slope = vxx > 1e-9 ? (sxy / k - mx * my) / vxx : 0;
  const double dx = std::fmin(std::fmax(0.0, std::log(elements(x, y, z)) - mx), kTrend);
  out.regret = n < 2 ? 0 : std::exp(my + slope * dx);  // least squares' line at mx + dx
  out.applies = here;
  out.in_class = here;  // tier: applies and scored, then scored, then not scored
  return out;
}

}  // namespace detail

// The n best candidates at (x, y, z), best first (at a measured size the decision there first);
// returns how many were written to out (at most n and num_candidates).
inline unsigned top_candidates(const Model& m, long long x, long long y, long long z, Choice* out,
                               unsigned n) {
  if (m.num_sizes == 0 || m.num_candidates == 0 || n == 0) return 0;
  std::vector<double> d2(m.num_sizes);
  unsigned nearest = 0, exact = m.num_sizes;
  for (unsigned s = 0; s < m.num_sizes; ++s) {
    d2[s] = detail::distance2(m.sizes[s], x, y, z) + detail::pow2_penalty(m.sizes[s], x, y, z);
    if (d2[s] < d2[nearest]) nearest = s;
    if (m.sizes[s].x == x && m.sizes[s].y == y && m.sizes[s].z == z) exact = s;
  }
  const detail::Range r = detail::range(m);
  const bool over = x > r.hi[0] || y > r.hi[1] || z > r.hi[2];  // some extent over its axis's range
  const bool inside = !over && x >= r.lo[0] && y >= r.lo[1] && z >= r.lo[2];
  const How how = exact < m.num_sizes ? How::exact : inside ? How::predicted : How::extrapolated;
  unsigned n_near = 0;  // two neighbours (one each side of a gap) per axis the sizes vary along
  for (int a = 0; a < 3; ++a) n_near += r.lo[a] < r.hi[a] ? 2 : 0;
  n_near = n_near < 2 ? 2 : n_near;
  bool band = over;  // extrapolated over the range (a measured size is never over it)
  const double e = detail::elements(x, y, z),
               floor = kBand * (e >= kBand * r.largest ? r.largest : e);
  std::vector<Choice> all;
  all.reserve(m.num_candidates);
  for (unsigned c = 0; band && c < m.num_candidates; ++c)
    all.push_back(detail::band_predict(m, d2, c, floor, x, y, z));
  band = band && std::any_of(all.begin(), all.end(), [](const Choice& ch) { return ch.count > 0; });
  if (!band) {  // else (a band of fewer than two sizes too) from the sizes around it
    all.clear();
    const std::vector<double> ref = detail::references(m, x, y, z);
    const std::vector<char> near = detail::reach(m, d2, x, y, z);
    for (unsigned c = 0; c < m.num_candidates; ++c) {
      Choice ch = detail::predict(m, d2, ref, near, c, n_near, x, y, z);
      if (exact < m.num_sizes && ch.variant == m.sizes[exact].decision)
        ch.regret = -1;  // the decision first
      all.push_back(ch);
    }
  }
  for (auto& ch : all) ch.how = how, ch.nearest = exact < m.num_sizes ? exact : nearest;
  const unsigned k = n < m.num_candidates ? n : m.num_candidates;
  for (unsigned i = 0; i < k; ++i) {  // partial selection sort: k is small
    unsigned b = i;
    for (unsigned j = i + 1; j < all.size(); ++j)
      if (detail::before(all[j], all[b])) b = j;
    const Choice t = all[i];
    all[i] = all[b];
    all[b] = t;
    if (all[i].regret < 0) all[i].regret = m.sizes[exact].time_ms / m.sizes[exact].best_ms;
    if (all[i].regret < 1) all[i].regret = 1;  // no faster than the best
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
#endif  // TUNE_SELECT_H_V8

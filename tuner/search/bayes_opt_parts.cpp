#include "search/bayes_opt_parts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.h"
#include "search/continuous.h"

namespace tune::search::bo {
namespace {
constexpr double kXi = 0.01;             // EI/PI improvement margin (normalised units) at the initial uncertainty
constexpr double kKappa = 1.0;           // LCB sd multiplier at the initial uncertainty
constexpr double kDiscount = 0.95;       // multi-advanced: discount of older results
constexpr double kRequired = 0.1;        // multi-advanced: 10% better/worse than the mean
constexpr std::size_t kStreak = 5;       // multi-advanced: rounds before a change
constexpr std::size_t kDesigns = 100;    // random Latin hypercubes tried for the maximin one
constexpr std::size_t kMaxModel = 1024;  // observations before the model keeps only a subset:
constexpr std::size_t kKeepBest = 384, kKeepRecent = 128;  // the best and the latest
constexpr std::size_t kFitPoints = 200;                    // observations the hyperparameter fit looks at, at most
constexpr double kRefitGrowth = 1.5;    // refit the hyperparameters when the observations grew by this
constexpr std::size_t kRefitMax = 300;  // and no more beyond this many (their cost grows, their gain not)
constexpr double kStartLength = 1.0, kStartNoise = 1e-4;  // the first fit starts here
constexpr double kFixedNoise = 1e-6;
// Every kPruneEvery steps from kPruneAfter observations on, candidates whose mean lies more than
// kPruneZ predictive sds above the best leave the pool until the next rebuild (hyperparameter
// refit): they would not be chosen, and updating them is most of the cost per step.
constexpr double kPruneZ = 4;
constexpr std::size_t kPruneEvery = 10, kPruneAfter = 50;  // with a fixed lengthscale (Kernel Tuner uses 1e-10)
}  // namespace

Settings read_settings(const Context& ctx) {
  Settings s;
  const std::string kernel = ctx.option("covariancekernel", std::string("matern32"));
  if (kernel == "matern32")
    s.kernel = gp::Kernel::matern32;
  else if (kernel == "matern52")
    s.kernel = gp::Kernel::matern52;
  else
    throw InputError("--strategy-option covariancekernel=" + kernel + ": bayes_opt supports matern32, matern52");
  s.lengthscale = real_option(ctx, "covariancelengthscale", 1.5, 1e-6, 1e6);
  const std::string method = ctx.option("method", std::string("multi-advanced"));
  if (method == "ei")
    s.method = Method::ei;
  else if (method == "poi")
    s.method = Method::poi;
  else if (method == "lcb")
    s.method = Method::lcb;
  else if (method == "multi" || method == "multi-fast" || method == "multi-ultrafast")
    s.method = Method::multi;
  else if (method == "multi-advanced" || method == "advanced_multi")
    s.method = Method::multi_advanced;
  else
    throw InputError(
        "--strategy-option method=" + method +
        ": bayes_opt supports ei, poi, lcb, multi, multi-fast, multi-ultrafast, multi-advanced, advanced_multi");
  const std::string sampling = ctx.option("samplingmethod", std::string("lhs"));
  if (sampling == "lhs" || sampling == "LHS")
    s.lhs = true;
  else if (sampling == "random")
    s.lhs = false;
  else
    throw InputError("--strategy-option samplingmethod=" + sampling + ": bayes_opt supports lhs, random");
  s.fit = ctx.option("covariancelengthscale", std::string()).empty();
  s.popsize = count_option(ctx, "popsize", 20, 1);
  s.maxiter = count_option(ctx, "maxiter", 100'000'000, 0);
  return s;
}

std::vector<std::size_t> latin_hypercube(const space::Space& space, std::size_t n, Rng& rng) {
  const Continuous box(space, Scale::unit);
  const auto& dims = box.active();
  if (n == 0) return {};
  std::vector<std::vector<double>> best, design(n, std::vector<double>(box.dims()));
  double best_spread = -1;
  std::vector<std::size_t> perm(n);
  for (std::size_t t = 0; t < kDesigns; ++t) {
    for (std::size_t p = 0; p < box.dims(); ++p) {
      std::iota(perm.begin(), perm.end(), std::size_t{0});
      for (std::size_t i = n; i > 1; --i) std::swap(perm[i - 1], perm[rng.below(i)]);
      for (std::size_t j = 0; j < n; ++j)
        design[j][p] = (perm[j] + rng.uniform()) / static_cast<double>(n) * box.upper(p);
    }
    double spread = std::numeric_limits<double>::infinity();
    for (std::size_t a = 0; a < n; ++a)
      for (std::size_t b = a + 1; b < n; ++b) {
        double d = 0;
        for (std::size_t p : dims) d += (design[a][p] - design[b][p]) * (design[a][p] - design[b][p]);
        spread = std::min(spread, d);
      }
    if (spread > best_spread) best_spread = spread, best = design;
  }
  std::vector<std::size_t> snapped;
  for (const auto& x : best) {
    const std::size_t c = box.snap(x, rng);
    if (std::find(snapped.begin(), snapped.end(), c) == snapped.end()) snapped.push_back(c);
  }
  // Farthest-first order from the first point, over the snapped configurations.
  std::vector<std::size_t> out{snapped.front()};
  std::vector<double> gap(snapped.size(), std::numeric_limits<double>::infinity());
  std::vector<bool> used(snapped.size(), false);
  used[0] = true;
  while (out.size() < snapped.size()) {
    const auto last = box.position(out.back());
    std::size_t far = 0;
    double far_gap = -1;
    for (std::size_t i = 0; i < snapped.size(); ++i) {
      if (used[i]) continue;
      gap[i] = std::min(gap[i], box.distance2(last, snapped[i]));
      if (gap[i] > far_gap) far_gap = gap[i], far = i;
    }
    used[far] = true;
    out.push_back(snapped[far]);
  }
  return out;
}

std::size_t initial_sample_size(const Context& ctx, std::size_t popsize) {
  double evaluations = std::numeric_limits<double>::infinity();
  if (ctx.budget().max_fevals) evaluations = static_cast<double>(*ctx.budget().max_fevals);
  if (ctx.budget().time_limit_s && ctx.evaluations() > 0 && ctx.elapsed_s() > 0)
    evaluations =
        std::min(evaluations, *ctx.budget().time_limit_s / (ctx.elapsed_s() / static_cast<double>(ctx.evaluations())));
  const double share = std::max(static_cast<double>(kMinInitial), std::floor(evaluations / 20));
  return std::min(popsize, static_cast<std::size_t>(std::min(share, 1e9)));
}

Model::Model(const space::Space& space, const Settings& settings)
    : kernel_(settings.kernel), fit_(settings.fit), candidate_(space.size(), 0), observed_(space.size(), 0) {
  const Continuous box(space, Scale::step);
  const auto& active = box.active();
  const auto dims = static_cast<Eigen::Index>(active.size());
  base_.resize(dims, static_cast<Eigen::Index>(space.size()));
  for (std::size_t c = 0; c < space.size(); ++c) {
    const auto idx = space.indices(c);
    for (Eigen::Index k = 0; k < dims; ++k) {
      const std::size_t p = active[static_cast<std::size_t>(k)];
      base_(k, static_cast<Eigen::Index>(c)) = idx[p] / static_cast<double>(box.values(p) - 1);
    }
  }
  for (std::size_t p : active) {
    // Kernel Tuner's unit: one index step is box.step(p); this parameter's [0, 1] is values-1 steps.
    const double per_unit = box.step(p) * static_cast<double>(box.values(p) - 1);
    hyper_.length.push_back(fit_ ? kStartLength : settings.lengthscale / per_unit);
  }
  hyper_.noise = fit_ ? kStartNoise : kFixedNoise;
  rebuild({});
}

std::optional<double> Model::transform(std::optional<double> objective) const {
  if (!objective || !std::isfinite(*objective)) return std::nullopt;
  return log_ ? std::log(*objective) : *objective;
}

void Model::observe(std::size_t config, std::optional<double> objective) {
  observed_[config] = 1;
  configs_.push_back(config);
  objectives_.push_back(objective);
  const bool ok = objective && std::isfinite(*objective);
  ok_ += ok;
  if (log_ && ok && *objective <= 0) {
    log_ = false;
    rebuild(kept());
    return;
  }
  gp_->observe(config, transform(objective));
  if (gp_->observations() >= kMaxModel) rebuild(kept());
}

std::vector<std::size_t> Model::kept() const {
  std::vector<std::size_t> keep(configs_.size());
  std::iota(keep.begin(), keep.end(), std::size_t{0});
  if (keep.size() < kMaxModel) return keep;
  std::vector<std::size_t> ok;
  for (std::size_t i : keep)
    if (transform(objectives_[i])) ok.push_back(i);
  std::stable_sort(ok.begin(), ok.end(),
                   [&](std::size_t a, std::size_t b) { return *objectives_[a] < *objectives_[b]; });
  ok.resize(std::min(ok.size(), kKeepBest));
  for (std::size_t i = keep.size() - kKeepRecent; i < keep.size(); ++i) ok.push_back(i);
  std::sort(ok.begin(), ok.end());
  ok.erase(std::unique(ok.begin(), ok.end()), ok.end());
  return ok;
}

void Model::add_candidates(const std::vector<std::size_t>& configs) {
  for (std::size_t c : configs) candidate_[c] = 1;
  gp_->add_candidates(configs);
}

void Model::rebuild(const std::vector<std::size_t>& keep) {
  // Every candidate not observed yet, also those pruned from the pool since the last rebuild.
  std::vector<std::size_t> pool;
  for (std::size_t c = 0; c < candidate_.size(); ++c)
    if (candidate_[c] && !observed_[c]) pool.push_back(c);
  Eigen::VectorXd inv(base_.rows());
  for (Eigen::Index k = 0; k < inv.size(); ++k) inv[k] = 1.0 / hyper_.length[static_cast<std::size_t>(k)];
  scaled_ = inv.asDiagonal() * base_;
  gp_.emplace(scaled_, kernel_, 1.0, hyper_.noise);
  gp_->add_candidates(pool);
  std::vector<std::size_t> configs;
  std::vector<std::optional<double>> values;
  for (std::size_t i : keep) configs.push_back(configs_[i]), values.push_back(transform(objectives_[i]));
  gp_->observe_all(configs, values);
}

void Model::refit_hyper() {
  const std::vector<std::size_t> keep = kept();
  std::vector<std::size_t> ok;
  for (std::size_t i : keep)
    if (transform(objectives_[i])) ok.push_back(i);
  if (ok.size() < 3) return;
  if (ok.size() > kFitPoints) {  // the best half and the latest half
    std::vector<std::size_t> by_value = ok;
    std::stable_sort(by_value.begin(), by_value.end(),
                     [&](std::size_t a, std::size_t b) { return *objectives_[a] < *objectives_[b]; });
    std::vector<std::size_t> pick(by_value.begin(), by_value.begin() + kFitPoints / 2);
    for (auto it = ok.rbegin(); it != ok.rend() && pick.size() < kFitPoints; ++it)
      if (std::find(pick.begin(), pick.begin() + kFitPoints / 2, *it) == pick.begin() + kFitPoints / 2)
        pick.push_back(*it);
    ok = pick;
  }
  const auto n = static_cast<Eigen::Index>(ok.size());
  Eigen::MatrixXd x(base_.rows(), n);
  Eigen::VectorXd y(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const std::size_t o = ok[static_cast<std::size_t>(i)];
    x.col(i) = base_.col(static_cast<Eigen::Index>(configs_[o]));
    y[i] = *transform(objectives_[o]);
  }
  const double mean = y.mean();
  const double sd = std::sqrt((y.array() - mean).square().mean());
  y = (y.array() - mean) / (sd > 1e-12 ? sd : 1.0);
  const gp::Hyper h = gp::fit(x, y, kernel_, hyper_);
  fitted_at_ = configs_.size();
  if (h.length != hyper_.length || h.noise != hyper_.noise) {
    hyper_ = h;
    rebuild(keep);
  }
}

double Model::median_objective() const {
  std::vector<double> v;
  for (const auto& o : objectives_)
    if (o && std::isfinite(*o)) v.push_back(*o);
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<long>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

std::vector<std::size_t> Model::ranked() const {
  std::vector<std::size_t> idx;
  for (std::size_t i = 0; i < configs_.size(); ++i)
    if (transform(objectives_[i])) idx.push_back(i);
  std::stable_sort(idx.begin(), idx.end(),
                   [&](std::size_t a, std::size_t b) { return *objectives_[a] < *objectives_[b]; });
  for (std::size_t& i : idx) i = configs_[i];
  return idx;
}

std::optional<std::size_t> Model::best_candidate(Acquisition af, const std::vector<std::size_t>* only) {
  if (fit_ && (fitted_at_ == 0 ||
               (configs_.size() >= kRefitGrowth * static_cast<double>(fitted_at_) && configs_.size() <= kRefitMax)))
    refit_hyper();
  const auto& pool = gp_->pool();
  if (pool.empty()) return std::nullopt;
  double sum = 0, sum2 = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::size_t n = 0;
  for (const auto& v : gp_->values())
    if (v) sum += *v, sum2 += *v * *v, lo = std::min(lo, *v), hi = std::max(hi, *v), ++n;
  if (n == 0) return pool.front();
  const double mean = sum / static_cast<double>(n);
  const double var = sum2 / static_cast<double>(n) - mean * mean;
  const double scale = var > 1e-24 ? std::sqrt(var) : 1.0;
  const double fbest = (lo - mean) / scale;

  // The exploration margin shrinks with the mean predictive sd over the pool (Kernel Tuner's
  // contextual variance, relative to the first model step).
  double mean_sd = 0;
  std::vector<std::size_t> hopeless;
  const bool prune = ++steps_ % kPruneEvery == 0 && configs_.size() >= kPruneAfter;
  for (std::size_t r = 0; r < pool.size(); ++r) {
    const auto p = gp_->predict(r, mean, scale, hi);
    mean_sd += p.sd;
    if (prune && p.mean - kPruneZ * p.sd > fbest) hopeless.push_back(pool[r]);
  }
  mean_sd /= static_cast<double>(pool.size());
  if (hopeless.size() < pool.size())
    for (std::size_t c : hopeless) gp_->drop(c);
  if (pool.empty()) return std::nullopt;
  if (!initial_sd_) initial_sd_ = mean_sd;
  const double explore = *initial_sd_ > 0 ? mean_sd / *initial_sd_ : 0.0;
  const double target = fbest - kXi * explore;

  std::vector<std::size_t> rows;
  if (only) {
    for (std::size_t c : *only)
      if (gp_->in_pool(c)) rows.push_back(gp_->row(c));
    if (rows.empty()) return std::nullopt;
  }
  const std::size_t count = only ? rows.size() : pool.size();
  std::size_t arg = 0;
  double top = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t r = only ? rows[i] : i;
    const auto p = gp_->predict(r, mean, scale, hi);
    const double gain = target - p.mean, z = gain / p.sd;
    double a;
    if (af == Acquisition::ei)
      a = gain * 0.5 * std::erfc(-z / M_SQRT2) + p.sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    else if (af == Acquisition::poi)
      a = z;  // monotone in the probability of improvement
    else
      a = -(p.mean - kKappa * explore * p.sd);
    if (a > top) top = a, arg = r;
  }
  return pool[arg];
}

Portfolio::Portfolio(Method method) : method_(method) {
  switch (method) {
    case Method::ei:
      active_ = {Acquisition::ei};
      break;
    case Method::poi:
      active_ = {Acquisition::poi};
      break;
    case Method::lcb:
      active_ = {Acquisition::lcb};
      break;
    default:
      active_ = {Acquisition::ei, Acquisition::poi, Acquisition::lcb};
  }
}

Acquisition Portfolio::next() { return active_[turn_ % active_.size()]; }

void Portfolio::record(Acquisition af, std::optional<double> objective, const Model& model) {
  ++turn_;
  if (method_ != Method::multi_advanced || active_.size() < 2) return;
  results_[static_cast<std::size_t>(af)].push_back(objective ? *objective : model.median_objective());
  if (turn_ >= active_.size()) end_of_round(), turn_ = 0;
}

void Portfolio::end_of_round() {
  std::array<double, 3> discounted{};
  double mean = 0;
  for (Acquisition a : active_) {
    const auto& r = results_[static_cast<std::size_t>(a)];
    double d = 0;
    for (std::size_t i = 0; i < r.size(); ++i) d += r[i] * std::pow(kDiscount, static_cast<double>(r.size() - 1 - i));
    discounted[static_cast<std::size_t>(a)] = d;
    mean += d / static_cast<double>(active_.size());
  }
  for (Acquisition a : active_) {
    const auto i = static_cast<std::size_t>(a);
    if (discounted[i] > mean * (1 + kRequired))
      ++worse_[i];
    else if (discounted[i] < mean * (1 - kRequired))
      ++better_[i];
  }
  // Drop the AF that has been worse most often (ties: the worse discounted result); else keep the
  // one that has been better most often alone.
  auto pick = [&](const std::array<std::size_t, 3>& count, bool worst) -> std::optional<Acquisition> {
    std::optional<Acquisition> out;
    std::size_t most = 0;
    for (Acquisition a : active_) most = std::max(most, count[static_cast<std::size_t>(a)]);
    if (most < kStreak) return std::nullopt;
    for (Acquisition a : active_) {
      const auto i = static_cast<std::size_t>(a);
      if (count[i] != most) continue;
      if (!out || (worst ? discounted[i] > discounted[static_cast<std::size_t>(*out)]
                         : discounted[i] < discounted[static_cast<std::size_t>(*out)]))
        out = a;
    }
    return out;
  };
  if (auto w = pick(worse_, true)) {
    std::erase(active_, *w);
    worse_ = {}, better_ = {};
  } else if (auto b = pick(better_, false)) {
    active_ = {*b};
  }
}

}  // namespace tune::search::bo

#include "search/bayes_model.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numeric>

#include "search/continuous.h"

namespace tune::search::bo {
namespace {
constexpr double kXi = 0.01;             // EI/PI improvement margin (normalised units) at the initial uncertainty
constexpr double kKappa = 1.0;           // LCB sd multiplier at the initial uncertainty
constexpr std::size_t kMaxModel = 1024;  // observations before the model keeps a subset:
constexpr std::size_t kKeepBest = 384, kKeepRecent = 128;  // the best and the latest
constexpr std::size_t kFitPoints = 200;                    // observations the hyperparameter fit looks at, at most
constexpr double kRefitGrowth = 1.5;    // refit the hyperparameters when the observations grew by this
constexpr std::size_t kRefitMax = 300;  // and no more beyond this many (their cost grows, their gain not)
constexpr double kStartLength = 1.0, kStartNoise = 1e-4;  // the first fit starts here
constexpr double kFixedNoise = 1e-6;                      // with a fixed lengthscale (Kernel Tuner uses 1e-10)
// Every kPruneEvery steps from kPruneAfter observations on, candidates whose mean lies more than
// kPruneZ predictive sds above the best leave the pool until the next rebuild (hyperparameter
// refit): they would not be chosen, and updating them is most of the cost per step.
constexpr double kPruneZ = 4;
constexpr std::size_t kPruneEvery = 10, kPruneAfter = 50;
}  // namespace

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

std::vector<std::size_t> Model::by_objective(std::vector<std::size_t> indices) const {
  std::erase_if(indices, [&](std::size_t i) { return !transform(objectives_[i]); });
  std::stable_sort(indices.begin(), indices.end(),
                   [&](std::size_t a, std::size_t b) { return *objectives_[a] < *objectives_[b]; });
  return indices;
}

std::vector<std::size_t> Model::kept() const {
  std::vector<std::size_t> keep(configs_.size());
  std::iota(keep.begin(), keep.end(), std::size_t{0});
  if (keep.size() < kMaxModel) return keep;
  std::vector<std::size_t> ok = by_objective(std::move(keep));
  ok.resize(std::min(ok.size(), kKeepBest));
  for (std::size_t i = configs_.size() - kKeepRecent; i < configs_.size(); ++i) ok.push_back(i);
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
    const std::vector<std::size_t> by_value = by_objective(ok);
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
  std::vector<std::size_t> idx(configs_.size());
  std::iota(idx.begin(), idx.end(), std::size_t{0});
  idx = by_objective(std::move(idx));
  for (std::size_t& i : idx) i = configs_[i];
  return idx;
}

std::optional<Model::Standing> Model::standing() const {
  double sum = 0, sum2 = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
  std::size_t n = 0;
  for (const auto& v : gp_->values())
    if (v) sum += *v, sum2 += *v * *v, lo = std::min(lo, *v), hi = std::max(hi, *v), ++n;
  if (n == 0) return std::nullopt;
  Standing st;
  st.mean = sum / static_cast<double>(n);
  const double var = sum2 / static_cast<double>(n) - st.mean * st.mean;
  st.scale = var > 1e-24 ? std::sqrt(var) : 1.0;
  st.hi = hi;
  st.fbest = (lo - st.mean) / st.scale;
  return st;
}

double Model::mean_sd(const Standing& st, std::vector<std::size_t>* hopeless) const {
  const auto& pool = gp_->pool();
  double total = 0;
  for (std::size_t r = 0; r < pool.size(); ++r) {
    const auto p = gp_->predict(r, st.mean, st.scale, st.hi);
    total += p.sd;
    if (hopeless && p.mean - kPruneZ * p.sd > st.fbest) hopeless->push_back(pool[r]);
  }
  return total / static_cast<double>(pool.size());
}

std::vector<std::vector<std::size_t>> Model::top_by_acquisition(const Standing& st, double explore, std::size_t k,
                                                                std::optional<Acquisition> only) const {
  const auto& pool = gp_->pool();
  const double target = st.fbest - kXi * explore;
  auto acquisition = [&](Acquisition a, const auto& p) {
    const double gain = target - p.mean, z = gain / p.sd;
    if (a == Acquisition::ei)
      return gain * 0.5 * std::erfc(-z / M_SQRT2) + p.sd * std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
    if (a == Acquisition::poi) return z;  // monotone in the probability of improvement
    return -(p.mean - kKappa * explore * p.sd);
  };
  constexpr std::array<Acquisition, 3> kAll = {Acquisition::ei, Acquisition::poi, Acquisition::lcb};
  std::vector<std::vector<std::size_t>> out(kAll.size());
  if (k == 1) {  // the argmax alone (the first on ties), in one pass
    std::array<double, 3> top;
    top.fill(-std::numeric_limits<double>::infinity());
    std::array<std::size_t, 3> arg{};
    for (std::size_t r = 0; r < pool.size(); ++r) {
      const auto p = gp_->predict(r, st.mean, st.scale, st.hi);
      for (std::size_t i = 0; i < kAll.size(); ++i)
        if (!only || kAll[i] == *only)
          if (const double a = acquisition(kAll[i], p); a > top[i]) top[i] = a, arg[i] = r;
    }
    for (std::size_t i = 0; i < kAll.size(); ++i)
      if (!only || kAll[i] == *only) out[i] = {pool[arg[i]]};
    return out;
  }
  std::array<std::vector<std::pair<double, std::size_t>>, 3> scored;
  for (std::size_t r = 0; r < pool.size(); ++r) {
    const auto p = gp_->predict(r, st.mean, st.scale, st.hi);
    for (std::size_t i = 0; i < kAll.size(); ++i) scored[i].emplace_back(acquisition(kAll[i], p), r);
  }
  for (std::size_t i = 0; i < kAll.size(); ++i) {
    auto& v = scored[i];
    const std::size_t keep = std::min(k, v.size());
    // stable: equal acquisitions keep pool order, so the first is the argmax a single pass finds
    std::stable_sort(v.begin(), v.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
    for (std::size_t j = 0; j < keep; ++j) out[i].push_back(pool[v[j].second]);
  }
  return out;
}

std::optional<std::size_t> Model::best_candidate(Acquisition af, std::vector<std::size_t>* runners_up, std::size_t k) {
  if (fit_ && (fitted_at_ == 0 ||
               (configs_.size() >= kRefitGrowth * static_cast<double>(fitted_at_) && configs_.size() <= kRefitMax)))
    refit_hyper();
  const auto& pool = gp_->pool();
  if (pool.empty()) return std::nullopt;
  const auto st = standing();
  if (!st) return pool.front();

  // The exploration margin shrinks with the mean predictive sd over the pool (Kernel Tuner's
  // contextual variance, relative to the first model step).
  std::vector<std::size_t> hopeless;
  const bool prune = ++steps_ % kPruneEvery == 0 && configs_.size() >= kPruneAfter;
  const double sd = mean_sd(*st, prune ? &hopeless : nullptr);
  if (hopeless.size() < pool.size())  // never the whole pool
    for (std::size_t c : hopeless) gp_->drop(c);
  if (!initial_sd_) initial_sd_ = sd;
  const double explore = *initial_sd_ > 0 ? sd / *initial_sd_ : 0.0;

  const bool ahead = runners_up && k > 0;
  const auto top = ahead ? top_by_acquisition(*st, explore, k + 1) : top_by_acquisition(*st, explore, 1, af);
  const std::size_t pick = top[static_cast<std::size_t>(af)].front();
  if (ahead) {
    // The best k of each acquisition function, merged in turn, this one's first.
    runners_up->clear();
    std::array<std::size_t, 3> order{static_cast<std::size_t>(af), 0, 0};
    for (std::size_t i = 0, j = 1; i < 3; ++i)
      if (i != order[0]) order[j++] = i;
    for (std::size_t j = 0; j <= k; ++j)
      for (std::size_t i : order)
        if (j < top[i].size() && top[i][j] != pick &&
            std::find(runners_up->begin(), runners_up->end(), top[i][j]) == runners_up->end())
          runners_up->push_back(top[i][j]);
  }
  return pick;
}

std::vector<std::size_t> Model::peek(std::size_t k) const {
  std::vector<std::size_t> out;
  if (!gp_ || gp_->pool().empty()) return out;
  const auto st = standing();
  if (!st) return out;
  const double sd = mean_sd(*st, nullptr);
  const double explore = initial_sd_ && *initial_sd_ > 0 ? sd / *initial_sd_ : 1.0;
  const auto top = top_by_acquisition(*st, explore, k);
  for (std::size_t j = 0; j < k; ++j)
    for (const auto& t : top)
      if (j < t.size() && std::find(out.begin(), out.end(), t[j]) == out.end()) out.push_back(t[j]);
  return out;
}

}  // namespace tune::search::bo

// The incremental pool GP against a textbook GP fitted from scratch with Eigen's LLT, the batch
// path against the incremental one, and the maximum-likelihood hyperparameter fit.
#include "search/bayes_gp.h"

#include <gtest/gtest.h>

#include <cmath>

#include "search/bayes_fit.h"
#include "search/search.h"

using namespace tune::search;

namespace {

double matern(double r, gp::Kernel k, double length) {
  const double s = (k == gp::Kernel::matern32 ? std::sqrt(3.0) : std::sqrt(5.0)) * r / length;
  return k == gp::Kernel::matern32 ? (1 + s) * std::exp(-s) : (1 + s + s * s / 3) * std::exp(-s);
}

}  // namespace

TEST(PoolGp, MatchesAGaussianProcessFittedFromScratch) {
  Rng rng(11);
  const int dims = 3, n = 300;
  Eigen::MatrixXd f(dims, n);
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < dims; ++d) f(d, c) = rng.uniform();
  for (gp::Kernel kernel : {gp::Kernel::matern32, gp::Kernel::matern52}) {
    const double length = 0.4, noise = 1e-6;
    gp::PoolGp model(f, kernel, length, noise);
    std::vector<std::size_t> all(n);
    for (int c = 0; c < n; ++c) all[static_cast<std::size_t>(c)] = static_cast<std::size_t>(c);
    model.add_candidates(std::span<const std::size_t>(all).first(200));  // the rest join later
    std::vector<std::size_t> obs;
    std::vector<std::optional<double>> val;
    for (int i = 0; i < 60; ++i) {
      const std::size_t c = model.pool()[rng.below(model.pool().size())];
      const double y = std::sin(6 * f(0, static_cast<long>(c))) + f(1, static_cast<long>(c));
      const std::optional<double> v = i % 7 == 3 ? std::nullopt : std::optional<double>(y);
      model.observe(c, v);
      obs.push_back(c), val.push_back(v);
      if (i == 30) model.add_candidates(std::span<const std::size_t>(all).subspan(200));
    }
    EXPECT_EQ(model.pool().size(), static_cast<std::size_t>(n) - obs.size());

    // From scratch: failures at fail_value, outputs normalised by (mean, scale).
    const double mean = 0.3, scale = 0.8, fail_value = 2.5;
    const auto m = static_cast<long>(obs.size());
    Eigen::MatrixXd k(m, m);
    Eigen::VectorXd y(m);
    for (long i = 0; i < m; ++i) {
      for (long j = 0; j < m; ++j)
        k(i, j) = matern((f.col(static_cast<long>(obs[i])) - f.col(static_cast<long>(obs[j]))).norm(), kernel, length);
      k(i, i) += noise;
      y[i] = (val[i].value_or(fail_value) - mean) / scale;
    }
    const Eigen::LLT<Eigen::MatrixXd> llt(k);
    const Eigen::VectorXd alpha = llt.solve(y);
    double worst = 0;
    for (std::size_t r = 0; r < model.pool().size(); ++r) {
      const auto c = static_cast<long>(model.pool()[r]);
      Eigen::VectorXd ks(m);
      for (long i = 0; i < m; ++i) ks[i] = matern((f.col(c) - f.col(static_cast<long>(obs[i]))).norm(), kernel, length);
      const double mu = ks.dot(alpha);
      const double var = 1.0 - ks.dot(llt.solve(ks));
      const auto p = model.predict(r, mean, scale, fail_value);
      worst = std::max(worst, std::abs(p.mean - mu));
      EXPECT_NEAR(p.mean, mu, 1e-6);
      EXPECT_NEAR(p.sd, std::sqrt(std::max(var, 1e-12)), 1e-5);
    }
    EXPECT_GT(model.pool().size(), 200u);
    EXPECT_LT(worst, 1e-6);
  }
}

TEST(PoolGp, BatchObservationsEqualIncrementalOnes) {
  Rng rng(5);
  const int dims = 4, n = 400;
  Eigen::MatrixXd f(dims, n);
  for (int c = 0; c < n; ++c)
    for (int d = 0; d < dims; ++d) f(d, c) = rng.uniform() * 3;
  gp::PoolGp one(f, gp::Kernel::matern52, 1.0, 1e-4), all(f, gp::Kernel::matern52, 1.0, 1e-4);
  std::vector<std::size_t> pool;
  for (std::size_t c = 0; c < static_cast<std::size_t>(n); ++c) pool.push_back(c);
  one.add_candidates(pool);
  all.add_candidates(pool);
  std::vector<std::size_t> obs;
  std::vector<std::optional<double>> val;
  for (std::size_t c = 0; c < 120; c += 1) {
    obs.push_back(c * 3);
    val.push_back(c % 11 == 0 ? std::nullopt : std::optional<double>(std::cos(f(0, static_cast<long>(c * 3)))));
    one.observe(obs.back(), val.back());
  }
  all.observe_all(obs, val);
  ASSERT_EQ(one.pool(), all.pool());
  for (std::size_t r = 0; r < one.pool().size(); ++r) {
    const auto a = one.predict(r, 0.1, 0.9, 1.5), b = all.predict(r, 0.1, 0.9, 1.5);
    EXPECT_NEAR(a.mean, b.mean, 1e-7);
    EXPECT_NEAR(a.sd, b.sd, 1e-7);
  }
}

TEST(GpFit, RaisesTheLikelihoodAndFindsTheIrrelevantFeature) {
  // y depends on feature 0 only: the fitted lengthscale of feature 1 must grow past feature 0's.
  Rng rng(9);
  const int n = 80;
  Eigen::MatrixXd x(2, n);
  Eigen::VectorXd y(n);
  for (int i = 0; i < n; ++i) {
    x(0, i) = rng.uniform(), x(1, i) = rng.uniform();
    y[i] = std::sin(5 * x(0, i));
  }
  y = (y.array() - y.mean()) / std::sqrt((y.array() - y.mean()).square().mean());
  const gp::Hyper start{{1.0, 1.0}, 1e-4};
  const gp::Hyper h = gp::fit(x, y, gp::Kernel::matern32, start);
  EXPECT_GT(gp::log_likelihood(x, y, gp::Kernel::matern32, h), gp::log_likelihood(x, y, gp::Kernel::matern32, start));
  EXPECT_GT(h.length[1], 4 * h.length[0]);
  for (double l : h.length) {
    EXPECT_GE(l, gp::kMinLength);
    EXPECT_LE(l, gp::kMaxLength);
  }
}

#include "search/bayes_gp.h"

#include <algorithm>
#include <cmath>

namespace tune::search::gp {

PoolGp::PoolGp(const Eigen::MatrixXd& features, Kernel kernel, double lengthscale, double noise)
    : f_(features),
      kernel_(kernel),
      inv_length_(1.0 / lengthscale),
      noise_(noise),
      slot_(static_cast<std::size_t>(features.cols()), kNone),
      seen_(slot_.size(), 0) {}

double PoolGp::kernel(std::size_t a, std::size_t b) const {
  const double r = (f_.col(static_cast<Eigen::Index>(a)) - f_.col(static_cast<Eigen::Index>(b))).norm() * inv_length_;
  if (kernel_ == Kernel::matern32) {
    const double s = std::sqrt(3.0) * r;
    return (1.0 + s) * std::exp(-s);
  }
  const double s = std::sqrt(5.0) * r;
  return (1.0 + s + s * s / 3.0) * std::exp(-s);
}

void PoolGp::grow(std::size_t rows, std::size_t cols) {
  const auto r = static_cast<Eigen::Index>(rows), c = static_cast<Eigen::Index>(cols);
  if (r > v_.rows() || c > v_.cols()) {
    const Eigen::Index nr = r > v_.rows() ? std::max<Eigen::Index>(2 * v_.rows(), r) : v_.rows();
    const Eigen::Index nc = c > v_.cols() ? std::max<Eigen::Index>(2 * v_.cols(), c) : v_.cols();
    v_.conservativeResize(nr, nc);
  }
  if (r > norm2_.size()) {
    const Eigen::Index n = std::max<Eigen::Index>(2 * norm2_.size(), r);
    for (Eigen::VectorXd* v : {&norm2_, &m_ok_, &m_fail_, &m_one_}) v->conservativeResize(n);
  }
  if (c > l_.rows()) {
    const Eigen::Index n = std::max<Eigen::Index>(2 * l_.rows(), std::max<Eigen::Index>(c, 16));
    l_.conservativeResize(n, n);
    for (Eigen::VectorXd* v : {&b_ok_, &b_fail_, &b_one_}) v->conservativeResize(n);
  }
}

void PoolGp::add_candidates(std::span<const std::size_t> configs) {
  const auto n = static_cast<Eigen::Index>(obs_.size());
  const auto ltri = l_.topLeftCorner(n, n).triangularView<Eigen::Lower>();
  Eigen::VectorXd k(n);
  for (std::size_t config : configs) {
    if (slot_[config] != kNone || seen_[config]) continue;
    const std::size_t r = pool_.size();
    grow(r + 1, obs_.size());
    const auto row = static_cast<Eigen::Index>(r);
    if (n > 0) {
      for (Eigen::Index j = 0; j < n; ++j) k[j] = kernel(config, obs_[static_cast<std::size_t>(j)]);
      const Eigen::VectorXd v = ltri.solve(k);
      v_.row(row).head(n) = v.transpose();
      norm2_[row] = v.squaredNorm();
      m_ok_[row] = v.dot(b_ok_.head(n));
      m_fail_[row] = v.dot(b_fail_.head(n));
      m_one_[row] = v.dot(b_one_.head(n));
    } else {
      norm2_[row] = m_ok_[row] = m_fail_[row] = m_one_[row] = 0;
    }
    slot_[config] = r;
    pool_.push_back(config);
  }
}

void PoolGp::remove_row(std::size_t r) {
  const std::size_t last = pool_.size() - 1;
  const auto n = static_cast<Eigen::Index>(obs_.size());
  slot_[pool_[r]] = kNone;
  if (r != last) {
    const auto a = static_cast<Eigen::Index>(r), b = static_cast<Eigen::Index>(last);
    v_.row(a).head(n) = v_.row(b).head(n);
    for (Eigen::VectorXd* v : {&norm2_, &m_ok_, &m_fail_, &m_one_}) (*v)[a] = (*v)[b];
    pool_[r] = pool_[last];
    slot_[pool_[r]] = r;
  }
  pool_.pop_back();
}

void PoolGp::observe(std::size_t config, std::optional<double> value) {
  if (slot_[config] != kNone) remove_row(slot_[config]);
  const auto n = static_cast<Eigen::Index>(obs_.size());
  grow(pool_.size(), obs_.size() + 1);

  // The new row of L: l = L^-1 k(X, x), diagonal sqrt(k(x,x) + noise - |l|^2).
  Eigen::VectorXd k(n);
  for (Eigen::Index j = 0; j < n; ++j) k[j] = kernel(config, obs_[static_cast<std::size_t>(j)]);
  Eigen::VectorXd l = l_.topLeftCorner(n, n).triangularView<Eigen::Lower>().solve(k);
  const double diag = std::sqrt(std::max(1.0 + noise_ - l.squaredNorm(), noise_));
  l_.row(n).head(n) = l.transpose();
  l_(n, n) = diag;
  const double y_ok = value.value_or(0.0), y_fail = value ? 0.0 : 1.0;
  b_ok_[n] = (y_ok - l.dot(b_ok_.head(n))) / diag;
  b_fail_[n] = (y_fail - l.dot(b_fail_.head(n))) / diag;
  b_one_[n] = (1.0 - l.dot(b_one_.head(n))) / diag;

  // Every candidate's new element of v: (k(x_new, x) - v_x . l) / diag.
  const auto p = static_cast<Eigen::Index>(pool_.size());
  Eigen::VectorXd c(p);
  for (Eigen::Index r = 0; r < p; ++r) c[r] = kernel(pool_[static_cast<std::size_t>(r)], config);
  if (n > 0) c.noalias() -= v_.topLeftCorner(p, n) * l;
  c /= diag;
  v_.col(n).head(p) = c;
  norm2_.head(p) += c.cwiseAbs2();
  m_ok_.head(p) += c * b_ok_[n];
  m_fail_.head(p) += c * b_fail_[n];
  m_one_.head(p) += c * b_one_[n];
  obs_.push_back(config);
  value_.push_back(value);
  seen_[config] = 1;
}

void PoolGp::observe_all(std::span<const std::size_t> configs, std::span<const std::optional<double>> values) {
  const auto n = static_cast<Eigen::Index>(configs.size());
  if (!obs_.empty() || n < 2) {
    for (std::size_t i = 0; i < configs.size(); ++i) observe(configs[i], values[i]);
    return;
  }
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    k(j, j) = 1.0 + noise_;
    for (Eigen::Index i = j + 1; i < n; ++i)
      k(i, j) = kernel(configs[static_cast<std::size_t>(i)], configs[static_cast<std::size_t>(j)]);
  }
  const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(k);
  if (llt.info() != Eigen::Success) {  // numerically indefinite: the incremental path clamps
    for (std::size_t i = 0; i < configs.size(); ++i) observe(configs[i], values[i]);
    return;
  }
  for (std::size_t c : configs)
    if (slot_[c] != kNone) remove_row(slot_[c]);
  grow(pool_.size(), configs.size());
  const Eigen::MatrixXd l = llt.matrixL();
  l_.topLeftCorner(n, n) = l;
  Eigen::VectorXd y_ok(n), y_fail(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const auto& v = values[static_cast<std::size_t>(i)];
    y_ok[i] = v.value_or(0.0), y_fail[i] = v ? 0.0 : 1.0;
  }
  const auto tri = l.triangularView<Eigen::Lower>();
  b_ok_.head(n) = tri.solve(y_ok);
  b_fail_.head(n) = tri.solve(y_fail);
  b_one_.head(n) = tri.solve(Eigen::VectorXd::Ones(n));

  const auto p = static_cast<Eigen::Index>(pool_.size());
  auto v = v_.topLeftCorner(p, n);
  for (Eigen::Index j = 0; j < n; ++j)
    for (Eigen::Index r = 0; r < p; ++r)
      v(r, j) = kernel(pool_[static_cast<std::size_t>(r)], configs[static_cast<std::size_t>(j)]);
  l.transpose().triangularView<Eigen::Upper>().solveInPlace<Eigen::OnTheRight>(v);  // V L^T = K(pool, X)
  norm2_.head(p) = v.rowwise().squaredNorm();
  m_ok_.head(p) = v * b_ok_.head(n);
  m_fail_.head(p) = v * b_fail_.head(n);
  m_one_.head(p) = v * b_one_.head(n);
  for (std::size_t i = 0; i < configs.size(); ++i) {
    obs_.push_back(configs[i]);
    value_.push_back(values[i]);
    seen_[configs[i]] = 1;
  }
}

PoolGp::Prediction PoolGp::predict(std::size_t r, double mean, double scale, double fail_value) const {
  const auto i = static_cast<Eigen::Index>(r);
  const double mu = (m_ok_[i] + fail_value * m_fail_[i] - mean * m_one_[i]) / scale;
  return {mu, std::sqrt(std::max(1.0 - norm2_[i], 1e-12))};
}

}  // namespace tune::search::gp

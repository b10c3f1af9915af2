#include "search/bayes_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace tune::search::gp {

double log_likelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Kernel kernel, const Hyper& h) {
  const Eigen::Index n = x.cols(), d = x.rows();
  Eigen::VectorXd inv(d);
  for (Eigen::Index k = 0; k < d; ++k) inv[k] = 1.0 / h.length[static_cast<std::size_t>(k)];
  const Eigen::MatrixXd z = inv.asDiagonal() * x;
  const double root = kernel == Kernel::matern32 ? std::sqrt(3.0) : std::sqrt(5.0);
  Eigen::MatrixXd k(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    k(j, j) = 1.0 + h.noise;
    for (Eigen::Index i = j + 1; i < n; ++i) {
      const double s = root * (z.col(i) - z.col(j)).norm();
      k(i, j) = kernel == Kernel::matern32 ? (1 + s) * std::exp(-s) : (1 + s + s * s / 3) * std::exp(-s);
    }
  }
  const Eigen::LLT<Eigen::MatrixXd, Eigen::Lower> llt(k);
  if (llt.info() != Eigen::Success) return -std::numeric_limits<double>::infinity();
  const Eigen::VectorXd a = llt.matrixL().solve(y);
  const double logdet = 2 * llt.matrixLLT().diagonal().array().log().sum();
  return -0.5 * a.squaredNorm() - 0.5 * logdet - 0.5 * static_cast<double>(n) * std::log(2 * M_PI);
}

Hyper fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Kernel kernel, Hyper start) {
  Hyper h = std::move(start);
  for (double& l : h.length) l = std::clamp(l, kMinLength, kMaxLength);
  h.noise = std::clamp(h.noise, kMinNoise, kMaxNoise);
  double best = log_likelihood(x, y, kernel, h);
  // Tries value*factor and value/factor for one hyperparameter, moving while it improves.
  auto search = [&](double& value, double lo, double hi, double factor) {
    for (double f : {factor, 1 / factor}) {
      bool moved = false;
      while (true) {
        const double keep = value, next = std::clamp(value * f, lo, hi);
        if (next == keep) break;
        value = next;
        const double ll = log_likelihood(x, y, kernel, h);
        if (ll > best + 1e-9) {
          best = ll, moved = true;
        } else {
          value = keep;
          break;
        }
      }
      if (moved) break;
    }
  };
  for (double factor : {4.0, 2.0, std::sqrt(2.0)}) {
    for (int sweep = 0; sweep < 2; ++sweep) {
      for (double& l : h.length) search(l, kMinLength, kMaxLength, factor);
      search(h.noise, kMinNoise, kMaxNoise, factor * factor);
    }
  }
  return h;
}

}  // namespace tune::search::gp

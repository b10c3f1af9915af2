// Hyperparameters of bayes_opt's Gaussian process chosen by maximum marginal likelihood: one
// lengthscale per feature (ARD) and the noise variance, for outputs normalised to unit variance.
#pragma once
#include <Eigen/Dense>
#include <vector>

#include "search/bayes_gp.h"

namespace tune::search::gp {

struct Hyper {
  std::vector<double> length;  // per feature
  double noise = 1e-6;         // variance added to the diagonal, in normalised units
};

// log p(y | x, hyper) of a zero-mean GP with a unit-amplitude Matern kernel; x: one column per point.
// -infinity when the kernel matrix is not positive definite.
double log_likelihood(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Kernel kernel, const Hyper& h);

// Coordinate search on a log scale from `start`: each lengthscale (within [kMinLength, kMaxLength])
// and the noise (within [kMinNoise, kMaxNoise]) in turn, by factors of 2 then sqrt(2), while the
// likelihood improves. Deterministic; O(n^3) per likelihood, so callers pass a few hundred points.
Hyper fit(const Eigen::MatrixXd& x, const Eigen::VectorXd& y, Kernel kernel, Hyper start);

constexpr double kMinLength = 0.05, kMaxLength = 20.0, kMinNoise = 1e-6, kMaxNoise = 0.5;

}  // namespace tune::search::gp

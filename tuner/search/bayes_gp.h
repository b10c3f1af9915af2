// The Gaussian-process model behind bayes_opt: a zero-mean GP with a Matern 3/2 or 5/2 kernel of
// unit amplitude over feature vectors (normalised value indices), fitted to normalised outputs,
// predicting over a pool of candidate configurations.
//
// Everything is incremental. With L the Cholesky factor of K(X,X) + noise*I, each candidate x keeps
// v_x = L^-1 k(X, x) (one row of `v_`), its squared norm, and v_x . L^-1 y for the three output
// vectors y = ok values, failure indicator, ones. Adding observation n appends one row to L (a
// triangular solve, O(n^2)) and one element to every v_x (O(n) per candidate), so an observation
// costs O(n^2 + pool*n) instead of a refit's O(n^3 + pool*n^2); the posterior of a candidate for any
// normalisation (y - mean)/scale, with failures counted at any value, is then O(1):
//   mean = (v.b_ok + fail_value*v.b_fail - mean*v.b_one) / scale,  var = 1 - |v|^2.
#pragma once
#include <Eigen/Dense>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace tune::search::gp {

enum class Kernel { matern32, matern52 };

class PoolGp {
 public:
  // `features`: one column per configuration of the space (kept by reference).
  PoolGp(const Eigen::MatrixXd& features, Kernel kernel, double lengthscale, double noise);

  // Adds configurations to the candidate pool (those already in it or observed are skipped).
  void add_candidates(std::span<const std::size_t> configs);
  // Records an observation: `value` is the (transformed) objective, nullopt a failure. The
  // configuration leaves the pool.
  void observe(std::size_t config, std::optional<double> value);
  // The same for many observations at once into a model that has none yet: one Cholesky
  // factorisation and one blocked triangular solve for the pool (O(n^3 + pool*n^2) in BLAS-3
  // kernels instead of n memory-bound incremental steps).
  void observe_all(std::span<const std::size_t> configs, std::span<const std::optional<double>> values);

  std::size_t observations() const { return obs_.size(); }
  const std::vector<std::size_t>& observed() const { return obs_; }
  const std::vector<std::optional<double>>& values() const { return value_; }
  const std::vector<std::size_t>& pool() const { return pool_; }
  // Takes a configuration out of the pool (it can still be observed).
  void drop(std::size_t config) {
    if (slot_[config] != kNone) remove_row(slot_[config]);
  }

  // Posterior of pool entry r for outputs normalised as (y - mean) / scale with failures at
  // `fail_value` (in output units): mean and standard deviation, in normalised units.
  struct Prediction {
    double mean, sd;
  };
  Prediction predict(std::size_t r, double mean, double scale, double fail_value) const;

  double kernel(std::size_t a, std::size_t b) const;

 private:
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
  void grow(std::size_t rows, std::size_t cols);
  void remove_row(std::size_t r);

  const Eigen::MatrixXd& f_;
  Kernel kernel_;
  double inv_length_;
  double noise_;
  std::vector<std::size_t> obs_;
  std::vector<std::optional<double>> value_;
  Eigen::MatrixXd l_;                              // lower Cholesky factor, observations() used
  Eigen::VectorXd b_ok_, b_fail_, b_one_;          // L^-1 times the three output vectors
  std::vector<std::size_t> pool_;                  // candidate configurations
  std::vector<std::size_t> slot_;                  // per configuration: its pool row, or kNone
  std::vector<char> seen_;                         // per configuration: observed
  Eigen::MatrixXd v_;                              // pool rows x observation columns (capacity-sized)
  Eigen::VectorXd norm2_, m_ok_, m_fail_, m_one_;  // per pool row
};

}  // namespace tune::search::gp

// bayes_opt's model: the objective transform (log) and normalisation around gp::PoolGp, the
// hyperparameter fits and rebuilds, the candidate pool and its pruning, and the acquisition
// functions evaluated over the pool.
#pragma once
#include <optional>
#include <vector>

#include "search/bayes_fit.h"
#include "search/bayes_gp.h"
#include "search/bayes_opt_parts.h"
#include "space/space.h"

namespace tune::search::bo {

class Model {
 public:
  // Features: the value index of every parameter that has more than one value, scaled to [0, 1].
  // A fixed lengthscale (covariancelengthscale given) is read in Kernel Tuner's units (one index
  // step = 1 / the largest value count) and never changes; otherwise the lengthscales (one per
  // parameter) and the noise are fitted by maximum likelihood as the observations grow.
  Model(const space::Space& space, const Settings& settings);
  // Adds configurations to the candidates the acquisition functions choose from.
  void add_candidates(const std::vector<std::size_t>& configs);

  // Records a result (nullopt = failed). Objectives are modelled as their logarithm while every
  // objective seen is positive; the first one that is not switches the model to the raw values.
  void observe(std::size_t config, std::optional<double> objective);
  std::size_t ok_count() const { return ok_; }
  // The median successful objective (raw), for the portfolio's bookkeeping of failures.
  double median_objective() const;

  // The pool candidate that maximises the acquisition function; nullopt when the pool is empty.
  // With `runners_up`, also the next `k` candidates by acquisition, best first (for compile-ahead
  // hints; the choice is the same with or without them).
  std::optional<std::size_t> best_candidate(Acquisition af, std::vector<std::size_t>* runners_up = nullptr,
                                            std::size_t k = 0);
  // For compile-ahead hints: the k best candidates of each acquisition function under the model as
  // it stands, merged in turn; no refit, no pruning, no step counted (the search is unchanged).
  std::vector<std::size_t> peek(std::size_t k) const;
  // Observed configurations, best objective first (failures left out).
  std::vector<std::size_t> ranked() const;

 private:
  struct Standing {  // the normalisation of the observed values
    double mean = 0, scale = 1, hi = 0, fbest = 0;
  };
  std::optional<Standing> standing() const;
  // The mean predictive sd over the pool; with `hopeless`, also the candidates to prune.
  double mean_sd(const Standing& st, std::vector<std::size_t>* hopeless) const;
  // Per acquisition function (ei, poi, lcb), its k best pool candidates, best first (k = 1: the
  // argmax, the first on ties; `only`: that function alone, the others left empty).
  std::vector<std::vector<std::size_t>> top_by_acquisition(const Standing& st, double explore, std::size_t k,
                                                           std::optional<Acquisition> only = std::nullopt) const;
  std::optional<double> transform(std::optional<double> objective) const;
  // The observations the model keeps: all of them up to kMaxModel, else the best and the latest.
  std::vector<std::size_t> kept() const;
  // Indices of the successful observations among `indices`, best objective first (stable).
  std::vector<std::size_t> by_objective(std::vector<std::size_t> indices) const;
  void rebuild(const std::vector<std::size_t>& keep);
  void refit_hyper();

  Eigen::MatrixXd base_, scaled_;
  gp::Kernel kernel_;
  bool fit_;
  gp::Hyper hyper_;
  std::size_t fitted_at_ = 0;  // observations at the last hyperparameter fit
  std::optional<gp::PoolGp> gp_;
  std::vector<char> candidate_, observed_;         // per configuration
  std::vector<std::size_t> configs_;               // every observation, in order
  std::vector<std::optional<double>> objectives_;  // raw
  std::size_t ok_ = 0;
  bool log_ = true;
  std::optional<double> initial_sd_;  // mean predictive sd over the pool at the first model step
  std::size_t steps_ = 0;             // best_candidate calls
};

}  // namespace tune::search::bo

// The parts of bayes_opt (bayes_opt.cpp): its options, the Latin hypercube initial sample, the
// model (objective transform and normalisation around gp::PoolGp) with the acquisition functions,
// and the acquisition-function portfolio of the multi methods.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

#include "search/bayes_fit.h"
#include "search/bayes_gp.h"
#include "search/search.h"

namespace tune::search::bo {

enum class Method { ei, poi, lcb, multi, multi_advanced };
enum class Acquisition { ei = 0, poi = 1, lcb = 2 };

struct Settings {
  gp::Kernel kernel = gp::Kernel::matern32;
  double lengthscale = 1.5;
  Method method = Method::multi_advanced;
  bool lhs = true;
  std::size_t popsize = 20;
  std::size_t maxiter = 0;
  bool fit = true;  // lengthscales fitted (no covariancelengthscale given)
};
// Reads bayes_opt's options; InputError naming the option on a bad value.
Settings read_settings(const Context& ctx);

// `n` points of a maximin Latin hypercube over the value indices (the best of 100 random designs),
// each snapped to the nearest valid configuration, duplicates removed, in farthest-first order
// (each point the farthest from those before it), so that every prefix is spread out too.
std::vector<std::size_t> latin_hypercube(const space::Space& space, std::size_t n, Rng& rng);

// How many initial samples to take, judged after each one: `popsize`, or a twentieth of the
// evaluations the budget allows (max_fevals, or the time limit over the mean cost so far) when
// that is fewer, but at least kMinInitial. A short budget thus leaves most of itself to the model.
std::size_t initial_sample_size(const Context& ctx, std::size_t popsize);
constexpr std::size_t kMinInitial = 5;

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
  std::size_t observations() const { return gp_->observations(); }
  std::size_t ok_count() const { return ok_; }
  // The median successful objective (raw), for the portfolio's bookkeeping of failures.
  double median_objective() const;
  const gp::Hyper& hyper() const { return hyper_; }

  // The pool candidate that maximises the acquisition function; nullopt when the pool is empty.
  // With `only`: the best of those configurations that are in the pool (nullopt when none is).
  std::optional<std::size_t> best_candidate(Acquisition af, const std::vector<std::size_t>* only = nullptr);
  // Observed configurations, best objective first (failures left out).
  std::vector<std::size_t> ranked() const;

 private:
  std::optional<double> transform(std::optional<double> objective) const;
  // The observations the model keeps: all of them up to kMaxModel, else the best and the latest.
  std::vector<std::size_t> kept() const;
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

// Which acquisition function proposes the next configuration.
class Portfolio {
 public:
  explicit Portfolio(Method method);
  Acquisition next();
  // The result of the configuration `af` proposed (nullopt = failed).
  void record(Acquisition af, std::optional<double> objective, const Model& model);

 private:
  void end_of_round();
  Method method_;
  std::vector<Acquisition> active_;
  std::size_t turn_ = 0;
  std::array<std::vector<double>, 3> results_;
  std::array<std::size_t, 3> worse_{}, better_{};
};

}  // namespace tune::search::bo

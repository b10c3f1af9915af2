// The parts of bayes_opt (bayes_opt.cpp) around its model (bayes_model.h): the options, the Latin
// hypercube initial sample and its size, and the acquisition-function portfolio of the multi
// methods.
#pragma once
#include <array>
#include <optional>
#include <string>
#include <vector>

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
// The evaluations the budget allows in all (max_fevals, or the time limit over the mean time per
// evaluation so far); infinity without a budget.
double budget_evaluations(const Context& ctx);
constexpr std::size_t kMinInitial = 5;

// Which acquisition function proposes the next configuration.
class Portfolio {
 public:
  explicit Portfolio(Method method);
  Acquisition next();
  // The result of the configuration `af` proposed (a failure counted as the caller chooses).
  void record(Acquisition af, double objective);

 private:
  void end_of_round();
  Method method_;
  std::vector<Acquisition> active_;
  std::size_t turn_ = 0;
  std::array<std::vector<double>, 3> results_;
  std::array<std::size_t, 3> worse_{}, better_{};
};

}  // namespace tune::search::bo

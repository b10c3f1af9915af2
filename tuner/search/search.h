// Search strategies: which valid configurations of a space to evaluate, in what order, within a
// budget. A strategy is a function of a Context: it asks the Context to evaluate configurations
// (indices into the constructed space::Space, so only valid configurations are ever evaluated) and
// the Context remembers every result, answers revisits for free, and ends the search (by throwing
// Stop out of evaluate()) when the budget is spent or every configuration has been evaluated.
// Names and option names follow Kernel Tuner's where they exist (strategies.h lists them).
#pragma once
#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "space/space.h"

namespace tune::search {

// A seeded 64-bit generator whose output is the same on every platform (splitmix64).
class Rng {
 public:
  explicit Rng(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next();
  std::uint64_t below(std::uint64_t n);  // uniform in [0, n), n > 0, without modulo bias
  double uniform();                      // uniform in [0, 1), 53 random bits
  double normal();                       // standard normal (Box-Muller, no cached second value)

 private:
  std::uint64_t state_;
};

// The cost function behind a search: a GPU run, a replayed cache, or an in-memory table.
class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // The objective of a valid configuration (lower is better), or nullopt when it failed
  // (compile error, resource limit, runtime error, verification failure). Called once per
  // configuration by Context.
  virtual std::optional<double> evaluate(std::size_t config) = 0;
  // The clock the time budget counts: simulated seconds on replay, wall seconds on a GPU.
  virtual double elapsed_s() const = 0;
  // A hint that these unvisited configurations may be asked for soon: a GPU run compiles them
  // ahead, in parallel, while it measures others. It never changes what evaluate() returns or what
  // the search does; replays ignore it.
  virtual void prefetch(const std::vector<std::size_t>& configs) { (void)configs; }
  // Whether prefetch() does anything (strategies skip working out hints otherwise).
  virtual bool wants_prefetch() const { return false; }
  // Whether evaluating `config` now would begin at once: on a GPU, its kernel compiled (or its
  // compile failed) rather than still compiling. A strategy may take a nearly-as-promising
  // configuration that is ready over one that is not (bayes_opt's model steps). Replays: always.
  virtual bool ready(std::size_t config) {
    (void)config;
    return true;
  }
  // How many configurations it evaluates at once (K GPUs, or a replay that simulates K): the
  // strategies then propose batches of this many (lanes.h). 1: one at a time.
  virtual std::size_t parallelism() const { return 1; }
  // Evaluates distinct configurations, not yet evaluated, at once; results in the same order. The
  // default evaluates them one after another.
  virtual std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) {
    std::vector<std::optional<double>> out;
    out.reserve(configs.size());
    for (std::size_t c : configs) out.push_back(evaluate(c));
    return out;
  }
};

// A batch on `lanes` simulated GPUs: each configuration (its cost, in order) goes to the lane free
// first; `finish` is each one's finish from the batch's start, `makespan` the batch's length.
struct LaneSchedule {
  std::vector<double> finish;
  double makespan = 0;
};
LaneSchedule schedule_lanes(const std::vector<double>& costs, std::size_t lanes);

// An Evaluator over a table of known results with a simulated clock: each first visit advances the
// clock by the configuration's cost (Kernel Tuner's simulation mode). For replays and tests.
// With `lanes` > 1 it simulates that many GPUs: a batch costs its schedule_lanes() makespan (every
// evaluation still counts once against a budget of evaluations).
class TableEvaluator : public Evaluator {
 public:
  TableEvaluator(std::vector<std::optional<double>> objective, std::vector<double> cost_s, std::size_t lanes = 1)
      : objective_(std::move(objective)), cost_s_(std::move(cost_s)), lanes_(lanes < 1 ? 1 : lanes) {}
  std::optional<double> evaluate(std::size_t config) override {
    clock_s_ += cost_s_.at(config);
    return objective_.at(config);
  }
  std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) override;
  double elapsed_s() const override { return clock_s_; }
  std::size_t parallelism() const override { return lanes_; }

 private:
  std::vector<std::optional<double>> objective_;
  std::vector<double> cost_s_;
  std::size_t lanes_;
  double clock_s_ = 0;
};

struct Budget {
  std::optional<std::size_t> max_fevals;  // evaluations of distinct configurations
  std::optional<double> time_limit_s;     // on Evaluator::elapsed_s()
};

// --strategy-option key=value, as given.
using StrategyOptions = std::map<std::string, std::string>;

// Thrown by Context::evaluate when the search must end; run() catches it.
struct Stop {};

// hamming: one parameter changed. adjacent: at most one value step in every parameter. mirror: the
// values of x/y parameter pairs exchanged (names equal but for a final `x` / `y`, as block_size_x
// and block_size_y), for every non-empty subset of the pairs: a kernel's transposed shape, often
// as fast as the shape itself and several parameters away from it (GEMM: block 16 x 8 with tile
// 8 x 16 against block 8 x 16 with tile 16 x 8, four parameters apart). Where the whole mirror is
// not valid, its valid configurations one other parameter away stand for it (first).
enum class Neighbourhood { hamming, adjacent, mirror };

class Context {
 public:
  // `starts`: configurations to begin from (the best of neighbouring sizes), may be empty.
  Context(const space::Space& space, Evaluator& evaluator, Budget budget, std::uint64_t seed,
          StrategyOptions options = {}, std::vector<std::size_t> starts = {});

  const space::Space& space() const { return space_; }
  std::size_t size() const { return space_.size(); }
  Rng& rng() { return rng_; }
  const std::vector<std::size_t>& starts() const { return starts_; }
  const Budget& budget() const { return budget_; }
  double elapsed_s() const { return evaluator_.elapsed_s(); }  // on the budget's clock

  // The objective of `config` (nullopt = failed). The first visit goes to the Evaluator and
  // counts as an evaluation; a revisit returns the remembered result and costs nothing. Throws
  // Stop before a first visit when the budget is spent, after the evaluation that visits the last
  // unvisited configuration, and when a strategy only revisits for too long.
  std::optional<double> evaluate(std::size_t config);
  // How many configurations the evaluator takes at once (Evaluator::parallelism).
  std::size_t batch_size() const { return std::max<std::size_t>(1, evaluator_.parallelism()); }
  // Several configurations at once (Evaluator::evaluate_batch), results in order: revisits are
  // answered from memory, a configuration given twice is evaluated once, and first visits are taken
  // in order while the budget lasts. Throws Stop before the batch when nothing can be evaluated (the
  // budget spent, every configuration visited) and after it when a first visit was left out, so
  // every evaluation of the batch is recorded first. With one configuration it is evaluate().
  std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs);
  // Passes the unvisited ones of `configs` (at most kHint of them, and at most twice the
  // evaluations a max_fevals budget has left, in order) to Evaluator::prefetch. A strategy calls it
  // with what it will likely evaluate next.
  void hint(const std::vector<std::size_t>& configs);
  bool wants_hints() const { return evaluator_.wants_prefetch(); }
  bool ready(std::size_t config) { return evaluator_.ready(config); }  // Evaluator::ready
  static constexpr std::size_t kHint = 32;
  // The objective as a number for comparisons: failures are +infinity.
  double cost(std::size_t config) { return evaluate(config).value_or(kFailed); }
  static constexpr double kFailed = 1e300;

  bool visited(std::size_t config) const { return results_[config].has_value(); }
  // The remembered result of `config`: nullopt when unvisited, else its objective (nullopt = failed).
  const std::optional<std::optional<double>>& result(std::size_t config) const { return results_.at(config); }
  const StrategyOptions& options() const { return options_; }
  // Remembers a result evaluated elsewhere (another lane of the same search, lanes.h): a later
  // evaluate() of it is a free revisit, and it is not counted as an evaluation here.
  void learn(std::size_t config, std::optional<double> objective);
  std::size_t evaluations() const { return evaluations_; }
  std::optional<std::size_t> best() const { return best_; }  // best successful so far
  double best_objective() const { return best_objective_; }  // kFailed when none

  // A uniformly random valid configuration; one not yet visited (throws Stop when none is left).
  std::size_t random_config();
  std::size_t random_unvisited();

  // Valid configurations that differ from `config` in exactly one parameter (hamming), by at most
  // one step of value index in every parameter (adjacent, excluding config itself), or by
  // exchanged x/y values (mirror; a value the other parameter does not take leaves the pair out).
  std::vector<std::size_t> neighbours(std::size_t config, Neighbourhood kind) const;
  // The same, without the visited ones (in the same order).
  std::vector<std::size_t> unvisited_neighbours(std::size_t config, Neighbourhood kind) const;

  // Strategy options with defaults; a value that does not parse throws InputError naming the key.
  double option(const std::string& key, double fallback) const;
  long option(const std::string& key, long fallback) const;
  std::string option(const std::string& key, const std::string& fallback) const;

 private:
  const space::Space& space_;
  Evaluator& evaluator_;
  Budget budget_;
  Rng rng_;
  StrategyOptions options_;
  std::vector<std::size_t> starts_;
  std::vector<std::pair<std::size_t, std::size_t>> mirror_pairs_;  // x/y parameter pairs (mirror)
  static constexpr std::size_t kMirrorPairs = 4;                   // the first four: 15 subsets
  std::vector<std::optional<std::optional<double>>> results_;      // per config: unvisited, or its result
  std::vector<std::size_t> unvisited_;                             // swap-remove pool for random_unvisited
  std::vector<std::size_t> slot_;                                  // position of each config in unvisited_
  std::size_t evaluations_ = 0;
  std::size_t idle_revisits_ = 0;
  std::optional<std::size_t> best_;
  double best_objective_ = kFailed;
  bool budget_left() const;
  void record(std::size_t config, std::optional<double> r);
  void remember(std::size_t config, std::optional<double> r);
  void check_index(std::size_t config) const;  // throws Error when out of range
  // Counts `n` revisits; true once a strategy has only revisited for too long (it has converged).
  bool idle(std::size_t n);
};

// A strategy: its name, the option keys it reads (Kernel Tuner's names), and its body.
struct Strategy {
  std::string name;
  std::vector<std::string> options;
  void (*body)(Context&);
  std::string summary;
  // Whether the body proposes batches itself (Context::evaluate_batch of Context::batch_size()
  // configurations); the others run as lanes when the evaluator takes several at once (lanes.h).
  bool batches = false;
};

// Every strategy, in the order `tune --help` lists them.
const std::vector<Strategy>& strategies();
std::vector<std::string> strategy_names();

// Throws InputError for an unknown strategy (listing the known ones) or an option key the
// strategy does not read (listing those it does).
const Strategy& find_strategy(const std::string& name, const StrategyOptions& options = {});
inline void check_strategy(const std::string& name) { find_strategy(name); }
// find_strategy, then the option values: the strategy starts on `space` with a budget of no
// evaluation, so a value it cannot read (popsize=abc) throws its InputError before a run begins.
void check_strategy(const std::string& name, const StrategyOptions& options, const space::Space& space);

// Parses "key=value" items of --strategy-option; throws InputError on a malformed item.
StrategyOptions parse_options(const std::vector<std::string>& items);

// Runs the strategy until it returns, the budget is spent, or every configuration has been
// evaluated. Returns the number of evaluations.
std::size_t run(const std::string& name, Context& ctx);

}  // namespace tune::search

// check_strategy: a strategy's name and options checked against a space before anything runs, by a
// dry run that ends before its first evaluation (search.h).
#include <optional>

#include "search/search.h"

namespace tune::search {

namespace {

// An evaluator never asked: the dry run's budget ends the search before its first evaluation.
class NoEvaluator : public Evaluator {
 public:
  std::optional<double> evaluate(std::size_t) override { throw Stop{}; }
  double elapsed_s() const override { return 0; }
};

}  // namespace

void check_strategy(const std::string& name, const StrategyOptions& options, const space::Space& space) {
  find_strategy(name, options);
  if (options.empty() || space.size() == 0) return;
  NoEvaluator none;
  Budget nothing;
  nothing.max_fevals = 0;
  Context dry(space, none, nothing, 1, options);
  run(name, dry);
}

}  // namespace tune::search

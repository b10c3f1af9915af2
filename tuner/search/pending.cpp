// Placeholders while the strategies are being written; each moves to its own file.
#include "common/error.h"
#include "search/strategies.h"

namespace tune::search::strategy {
#define TUNE_PENDING(name) \
  void name(Context&) { throw Error("strategy " #name " is not built yet"); }
TUNE_PENDING(diff_evo)
TUNE_PENDING(pso)
TUNE_PENDING(firefly_algorithm)
TUNE_PENDING(dual_annealing)
TUNE_PENDING(bayes_opt)
}  // namespace tune::search::strategy

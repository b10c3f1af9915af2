// Batches for strategies that evaluate one configuration at a time, when the evaluator takes
// several at once (Evaluator::parallelism: K GPUs, or a replay simulating K): the strategy runs as
// K lanes in lockstep. Lane i is the strategy itself with its own generator (seeded, in lane order,
// from the search's), its own memory and a 1/K share of the budget's evaluations (so a strategy
// that plans by its budget, such as bayes_opt's initial sample and endgame, plans for its share);
// a batch is the next first visit of every lane still searching, evaluated at once
// (Context::evaluate_batch), and its results join the search's memory: a lane that asks for a
// configuration any lane has evaluated gets its result at once, free. The search's budget counts
// every evaluation of every lane and ends every lane. For a seed the batches and the result are the
// same from run to run, whatever the threads' timing: a batch is formed only once every lane waits
// or has ended, in lane order.
// brute_force and random_sample propose their own batches (Strategy::batches).
#pragma once
#include "search/search.h"

namespace tune::search {

// Runs `strategy` as ctx.batch_size() lanes over `ctx` until every lane ends (the budget, its own
// end, or Stop). An error thrown by a lane (for example a bad strategy option) is rethrown here,
// the first in lane order, once every lane has ended.
void run_lanes(const Strategy& strategy, Context& ctx);

}  // namespace tune::search

// The strategy bodies behind search::strategies(), one file each (search/<name>.cpp).
#pragma once
#include "search/search.h"

namespace tune::search::strategy {

void brute_force(Context& ctx);    // declaration order (sorted rows of the space)
void random_sample(Context& ctx);  // uniform without replacement
void simulated_annealing(Context& ctx);
void genetic_algorithm(Context& ctx);
void diff_evo(Context& ctx);
void pso(Context& ctx);
void greedy_ils(Context& ctx);
void greedy_mls(Context& ctx);
void firefly_algorithm(Context& ctx);
void dual_annealing(Context& ctx);
void bayes_opt(Context& ctx);

}  // namespace tune::search::strategy

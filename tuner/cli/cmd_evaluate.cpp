// tune evaluate: score search strategies on brute-forced caches by the FGCS 2024 methodology
// (evaluate/evaluate.h). Nothing is stored.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#include "decision/objective.h"
#ifdef TUNE_HAVE_MPI
#include "mpi/ranks.h"
#endif
#include "common/error.h"
#include "common/output_file.h"
#include "compile/source.h"
#include "evaluate/evaluate.h"
#include "evaluate/select.h"
#include "spec/spec.h"

namespace tune::cli {

namespace {

std::vector<std::string> strings(const po::variables_map& vm, const char* name) {
  return vm.count(name) ? vm[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}

}  // namespace

int cmd_evaluate(const Args& args) {
  po::options_description opts = options_for("tune evaluate options");
  opts.add_options()("space", po::value<std::vector<std::string>>()->composing()->multitoken()->value_name("SPEC..."),
                     "T1 search-space file(s); each cache is paired with the first whose parameters it has")(
      "replay", po::value<std::vector<std::string>>()->composing()->multitoken()->value_name("CACHE..."),
      "brute-forced Kernel Tuner cache(s) (.json or .json.gz) of those spaces")(
      "strategy", po::value<std::vector<std::string>>()->composing()->multitoken()->value_name("NAMES"),
      "strategies to score: names, comma lists, or all")(
      "strategy-option", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
      "key=value for every listed strategy that reads the key (repeatable)")(
      "repeats", po::value<long>()->default_value(50)->value_name("N"), "runs per strategy and cache")(
      "seed", po::value<std::uint64_t>()->default_value(1)->value_name("N"), "repeat r runs with seed + r")(
      "threads", po::value<unsigned>()->default_value(0)->value_name("N"),
      "worker threads (0: one per hardware thread)")(
      "exact-baseline", po::bool_switch(),
      "baseline at the exact expected rank (default: the reference implementation's index, one rank optimistic)")(
      "curves", po::value<std::string>()->value_name("FILE"),
      "write the curves (time, random, strategy, score) as CSV")(
      "resamples", po::value<long>()->default_value(200)->value_name("N"),
      "bootstrap resamples of the repeats, for the 95% intervals and the stability of the choice (0: none)")(
      "leave-one-out", po::bool_switch(),
      "choose a default strategy by leaving one cache out at a time (select.h's rule) and score each choice on "
      "the cache it did not see")("json", po::bool_switch(), "print one JSON object")(
      "objective", po::value<std::string>()->default_value("time")->value_name("time|energy|edp"),
      "what the strategies minimise: the caches' time, nvml_energy (J per launch) or their product");
  po::variables_map vm;
  if (!parse("evaluate",
             "tune evaluate --space SPEC... --replay CACHE... --strategy NAMES|all [--strategy-option KEY=VALUE]... "
             "[--repeats N] [--seed N] [--threads N] [--exact-baseline] [--resamples N] [--leave-one-out] "
             "[--curves FILE] [--objective time|energy|edp] [--json]",
             args, opts, vm)) {
    return 0;
  }
  const long repeats = vm["repeats"].as<long>();
  // Bounded: each repeat holds its whole search history in memory (10^9 ran out of memory).
  constexpr long kMaxRepeats = 10000;
  if (repeats < 1 || repeats > kMaxRepeats)
    throw InputError("tune evaluate: --repeats must be from 1 to " + std::to_string(kMaxRepeats) + ", not " +
                     std::to_string(repeats));
  if (const unsigned threads = vm["threads"].as<unsigned>(); threads > 1024)
    throw InputError("tune evaluate: --threads must be at most 1024, not " + std::to_string(threads));
  const long resamples = vm["resamples"].as<long>();
  if (resamples < 0 || resamples > kMaxRepeats)
    throw InputError("tune evaluate: --resamples must be from 0 to " + std::to_string(kMaxRepeats) + ", not " +
                     std::to_string(resamples));
  // Strategies first: a misspelt name fails before any cache is read.
  auto strategies = evaluate::strategy_specs(strings(vm, "strategy"), strings(vm, "strategy-option"));
  std::vector<std::filesystem::path> inputs;  // never the curves' file
  for (const char* key : {"space", "replay"})
    for (const std::string& f : strings(vm, key)) inputs.emplace_back(f);
  for (const std::string& f : strings(vm, "space"))  // and the kernel files they name
    for (auto& k : compile::kernel_files(spec::load(f).kernel.file_path)) inputs.push_back(std::move(k));
  if (vm.count("curves")) check_output_path(vm["curves"].as<std::string>(), inputs);
  const decision::Objective objective = decision::parse_objective(vm["objective"].as<std::string>());
  auto problems = evaluate::load_problems(strings(vm, "space"), strings(vm, "replay"), objective);

  evaluate::Options o;
  o.repeats = static_cast<std::size_t>(repeats);
  o.seed = vm["seed"].as<std::uint64_t>();
  o.threads = vm["threads"].as<unsigned>();
  o.settings.exact_rank = vm["exact-baseline"].as<bool>();
  o.resamples = static_cast<std::size_t>(resamples);
  const bool loo = vm["leave-one-out"].as<bool>();
  if (loo && problems.size() < 2)
    throw InputError("tune evaluate --leave-one-out: needs at least two caches (--replay)");
#ifdef TUNE_HAVE_MPI
  std::optional<evaluate::Result> ranked;
  if (const mpi::World* w = mpi::world(); w != nullptr && w->size() > 1) {  // mpirun -n K: one cell per item
    ranked = mpi::evaluate(*w, problems, strategies, o);
    if (!ranked) return 0;  // a rank other than 0: rank 0 reports
  }
  const evaluate::Result r = ranked ? std::move(*ranked) : evaluate::evaluate(problems, strategies, o);
#else
  const evaluate::Result r = evaluate::evaluate(problems, strategies, o);
#endif

  const bool json = vm["json"].as<bool>();
  if (vm.count("curves")) {
    const std::string path = vm["curves"].as<std::string>();
    if (json)
      write_file_atomically(path, evaluate::curves_csv(r), inputs);
    else
      write_output(path, evaluate::curves_csv(r), inputs);
  }
  if (json) {
    auto j = evaluate::to_json(r);
    j["summary"] = evaluate::summary_json(r);
    if (loo) j["leave_one_out"] = evaluate::selection_json(r, evaluate::leave_one_out(r));
    std::cout << j.dump() << "\n";
  } else {
    std::cout << evaluate::format_table(r) << evaluate::format_summary(r);
    if (loo) std::cout << evaluate::format_selection(r, evaluate::leave_one_out(r));
  }
  return 0;
}

}  // namespace tune::cli

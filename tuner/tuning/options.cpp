// What follows from a run's options before anything runs: validate() (the spec, its Tune object
// and the policy's overrides, the space, sizes, captures and database), the strategy, the run
// record's fields, the search policy, the search seed.
#include "tuning/options.h"
#include "log/log.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

#include "common/bounded_read.h"
#include "common/error.h"
#include "run/isolate.h"
#include "search/search.h"
#include "space/space.h"
#include "spec/bind.h"
#include "spec/spec.h"
#include "store/store.h"
#include "tuning/capture_args.h"
#include "tuning/size_search.h"

namespace tune::tuning {

namespace fs = std::filesystem;

namespace {

// A run must be able to store what it measures: check before any GPU time is spent, and without
// writing anything (Store::probe: corrupt? foreign? newer schema? An empty or older file is fine,
// the run initialises or upgrades it).
void check_database_writable(const std::string& db) {
  std::error_code ec;
  fs::path path(db);
  if (fs::exists(path, ec)) {
    store::Store::probe(db);
    if (::access(db.c_str(), W_OK) != 0) throw InputError(db + ": the database is not writable");
    return;
  }
  fs::path dir = path.has_parent_path() ? path.parent_path() : fs::path(".");
  while (!dir.empty() && !fs::exists(dir, ec))
    dir = dir.has_parent_path() && dir.parent_path() != dir ? dir.parent_path() : fs::path();
  if (dir.empty()) dir = ".";
  if (!fs::is_directory(dir, ec))
    throw InputError(db + ": cannot create the database: " + dir.string() + " is not a directory");
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(db + ": cannot create the database: " + dir.string() + " is not writable");
}

}  // namespace

void apply_policy(const std::vector<std::string>& overrides, decision::Policy& policy) {
  for (const auto& o : overrides) {
    try {
      policy.assign(o);
    } catch (const InputError& e) {
      throw InputError("bad --policy " + o + ": " + e.what());
    }
  }
  try {
    policy.check();
  } catch (const InputError& e) {
    throw InputError("bad --policy: " + std::string(e.what()));
  }
}

store::RunInfo run_info(const Options& o, const spec::Spec& spec) {
  store::RunInfo info;
  std::error_code ec;
  info.spec_path = fs::absolute(o.space, ec).lexically_normal().string();  // `tune header` finds it from anywhere
  if (ec) info.spec_path = o.space;
  info.spec_hash = spec.content_hash;
  info.kernel = spec.kernel.name;
  info.command_line = o.command_line;
  info.strategy = o.strategy;
  info.strategy_options = nlohmann::json(o.strategy_options).dump();
  nlohmann::json budget = nlohmann::json::object();
  if (o.max_fevals) budget["max_fevals"] = *o.max_fevals;
  if (o.time_limit_s) budget["time_limit_s"] = *o.time_limit_s;
  info.budget = budget.dump();
  info.notes = nlohmann::json{{"seed", o.seed}, {"seed_drawn", o.seed_drawn}}.dump();
  return info;
}

std::size_t share_of(std::size_t total, std::size_t index, std::size_t count) {
  return total / count + (index < total % count ? 1 : 0);
}

std::uint64_t share_seed(std::uint64_t seed, std::size_t index) {
  return seed + 0x9E3779B97F4A7C15ULL * index;  // the golden-ratio step: far apart for every index
}

SearchPolicy search_policy(const Options& o) {
  SearchPolicy p;
  p.strategy = o.strategy;
  p.options = o.strategy_options;
  const bool share = o.share.part == Part::search;
  if (o.max_fevals) {
    const auto total = static_cast<std::size_t>(*o.max_fevals);
    p.budget.max_fevals = share ? share_of(total, o.share.index, o.share.count) : total;
  }
  p.budget.time_limit_s = o.time_limit_s;
  p.seed = share ? share_seed(o.seed, o.share.index) : o.seed;
  p.seed_sizes = o.seed_sizes;
  return p;
}

Prepared validate(const Options& opts) {
  auto spec = spec::load(opts.space);
  if (spec.kernel.language != "CUDA")
    throw InputError(opts.space + ": KernelSpecification.Language: tune runs CUDA kernels, not " +
                     spec.kernel.language);
  spec::Extension extension = spec::parse_extension(spec);
  apply_policy(opts.policy, extension.policy);
  std::error_code ec;
  if (opts.replay.empty() && !fs::is_regular_file(spec.kernel.file_path, ec))
    throw InputError(opts.space + ": KernelSpecification.KernelFile: kernel file " + spec.kernel.file_path.string() +
                     " not found");
  auto space = space::Space::build(spec);
  space::check_config_rules(spec, space);
  if (opts.sizes.empty() && opts.replay.empty() && opts.capture.empty())
    throw InputError("no problem sizes given (--sizes)");
  auto captures = load_captures(spec, opts.capture);
  for (const auto& size : opts.sizes)
    if (size.rank > spec::problem_rank(spec))
      throw InputError("bad --sizes: " + size.label() + " has " + std::to_string(size.rank) + " dimensions, but " +
                       opts.space + "'s ProblemSize has " + std::to_string(spec::problem_rank(spec)));
  std::string strategy = strategy_for(opts, spec);
  search::check_strategy(strategy, opts.strategy_options, space);  // names and values, before any output
  if (opts.share.part != Part::whole && (!opts.replay.empty() || !opts.capture.empty()))
    throw InputError(
        "--share and --decide-only are parts of a GPU run split over MPI ranks: not with --replay or "
        "--capture");
  if (opts.share.part == Part::search && opts.max_fevals &&
      static_cast<std::size_t>(*opts.max_fevals) < opts.share.count)
    throw InputError("bad --share " + std::to_string(opts.share.index) + "/" + std::to_string(opts.share.count) +
                     ": --max-fevals " + std::to_string(*opts.max_fevals) + " leaves some shares nothing to evaluate");
  for (const auto& cache : opts.replay) {  // each there and regular, before the first line of output
    const RegularFile file(cache, "");
  }
  check_database_writable(opts.db);
  // Said once: by the supervisor, not again by its worker process (run/isolate.h).
  if (run::worker_generation() < 0) {
    const std::size_t n = opts.replay.empty() ? opts.sizes.size() + opts.capture.size() : opts.replay.size();
    log::info("{}: {} of {} configurations valid, {} {}", opts.space, space.size(), space.cartesian(), n,
              opts.replay.empty() ? (n == 1 ? "size" : "sizes") : (n == 1 ? "cache" : "caches"));
  }
  return Prepared{std::move(spec), std::move(space), std::move(extension), std::move(strategy), std::move(captures)};
}

std::string strategy_for(const Options& opts, const spec::Spec& spec) {
  if (!opts.strategy.empty()) return opts.strategy;
  const auto names = search::strategy_names();
  if (spec.search.empty()) return std::string(kDefaultStrategy);
  if (std::find(names.begin(), names.end(), spec.search) != names.end()) return spec.search;
  log::warn("{}: Search.Name {} is not a strategy of tune; using {}", opts.space, spec.search, kDefaultStrategy);
  return std::string(kDefaultStrategy);
}

std::uint64_t draw_seed() {
  if (run::worker_generation() >= 0)
    if (const char* text = std::getenv(kDrawnSeedVariable)) {
      char* end = nullptr;
      errno = 0;
      const unsigned long long v = std::strtoull(text, &end, 10);
      if (errno == 0 && end != text && *end == '\0') return v;
    }
  std::random_device device;
  return (static_cast<std::uint64_t>(device()) << 32) ^ device();
}

}  // namespace tune::tuning

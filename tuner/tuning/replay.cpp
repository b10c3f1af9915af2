// Replay: evaluate configurations by looking them up in recorded Kernel Tuner caches instead of a
// GPU, with Kernel Tuner's simulation semantics (kernel_tuner/runners/simulation.py): the first
// visit of a configuration advances a simulated clock by its recorded compile + verification +
// benchmark time; a revisit costs nothing; a configuration outside the restrictions is invalid; a
// valid configuration missing from the cache is an error; recorded failures are failures.
#include "tuning/replay.h"

#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <unordered_map>

#include "common/error.h"
#include "interop/entry.h"
#include "interop/interop.h"
#include "search/search.h"
#include "space/space.h"
#include "store/store.h"
#include "tuning/launch.h"

namespace tune::tuning {

namespace {

using Clock = std::chrono::steady_clock;

std::string python_key(const space::Space& space, std::size_t c) {
  std::string key;
  for (std::size_t p = 0; p < space.num_params(); ++p) {
    if (p) key += ',';
    key += space.value(c, p).str();
  }
  return key;
}

struct Outcome {
  std::size_t evaluations = 0;
  double simulated_ms = 0;
  std::optional<std::size_t> best;
  double best_ms = 0;
};

Outcome replay_one(store::Store& db, const Options& o, const spec::Spec& spec, const space::Space& space,
                   const interop::CacheFile& cache) {
  auto check = interop::check_against_spec(cache, spec, space);
  if (!check.parameters_match())
    throw InputError(cache.path.string() + " does not belong to " + o.space + ": " + check.report());
  if (!check.keys_equal()) spdlog::warn("{}: {}", cache.path.string(), check.report());

  std::unordered_map<std::string, const interop::CacheEntry*> by_key;
  for (const auto& e : cache.entries) by_key.emplace(e.key, &e);
  const auto names = cache.param_names();
  const std::string kernel = cache.header.value("kernel_name", spec.kernel.name);
  std::string device = cache.header.value("device_name", "");
  if (device.empty()) device = "unknown";
  const std::string shash = spec::space_hash(spec);

  store::RunInfo info = run_info(o, spec);
  info.kernel = kernel;
  info.device = device;
  info.kind = store::RunKind::replay;
  info.notes = nlohmann::json{{"replay_of", cache.path.string()}, {"seed", o.seed}}.dump();
  const std::int64_t run_id = db.begin_run(info);

  Outcome out;
  const auto order = search::visit_order(o.strategy, space.size(), o.seed);
  std::vector<bool> visited(space.size(), false);
  auto batch = db.batch();  // the replay's measurements land together
  for (std::size_t step = 0; step < order.size(); ++step) {
    auto t0 = Clock::now();
    const std::size_t c = order[step];
    if (o.max_fevals && out.evaluations >= static_cast<std::size_t>(*o.max_fevals)) break;
    if (o.time_limit_s && out.simulated_ms >= *o.time_limit_s * 1000.0) break;
    if (visited[c]) continue;  // a revisit costs nothing and is no evaluation
    visited[c] = true;
    const std::string key = python_key(space, c);
    auto it = by_key.find(key);
    if (it == by_key.end())
      throw InputError(cache.path.string() + ": the valid configuration " + space.params_json(c) + " (key \"" + key +
                       "\") is missing from the cache");
    auto imported = interop::detail::from_kt_entry(key, it->second->value, names);
    store::Measurement& m = imported.m;
    const double cost = m.compile_ms.value_or(0) + m.verification_ms.value_or(0) + m.benchmark_ms.value_or(0);
    out.simulated_ms += cost;
    ++out.evaluations;
    m.config_id = db.upsert_configuration_text(kernel, shash, space.params_json(c));
    m.run_id = run_id;
    m.device = device;
    m.size = interop::problem_size_of(cache.header);
    m.replayed = true;
    m.eval_order = static_cast<std::int64_t>(out.evaluations);
    m.simulated_time_ms = out.simulated_ms;
    m.strategy_time_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
    m.measured_at.clear();
    db.record(m);
    if (m.status == store::MeasurementStatus::ok && m.objective && (!out.best || *m.objective < out.best_ms)) {
      out.best = c;
      out.best_ms = *m.objective;
    }
  }
  batch.commit();
  db.finish_run(run_id, store::RunStatus::completed);
  std::printf("replayed %s (recorded on %s, kernel %s, size %s): %zu evaluations, %.1f s simulated; best %s at %.6g ms\n",
              cache.path.c_str(), device.c_str(), kernel.c_str(), interop::problem_size_of(cache.header).text.c_str(),
              out.evaluations, out.simulated_ms / 1000.0, out.best ? space.params_json(*out.best).c_str() : "(none)",
              out.best_ms);
  return out;
}

}  // namespace

int run_replay(const Options& o) { return run_replay(o, validate(o)); }

int run_replay(const Options& o, Prepared prepared) {
  const spec::Spec& spec = prepared.spec;
  const space::Space& space = prepared.space;
  auto db = store::Store::open(o.db, store::Store::Mode::read_write);
  std::printf("This is a replay of recorded measurements, not a GPU run: each configuration is looked up in a\n"
              "Kernel Tuner cache, with Kernel Tuner's simulated clock (strategy %s, seed %llu).\n",
              o.strategy.c_str(), static_cast<unsigned long long>(o.seed));
  for (const auto& file : o.replay) {
    auto cache = interop::read_cache(file);
    if (!o.sizes.empty()) {
      std::string size = interop::problem_size_of(cache.header).text;
      bool wanted = false;
      for (const auto& s : o.sizes) {
        auto dims = s.as_rank(problem_rank(spec));
        sizes::Size full{dims, std::max(problem_rank(spec), s.rank)};
        wanted = wanted || full.label() == size || s.label() == size;
      }
      if (!wanted) continue;
    }
    replay_one(db, o, spec, space, cache);
  }
  return 0;
}

}  // namespace tune::tuning

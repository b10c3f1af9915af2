// Replay: a strategy searches recorded Kernel Tuner caches instead of a GPU, with Kernel Tuner's
// simulation semantics (kernel_tuner/runners/simulation.py): the first visit of a configuration
// advances a simulated clock by its recorded compile + verification + benchmark time; a revisit
// costs nothing; a configuration outside the restrictions is never proposed (the space holds only
// valid ones); a valid configuration missing from the cache is an error; recorded failures are
// failures. One run (kind replay) per cache.
#include "tuning/replay.h"
#include "log/log.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <set>
#include <tuple>

#include "common/error.h"
#include "common/hash.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "output/output.h"
#include "query/flags.h"
#include "search/search.h"
#include "space/space.h"
#include "spec/bind.h"
#include "tuning/replay_internal.h"
#include "tuning/size_search.h"

namespace tune::tuning {

namespace {

using detail::Clock;

// One cache to replay, read and placed.
struct Job {
  interop::CacheFile cache;
  std::string kernel, device;
  sizes::Size size;
  std::size_t group = 0;  // (kernel, device) in order of first appearance
  std::string key;        // what makes two replays of this cache the same (replay_key)
};

std::string file_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Two replays of a cache are the same, and the second stores nothing, when the cache's bytes, the
// space, the strategy, its options, the budget, the simulated GPUs and the seeding across sizes
// are; and the seed, when one was given (a drawn seed stands for any: --seed N searches anew).
std::string replay_key(const Options& o, const std::string& shash, const std::filesystem::path& cache) {
  Hasher h;
  h.field(content_hash(file_bytes(cache))).field(shash).field(o.strategy);
  h.field(nlohmann::json(o.strategy_options).dump());
  h.field(o.max_fevals ? std::to_string(*o.max_fevals) : "")
      .field(o.time_limit_s ? std::to_string(*o.time_limit_s) : "");
  h.field(std::to_string(o.parallel)).field(o.seed_sizes ? "seeded" : "alone");
  h.field(o.seed_drawn ? std::string("drawn") : std::to_string(o.seed));
  return h.hex();
}

// The completed replay run of `job` with the same key, if any.
std::optional<std::int64_t> replayed_before(store::Store& db, const Job& job) {
  for (const auto& r : db.runs(job.kernel)) {
    if (r.kind != store::RunKind::replay || r.status != store::RunStatus::completed || r.device != job.device) continue;
    const auto notes = nlohmann::json::parse(r.notes, nullptr, false);
    if (notes.is_object() && notes.value("replay_key", std::string()) == job.key) return r.id;
  }
  return std::nullopt;
}

bool wanted(const Options& o, const spec::Spec& spec, const sizes::Size& size) {
  if (o.sizes.empty()) return true;
  for (const auto& s : o.sizes)
    if (s.full(spec::problem_rank(spec)) == size || s == size) return true;
  return false;
}

// The caches to replay, grouped by (kernel, device) and each group ordered by problem size.
// Throws InputError when none of them is at one of --sizes.
std::vector<Job> plan(const Options& o, const spec::Spec& spec) {
  std::vector<Job> jobs;
  std::vector<std::pair<std::string, std::string>> groups;
  std::vector<std::string> others;  // the sizes of the caches left out
  const std::string shash = spec::space_hash(spec);
  for (const auto& file : o.replay) {
    Job j{interop::read_cache(file), "", "", {}, 0, ""};
    try {
      j.size = interop::problem_size_of(j.cache.header);
    } catch (const InputError& e) {
      throw InputError(file + ": " + e.what());
    }
    if (!wanted(o, spec, j.size)) {
      others.push_back(j.size.label());
      continue;
    }
    j.key = replay_key(o, shash, file);
    j.kernel = j.cache.header.value("kernel_name", spec.kernel.name);
    j.device = j.cache.header.value("device_name", "");
    if (j.device.empty()) j.device = "unknown";
    auto g = std::find(groups.begin(), groups.end(), std::pair{j.kernel, j.device});
    j.group = static_cast<std::size_t>(g - groups.begin());
    if (g == groups.end()) groups.emplace_back(j.kernel, j.device);
    jobs.push_back(std::move(j));
  }
  // each group in search order (size_search.h), groups in order of first appearance
  std::vector<sizes::Size> sizes;
  sizes.reserve(jobs.size());
  for (const auto& j : jobs) sizes.push_back(j.size);
  const auto order = search_order(sizes);
  std::vector<Job> sorted;
  for (std::size_t g = 0; g < groups.size(); ++g)
    for (std::size_t i : order)
      if (jobs[i].group == g) sorted.push_back(std::move(jobs[i]));
  jobs = std::move(sorted);
  if (jobs.empty() && !others.empty()) {
    std::sort(others.begin(), others.end(), [](const std::string& a, const std::string& b) {
      return sizes::Size::parse_label(a).elements() < sizes::Size::parse_label(b).elements();
    });
    const std::string range = others.size() == 1 ? others.front() : others.front() + " .. " + others.back();
    throw InputError("--sizes " + o.sizes_text + " matches none of the " + std::to_string(others.size()) +
                     " caches given to --replay (recorded at " + range + "): nothing to replay");
  }
  return jobs;
}

SizeReplay replay_one(const Options& o, const spec::Spec& spec, const space::Space& space, const std::string& shash,
                      detail::ReplayWriter& writer, const Job& job, SizeSearch& search) {
  SizeReplay out;
  out.starts = search.starts_for(job.size, &out.seeded_from);
  const auto& cache = job.cache;
  interop::Recorded recorded = interop::recorded_results(cache, space, o.objective);
  // Keys that do not match the space one for one: say why (and refuse other parameter values).
  if (recorded.missing > 0 || cache.entries.size() != space.size() - recorded.missing) {
    auto check = interop::check_against_spec(cache, spec, space);
    if (!check.parameters_match())
      throw InputError(cache.path.string() + " does not belong to " + o.space + ": " + check.report());
    if (!check.keys_equal()) log::warn("{}: {}", cache.path.string(), check.report());
  }
  out.cache = cache.path.string();
  out.kernel = job.kernel;
  out.device = job.device;
  out.size = job.size;
  out.true_best = recorded.best;
  if (recorded.best) out.true_best_objective = *recorded.objective[*recorded.best];

  store::RunInfo info = run_info(o, spec);
  info.kernel = job.kernel;
  info.device = job.device;
  info.kind = store::RunKind::replay;
  info.timing =
      "replayed from the Kernel Tuner cache " + out.cache + " (recorded on " + job.device +
      "): each configuration's `time`, Kernel Tuner's objective, as recorded" +
      (decision::needs_energy(o.objective) ? std::string("; searched on ") + (o.objective == decision::Objective::energy
                                                                                  ? "its nvml_energy (J per launch)"
                                                                                  : "its time x nvml_energy (EDP)")
                                           : std::string());
  nlohmann::json notes{
      {"replay_of", out.cache}, {"seed", o.seed}, {"seed_drawn", o.seed_drawn}, {"replay_key", job.key}};
  if (o.parallel > 1) notes["parallel"] = o.parallel;
  if (!out.starts.empty()) notes["seeded_from"] = out.seeded_from;
  info.notes = notes.dump();
  writer.sync();  // the writer is idle: this thread may use the store
  out.run_id = writer.db().begin_run(info);
  writer.target(detail::ReplayTarget{job.kernel, shash, job.device, job.size, out.run_id, &space});

  detail::ReplayEvaluator evaluator(writer, space, cache, recorded, o.parallel);
  const auto t0 = Clock::now();
  const double cpu0 = detail::thread_cpu_s(), writer0 = writer.cpu_s();
  try {
    evaluator.start();
    const SizeOutcome& done = search.search(job.size, evaluator);
    out.search_s = std::chrono::duration<double>(Clock::now() - t0).count();
    out.search_cpu_s = detail::thread_cpu_s() - cpu0;
    writer.sync();  // every evaluation stored and committed
    out.writer_cpu_s = writer.cpu_s() - writer0;
    out.evaluated = done.evaluated;
    out.objectives = done.objectives;
    out.best = done.best;
    out.best_objective = done.best_objective;
  } catch (...) {
    writer.rollback();  // the evaluations since the last commit go; the run says it failed
    if (!writer.db().discard_run(out.run_id)) writer.db().finish_run(out.run_id, store::RunStatus::failed);
    throw;
  }
  out.stored_s = std::chrono::duration<double>(Clock::now() - t0).count();
  out.strategy_s = evaluator.strategy_s();
  writer.db().finish_run(out.run_id, store::RunStatus::completed);
  out.simulated_ms = evaluator.simulated_ms();
  return out;
}

}  // namespace

std::optional<std::size_t> SizeReplay::evaluations_to(double tolerance) const {
  if (!true_best) return std::nullopt;
  for (std::size_t k = 0; k < evaluated.size(); ++k)
    if (objectives[k] && *objectives[k] <= true_best_objective * (1.0 + tolerance)) return k + 1;
  return std::nullopt;
}

namespace {

std::vector<SizeReplay> replay_jobs(const Options& o, const Prepared& prepared, std::vector<Job>& jobs,
                                    const std::function<void(const SizeReplay&)>& on_size,
                                    const std::function<void(const Job&, std::int64_t)>& on_skip) {
  const spec::Spec& spec = prepared.spec;
  const space::Space& space = prepared.space;
  const std::string shash = spec::space_hash(spec);
  auto db = store::Store::open(o.db, store::Store::Mode::read_write);
  detail::ReplayWriter writer(db);
  std::vector<SizeReplay> done;
  std::vector<SizeSearch> searches;  // one per (kernel, device) group
  for (Job& job : jobs) {
    if (job.group >= searches.size()) searches.emplace_back(space, search_policy(o));
    writer.sync();
    if (const auto before = replayed_before(writer.db(), job)) {  // the same replay: nothing new
      if (on_skip) on_skip(job, *before);
      continue;
    }
    done.push_back(replay_one(o, spec, space, shash, writer, job, searches[job.group]));
    job.cache.entries = {};  // searched: its entries are not needed again
    if (on_size) on_size(done.back());
  }
  // Flags of the data, over every stored size of each replayed kernel and device.
  writer.sync();
  std::set<std::pair<std::string, std::string>> replayed;
  for (const auto& r : done) replayed.emplace(r.kernel, r.device);
  for (const auto& [kernel, device] : replayed) query::refresh_flags(writer.db(), kernel, device);
  return done;
}

}  // namespace

std::vector<SizeReplay> replay(const Options& o, const Prepared& prepared,
                               const std::function<void(const SizeReplay&)>& on_size) {
  std::vector<Job> jobs = plan(o, prepared.spec);  // every cache is read first, to order the sizes
  return replay_jobs(o, prepared, jobs, on_size, {});
}

int run_replay(const Options& o) { return run_replay(o, validate(o)); }

std::vector<std::vector<std::string>> replay_groups(const Options& o, const spec::Spec& spec) {
  std::vector<std::vector<std::string>> groups;
  for (const Job& j : plan(o, spec)) {
    if (j.group >= groups.size()) groups.resize(j.group + 1);
    groups[j.group].push_back(j.cache.path.string());
  }
  return groups;
}

void print_replay_opening(const Options& o, const decision::Policy& policy, std::size_t caches) {
  if (o.json) return;
  const auto print = [](const std::string& text) {
    for (const auto& line : output::wrap(text, output::width(), 4)) std::printf("%s\n", line.c_str());
  };
  print("This is a replay of recorded measurements, not a GPU run: each configuration is looked up in a");
  print("Kernel Tuner cache, with Kernel Tuner's simulated clock.");
  std::string what = "  strategy " + o.strategy;
  for (const auto& [k, v] : o.strategy_options) what += " " + k + "=" + v;
  if (caches > 0) what += ", " + std::to_string(caches) + (caches == 1 ? " cache" : " caches");
  print(what);
  if (o.strategy != "brute_force")
    print("  seed " + std::to_string(o.seed) + (o.seed_drawn ? ", drawn for this run: --seed repeats it" : ""));
  // Seeding across sizes starts a search from its neighbours' best: nothing to start for one
  // size or for a brute force, which evaluates everything anyway.
  if (o.seed_sizes && caches != 1 && o.strategy != "brute_force")
    print("  each size starts from the best of the nearest sizes searched before it");
  if (o.parallel > 1) print("  " + std::to_string(o.parallel) + " simulated GPUs evaluating batches at once");
  print("A GPU run measures and decides by this policy (a replay takes the recorded times as they are):");
  for (const auto& line : output::wrap(policy.describe(), output::width() - 2, 2)) std::printf("  %s\n", line.c_str());
}

void print_replay_size(const Options& o, const space::Space& space, const SizeReplay& r) {
  (void)space;  // the configurations: `tune best` (a line of JSON per size did not fit a terminal)
  if (o.json) return;
  char head[512];
  std::snprintf(head, sizeof head, "%s on %s, %s: %zu evaluations, %.1f s simulated", r.kernel.c_str(),
                r.device.c_str(), r.size.label().c_str(), r.evaluated.size(), r.simulated_ms / 1000.0);
  std::string text = head, from = "    ";
  if (r.best) {
    if (r.true_best) {
      char ratio[64];
      std::snprintf(ratio, sizeof ratio, " (%.3fx the cache's best)", r.best_objective / r.true_best_objective);
      text += ratio;
    }
    if (decision::needs_energy(o.objective)) {
      char best[64];
      std::snprintf(best, sizeof best, "best %.4g %s (%s), ", r.best_objective,
                    std::string(decision::unit(o.objective)).c_str(), std::string(to_string(o.objective)).c_str());
      from += best;
    } else {
      const std::vector<double> ms = {r.best_objective};
      const output::TimeUnit unit = output::time_unit(ms);
      from += "best " + output::format_time(r.best_objective, unit) + " " + unit.name + ", ";
    }
  } else {
    text += ", no configuration succeeded";
  }
  from += "from " + r.cache;
  if (!r.starts.empty()) {
    std::string seeded;
    for (const auto& x : r.seeded_from) seeded += (seeded.empty() ? "" : ", ") + x;
    from += "; started from " + std::to_string(r.starts.size()) + " configurations of " + seeded;
  }
  for (const auto* t : {&text, &from})
    for (const auto& line : output::wrap(*t, output::width(), 4)) std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

void print_replay_json(const Options& o, const space::Space& space, const std::vector<SizeReplay>& all,
                       const std::vector<std::string>& unchanged) {
  if (!o.json) return;
  nlohmann::ordered_json doc{{"strategy", o.strategy}, {"strategy_options", o.strategy_options},
                             {"seed", o.seed},         {"seed_sizes", o.seed_sizes},
                             {"unchanged", unchanged}, {"sizes", nlohmann::json::array()}};
  for (const auto& r : all) {
    auto to = r.evaluations_to(0.02);
    doc["sizes"].push_back(nlohmann::ordered_json{
        {"cache", r.cache},
        {"kernel", r.kernel},
        {"device", r.device},
        {"size", r.size.label()},
        {"run_id", r.run_id},
        {"evaluations", r.evaluated.size()},
        {"simulated_s", r.simulated_ms / 1000.0},
        {"params", r.best ? nlohmann::json::parse(space.params_json(*r.best)) : nlohmann::json()},
        {"time_ms", r.best ? nlohmann::json(r.best_objective) : nlohmann::json()},
        {"true_best_time_ms", r.true_best ? nlohmann::json(r.true_best_objective) : nlohmann::json()},
        {"starts", r.starts.size()},
        {"seeded_from", r.seeded_from},
        {"first_evaluated", r.evaluated.empty() ? nlohmann::json() : nlohmann::json(r.evaluated.front())},
        {"evaluations_to_2pct", to ? nlohmann::json(*to) : nlohmann::json()},
        {"search_s", r.search_s},
        {"strategy_s", r.strategy_s},
        {"stored_s", r.stored_s},
        {"search_cpu_s", r.search_cpu_s},
        {"writer_cpu_s", r.writer_cpu_s}});
  }
  std::printf("%s\n", doc.dump().c_str());
}

namespace {
template <class T>
nlohmann::json opt(const std::optional<T>& v) {
  return v ? nlohmann::json(*v) : nlohmann::json();
}
template <class T>
std::optional<T> opt_of(const nlohmann::json& j) {
  return j.is_null() ? std::nullopt : std::optional<T>(j.get<T>());
}
}  // namespace

nlohmann::json to_json(const SizeReplay& r) {
  nlohmann::json objectives = nlohmann::json::array();
  for (const auto& o : r.objectives) objectives.push_back(opt(o));
  return {{"cache", r.cache},
          {"kernel", r.kernel},
          {"device", r.device},
          {"size", r.size.label()},
          {"run_id", r.run_id},
          {"starts", r.starts},
          {"seeded_from", r.seeded_from},
          {"evaluated", r.evaluated},
          {"objectives", objectives},
          {"simulated_ms", r.simulated_ms},
          {"best", opt(r.best)},
          {"best_objective", r.best_objective},
          {"true_best", opt(r.true_best)},
          {"true_best_objective", r.true_best_objective},
          {"times", {r.search_s, r.strategy_s, r.stored_s, r.search_cpu_s, r.writer_cpu_s}}};
}

SizeReplay size_replay_from_json(const nlohmann::json& j) {
  SizeReplay r;
  r.cache = j.at("cache").get<std::string>();
  r.kernel = j.at("kernel").get<std::string>();
  r.device = j.at("device").get<std::string>();
  r.size = sizes::Size::parse_label(j.at("size").get<std::string>());
  r.run_id = j.at("run_id").get<std::int64_t>();
  r.starts = j.at("starts").get<std::vector<std::size_t>>();
  r.seeded_from = j.at("seeded_from").get<std::vector<std::string>>();
  r.evaluated = j.at("evaluated").get<std::vector<std::size_t>>();
  for (const auto& o : j.at("objectives")) r.objectives.push_back(opt_of<double>(o));
  r.simulated_ms = j.at("simulated_ms").get<double>();
  r.best = opt_of<std::size_t>(j.at("best"));
  r.best_objective = j.at("best_objective").get<double>();
  r.true_best = opt_of<std::size_t>(j.at("true_best"));
  r.true_best_objective = j.at("true_best_objective").get<double>();
  const auto& t = j.at("times");
  r.search_s = t.at(0), r.strategy_s = t.at(1), r.stored_s = t.at(2), r.search_cpu_s = t.at(3),
  r.writer_cpu_s = t.at(4);
  return r;
}

void print_replay_summary(const Options& o, const std::vector<SizeReplay>& all, std::size_t caches,
                          std::size_t unchanged) {
  if (o.json) return;
  std::size_t evaluations = 0;
  double simulated_ms = 0;
  for (const auto& r : all) evaluations += r.evaluated.size(), simulated_ms += r.simulated_ms;
  char text[512];
  if (all.empty())
    std::snprintf(text, sizeof text,
                  "Nothing new: the %zu caches were replayed alike before, and their runs are stored; "
                  "--seed N or another --strategy searches anew.",
                  unchanged);
  else
    std::snprintf(
        text, sizeof text,
        "Replayed %zu of %zu caches: %zu evaluations, %.1f s of GPU time simulated, stored%s; "
        "`tune best` shows the best configuration per size.",
        all.size(), caches, evaluations, simulated_ms / 1000.0,
        unchanged == 0 ? "" : (" (" + std::to_string(unchanged) + " replayed alike before: nothing new)").c_str());
  for (const auto& line : output::wrap(text, output::width(), 0)) std::printf("%s\n", line.c_str());
}

int run_replay(const Options& o, const Prepared& prepared) {
  const space::Space& space = prepared.space;
  std::vector<Job> jobs = plan(o, prepared.spec);  // a bad cache or no cache at --sizes: nothing printed yet
  print_replay_opening(o, prepared.extension.policy, jobs.size());
  std::vector<std::string> unchanged;  // caches replayed before alike: nothing new stored
  const auto skipped = [&](const Job& job, std::int64_t run) {
    unchanged.push_back(job.cache.path.string());
    if (!o.json)
      for (const auto& l : output::wrap(job.kernel + " on " + job.device + ", " + job.size.label() +
                                            ": replayed alike by run " + std::to_string(run) + "; nothing new stored",
                                        output::width(), 4))
        std::printf("%s\n", l.c_str());
  };
  const auto all = replay_jobs(
      o, prepared, jobs, [&](const SizeReplay& r) { print_replay_size(o, space, r); }, skipped);
  print_replay_json(o, space, all, unchanged);
  print_replay_summary(o, all, jobs.size(), unchanged.size());
  return 0;
}

}  // namespace tune::tuning

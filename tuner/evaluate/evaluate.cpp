#include "evaluate/evaluate.h"
#include "log/log.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <exception>
#include <mutex>
#include <numeric>
#include <thread>

#include "common/error.h"
#include "common/progress.h"
#include "interop/interop.h"
#include "interop/recorded.h"
#include "spec/spec.h"

namespace tune::evaluate {

namespace fs = std::filesystem;

std::string short_name(const fs::path& cache) {
  std::string file = cache.filename().string();
  for (const char* ext : {".gz", ".json"})
    if (file.size() > std::string(ext).size() && file.ends_with(ext))
      file.resize(file.size() - std::string(ext).size());
  const std::string folder = cache.parent_path().filename().string();
  return folder.empty() ? file : folder + "/" + file;
}

std::vector<Problem> load_problems(const std::vector<std::string>& specs, const std::vector<std::string>& caches,
                                   decision::Objective objective) {
  if (specs.empty()) throw InputError("no search space given (--space)");
  if (caches.empty()) throw InputError("no brute-forced cache given (--replay)");
  std::vector<spec::Spec> loaded;
  std::vector<std::shared_ptr<const space::Space>> spaces;
  for (const auto& path : specs) {
    loaded.push_back(spec::load(path));
    spaces.push_back(std::make_shared<const space::Space>(space::Space::build(loaded.back())));
  }
  std::vector<Problem> out;
  for (const auto& path : caches) {
    const interop::CacheFile cache = interop::read_cache(path);
    std::optional<std::size_t> which;
    interop::SpecCheck check, first_check;
    for (std::size_t k = 0; k < loaded.size() && !which; ++k) {
      check = interop::check_against_spec(cache, loaded[k], *spaces[k]);
      if (k == 0) first_check = check;
      if (check.parameters_match()) which = k;
    }
    if (!which) {
      std::string names;
      for (const auto& s : specs) names += (names.empty() ? "" : ", ") + s;
      throw InputError(path + ": its parameters match none of the --space files (" + names +
                       "); against the first: " + first_check.report());
    }
    const std::string& spec_path = specs[*which];
    if (check.missing > 0)
      throw InputError(path + ": lacks " + std::to_string(check.missing) + " of the " +
                       std::to_string(check.space_size) + " valid configurations of " + spec_path + " (e.g. \"" +
                       check.missing_examples.front() + "\"): evaluate needs a brute-forced cache");
    if (check.extra > 0)
      log::warn("{}: {} entries are not valid configurations of {}; they are left out", path, check.extra, spec_path);
    const interop::Recorded rec = interop::recorded_results(cache, *spaces[*which], objective);
    Problem p;
    p.label = short_name(path);
    p.cache = path;
    p.spec = spec_path;
    p.device = cache.header.value("device_name", "");
    p.space = spaces[*which];
    p.objective = rec.objective;
    p.cost_s.reserve(rec.cost_ms.size());
    for (double ms : rec.cost_ms) p.cost_s.push_back(ms / 1000.0);
    try {
      SpaceStats check_stats(p.objective, p.cost_s);
    } catch (const InputError& e) {
      throw InputError(path + ": " + e.what());
    }
    log::info("{}: {} configurations ({} failed)", path, p.objective.size(),
              std::count(p.objective.begin(), p.objective.end(), std::nullopt));
    out.push_back(std::move(p));
  }
  return out;
}

std::vector<StrategySpec> strategy_specs(const std::vector<std::string>& names,
                                         const std::vector<std::string>& option_items) {
  std::vector<std::string> list;
  auto add = [&](const std::string& name) {
    if (std::find(list.begin(), list.end(), name) == list.end()) list.push_back(name);
  };
  for (const auto& item : names) {
    std::size_t from = 0;
    while (from <= item.size()) {
      std::size_t comma = item.find(',', from);
      if (comma == std::string::npos) comma = item.size();
      const std::string name = item.substr(from, comma - from);
      from = comma + 1;
      if (name.empty()) continue;
      if (name == "all") {
        for (const auto& n : search::strategy_names()) add(n);
      } else {
        search::check_strategy(name);
        add(name);
      }
    }
  }
  if (list.empty()) throw InputError("no strategy given (--strategy NAME[,NAME...] or all)");
  const search::StrategyOptions options = search::parse_options(option_items);
  std::vector<StrategySpec> out;
  out.reserve(list.size());
  for (const auto& name : list) out.push_back(StrategySpec{name});
  for (const auto& [key, value] : options) {
    bool used = false;
    for (auto& spec : out) {
      const auto& keys = search::find_strategy(spec.name).options;
      if (std::find(keys.begin(), keys.end(), key) == keys.end()) continue;
      spec.options[key] = value;
      used = true;
    }
    if (!used) {
      std::string all;
      for (const auto& n : list) all += (all.empty() ? "" : ", ") + n;
      throw InputError("--strategy-option " + key + ": none of the strategies (" + all + ") has such an option");
    }
  }
  return out;
}

std::optional<double> Result::mean(std::size_t strategy) const {
  double sum = 0;
  for (const Cell& c : cells.at(strategy)) {
    if (!c.curve || std::isnan(c.curve->mean)) return std::nullopt;
    sum += c.curve->mean;
  }
  return cells[strategy].empty() ? std::nullopt
                                 : std::optional<double>(sum / static_cast<double>(cells[strategy].size()));
}

namespace {

// Records each successful improvement of the best objective with the clock after it.
class Recorder : public search::Evaluator {
 public:
  explicit Recorder(search::Evaluator& inner) : inner_(inner) {}
  std::optional<double> evaluate(std::size_t config) override {
    std::optional<double> r = inner_.evaluate(config);
    if (r && (trace.empty() || *r < trace.back().second)) trace.emplace_back(inner_.elapsed_s(), *r);
    return r;
  }
  double elapsed_s() const override { return inner_.elapsed_s(); }
  Trace trace;

 private:
  search::Evaluator& inner_;
};

struct Outcome {
  Trace trace;
  std::size_t fevals = 0;
  std::string error;
  std::exception_ptr input_error;
};

Outcome run_one(const Problem& p, const StrategySpec& s, double time_limit_s, std::uint64_t seed) {
  Outcome out;
  search::TableEvaluator table(p.objective, p.cost_s);
  Recorder recorder(table);
  search::Context ctx(*p.space, recorder, search::Budget{std::nullopt, time_limit_s}, seed, s.options);
  try {
    if (s.body) {
      try {
        s.body(ctx);
      } catch (const search::Stop&) {}
    } else {
      search::run(s.name, ctx);
    }
  } catch (const InputError&) {
    out.input_error = std::current_exception();
  } catch (const std::exception& e) {
    out.error = e.what();
  }
  out.fevals = ctx.evaluations();
  out.trace = std::move(recorder.trace);
  return out;
}

}  // namespace

namespace {

// A cell's score from its repeats' outcomes (and its bootstrap resamples): the same whoever runs
// the repeats, since resample b of cell (strat, prob) draws from its own seeded stream.
void score_cell(Cell& cell, const SpaceStats& stats, const Window& window, std::vector<Outcome>& outcomes,
                const Options& options, std::size_t strat, std::size_t prob) {
  const std::size_t nr = outcomes.size();
  std::vector<Trace> traces;
  double fevals = 0;
  for (Outcome& o : outcomes) {
    if (!o.error.empty() && cell.error.empty()) cell.error = o.error;
    fevals += static_cast<double>(o.fevals);
    traces.push_back(std::move(o.trace));
  }
  cell.mean_fevals = fevals / static_cast<double>(nr);
  if (!cell.error.empty()) return;
  const RankMatrix ranks = rank_matrix(stats, window, traces);
  std::vector<std::size_t> rows(nr);
  std::iota(rows.begin(), rows.end(), std::size_t{0});
  cell.curve = score_rows(stats, window, ranks, rows);
  search::Rng rng(options.seed * 0x9E3779B97F4A7C15ull + strat * 1000003 + prob);
  for (std::size_t b = 0; b < options.resamples; ++b) {
    for (auto& row : rows) row = static_cast<std::size_t>(rng.below(nr));
    cell.resampled.push_back(score_rows(stats, window, ranks, rows).mean);
  }
}

}  // namespace

Result frame(const std::vector<Problem>& problems, const std::vector<StrategySpec>& strategies,
             const Options& options) {
  if (options.repeats == 0) throw InputError("--repeats must be at least 1");
  Result r;
  r.options = options;
  for (const auto& p : problems) {
    r.problems.push_back(p.label);
    r.stats.emplace_back(p.objective, p.cost_s);
    r.windows.push_back(window(r.stats.back(), options.settings));
  }
  for (const auto& s : strategies) r.strategies.push_back(s.name);
  r.cells.assign(strategies.size(), std::vector<Cell>(problems.size()));
  return r;
}

Cell evaluate_cell(const Result& frame, const std::vector<Problem>& problems,
                   const std::vector<StrategySpec>& strategies, std::size_t strat, std::size_t prob) {
  const Options& options = frame.options;
  const std::size_t nr = options.repeats;
  std::vector<Outcome> outcomes(nr);
  std::atomic<std::size_t> next{0};
  auto work = [&] {
    for (std::size_t rep; (rep = next.fetch_add(1)) < nr;)
      outcomes[rep] = run_one(problems[prob], strategies[strat], frame.windows[prob].time_limit_s, options.seed + rep);
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, nr));
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  for (const Outcome& o : outcomes)
    if (o.input_error) std::rethrow_exception(o.input_error);
  Cell cell;
  score_cell(cell, frame.stats[prob], frame.windows[prob], outcomes, options, strat, prob);
  return cell;
}

Result evaluate(const std::vector<Problem>& problems, const std::vector<StrategySpec>& strategies,
                const Options& options) {
  Result r = frame(problems, strategies, options);
  const std::size_t np = problems.size(), nr = options.repeats, total = strategies.size() * np * nr;
  std::vector<Outcome> outcomes(total);
  std::vector<std::atomic<std::size_t>> done(strategies.size() * np);  // finished repeats per cell
  std::atomic<std::size_t> next{0};
  const auto t0 = std::chrono::steady_clock::now();
  // A progress line (on a terminal; every few seconds in a log), drawn by whichever thread
  // finishes a run while no other draws it.
  Progress progress("evaluate: runs", total);
  std::atomic<std::size_t> finished{0};
  std::mutex drawing;
  // The thread that finishes a cell's last repeat scores the cell (and its bootstrap resamples).
  auto finish = [&](std::size_t strat, std::size_t prob) {
    const auto first = outcomes.begin() + static_cast<std::ptrdiff_t>((strat * np + prob) * nr);
    std::vector<Outcome> cell(std::make_move_iterator(first),
                              std::make_move_iterator(first + static_cast<std::ptrdiff_t>(nr)));
    for (const Outcome& o : cell)
      if (o.input_error) {
        outcomes[(strat * np + prob) * nr] = Outcome{{}, 0, {}, o.input_error};  // rethrown after the pool
        return;
      }
    score_cell(r.cells[strat][prob], r.stats[prob], r.windows[prob], cell, options, strat, prob);
  };
  auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < total;) {
      const std::size_t rep = i % nr, prob = (i / nr) % np, strat = i / (nr * np);
      outcomes[i] = run_one(problems[prob], strategies[strat], r.windows[prob].time_limit_s, options.seed + rep);
      const std::size_t count = finished.fetch_add(1) + 1;
      if (std::unique_lock lock(drawing, std::try_to_lock); lock.owns_lock()) progress.update(count);
      if (done[i / nr].fetch_add(1) + 1 == nr) {
        finish(strat, prob);
        log::info("evaluate: {} on {}: {} repeats done ({:.1f} s)", strategies[strat].name, problems[prob].label, nr,
                  std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
      }
    }
  };
  unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  threads = static_cast<unsigned>(std::min<std::size_t>(threads, std::max<std::size_t>(total, 1)));
  log::info("evaluate: {} strategies x {} caches x {} repeats on {} threads", strategies.size(), np, nr, threads);
  {
    std::vector<std::jthread> pool;
    for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
    work();
  }
  progress.finish();
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

  for (std::size_t s = 0; s < strategies.size(); ++s)
    for (std::size_t p = 0; p < np; ++p)
      for (std::size_t rep = 0; rep < nr; ++rep)
        if (const auto& e = outcomes[(s * np + p) * nr + rep].input_error) std::rethrow_exception(e);
  return r;
}

}  // namespace tune::evaluate

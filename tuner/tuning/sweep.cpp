// The GPU sweep (sweep.h): the run's shared state, then the sequence: plan what is left to measure,
// start the compiles, measure every size (windows of sizes for brute force, size after size for a
// guided search), decide each, then the flags and the table.
#include "tuning/sweep.h"
#include "log/log.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

#include "compile/source.h"
#include "query/energy.h"
#include "query/flags.h"
#include "query/table.h"
#include "spec/launch.h"
#include "tuning/engine.h"

namespace tune::tuning {

namespace {

store::RunInfo gpu_run_info(const Options& o, const spec::Spec& spec, const run::DeviceInfo& dev) {
  store::RunInfo info = run_info(o, spec);
  info.device = dev.name;
  info.compute_capability = dev.compute_capability;
  info.driver_version = dev.driver_version;
  info.runtime_version = dev.runtime_version;
  info.nvrtc_version = compile::nvrtc_version();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  info.host = host;
  return info;
}

}  // namespace

run::TimingOptions first_pass_timing(const decision::Policy& p) {
  run::TimingOptions t;
  t.warmup = p.warmup;
  t.min_samples = p.min_samples;
  t.max_samples = p.max_samples;
  t.min_batch_ms = p.min_batch_ms;
  t.rel_ci = p.max_noise;
  t.min_time_ms = p.min_time_ms;
  t.max_time_ms = p.max_time_ms;
  t.max_retakes = p.max_retakes;
  t.steady_throttle = p.steady_throttle;
  t.flush_l2 = p.flush_l2;
  t.placements = static_cast<int>(p.first_placements);  // the ceilings are timed as the first measurements
  t.screen_after = p.screen_after;                      // screen_above_ms per size (SizeStates::measure)
  return t;
}

GpuRun::GpuRun(const Options& opts, Prepared prepared)
    : o(opts),
      spec(std::move(prepared.spec)),
      space(std::move(prepared.space)),
      ext(std::move(prepared.extension)),
      captures(std::move(prepared.captures)),
      kernel(spec.kernel.name),
      space_hash(spec::space_hash(spec)),
      source(compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile",
                                         {.name = spec.kernel.file})
                 .text),
      session(opts.device),
      arch(spec::target_arch(spec, session.device().arch)),
      energy(decision::needs_energy(opts.objective)
                 ? std::make_unique<run::EnergyMeter>(session,
                                                      run::EnergyOptions{.updates = ext.policy.energy_updates,
                                                                         .warmup_ms = ext.policy.energy_warmup_ms,
                                                                         .race = ext.policy.describe_energy_race()})
                 : nullptr),
      db(store::Store::open(opts.db, store::Store::Mode::read_write)),
      timing(first_pass_timing(ext.policy)),
      rule(ext.policy.rule()) {
  log::info("device: {}{}", session.device().summary(),
            arch == session.device().arch ? std::string() : "; kernels compiled for " + arch + " (Tune.arch)");
  store::RunInfo info = gpu_run_info(o, spec, session.device());
  info.timing = policy().describe() + "; " + session.clocks_note();  // the method, above the run's table
  if (energy) {
    info.energy = energy->describe();
    info.idle_power_w = energy->idle().watts;
  }
  run_id = db.begin_run(info);
}

const capture::Capture* GpuRun::captured(std::size_t s) const {
  for (const auto& c : captures)
    if (c.size == sizes[s].size.dims) return &c;
  return nullptr;
}

Sweep::Sweep(const Options& o, Prepared prepared)
    : run_(o, std::move(prepared)),
      decider_(run_, kernels_, states_),
      kernels_(run_),
      states_(run_, kernels_, [this] { decider_.forget_contexts(); }) {}

// What is already stored is skipped: a re-run of the same command resumes.
void Sweep::plan() {
  const std::string& device = run_.device();
  done_ = run_.db.measured(run_.kernel, run_.space_hash, device, run_.energy != nullptr);
  for (const auto& d : run_.db.decisions(run_.kernel, device)) decided_.insert(d.size);
  std::size_t n_configs = run_.space.size();
  guided_ = run_.o.strategy != "brute_force";
  // Brute force measures the first max_fevals configurations of the space; a strategy gets the
  // whole space and spends max_fevals per size on it.
  if (!guided_ && run_.o.max_fevals && static_cast<std::size_t>(*run_.o.max_fevals) < n_configs)
    n_configs = static_cast<std::size_t>(*run_.o.max_fevals);
  // the sizes in search order (size_search.h): a guided search starts each from its smaller neighbours
  const int rank = spec::problem_rank(run_.spec);
  std::vector<sizes::Size> given;
  for (const auto& size : run_.o.sizes) given.push_back(size.full(rank));
  for (std::size_t i : search_order(given)) run_.sizes.push_back(SizeTarget::of(given[i]));
  run_.configs.resize(n_configs);
  const Share& share = run_.o.share;
  for (std::size_t c = 0; c < n_configs; ++c) {
    run_.configs[c].params = run_.space.params_json(c);
    run_.config_index.emplace(run_.configs[c].params, c);
    run_.configs[c].id = run_.db.upsert_configuration_text(run_.kernel, run_.space_hash, run_.configs[c].params);
    if (share.part == Part::decide || (share.part == Part::search && c % share.count != share.index)) continue;
    for (const auto& size : run_.sizes)
      if (!done_.count({run_.configs[c].params, size.label})) run_.configs[c].needed = true, ++todo_;
  }
  if (share.part == Part::decide) {
    todo_ = 0;
    log::info("{} sizes to decide from the measurements stored", run_.sizes.size());
    return;
  }
  if (guided_) {
    SearchPolicy policy = search_policy(run_.o);
    if (share.part == Part::search && !run_.o.max_fevals)  // the space's share, so the shares cover it once
      policy.budget.max_fevals = share_of(n_configs, share.index, share.count);
    const std::size_t per_size = std::min(n_configs, policy.budget.max_fevals.value_or(n_configs));
    search_ = std::make_unique<SizeSearch>(run_.space, std::move(policy));
    todo_ = per_size * run_.sizes.size();
    log::info("{} configurations x {} sizes: strategy {} evaluates up to {} per size{}", n_configs, run_.sizes.size(),
              run_.o.strategy, per_size,
              share.part == Part::search
                  ? log::format(" (share {} of {}; the decision is another process's)", share.index, share.count)
                  : "");
    return;
  }
  if (share.part == Part::search)
    log::info("share {} of {}: the configurations c with c mod {} = {}; the decision is another process's", share.index,
              share.count, share.count, share.index);
  log::info("{} configurations x {} sizes: {} measurements to take, {} already stored", n_configs, run_.sizes.size(),
            todo_, n_configs * run_.sizes.size() - todo_);
}

bool Sweep::size_needs_work(std::size_t s) const {
  if (guided_ || (s == 0 && kernels_.pending())) return true;
  // measured whole but not decided: a run that ended between the two (killed, say) resumes there
  if (run_.o.share.part == Part::whole && !decided_.contains(run_.sizes[s].label)) return true;
  for (const ConfigState& k : run_.configs)
    if (k.needed && !done_.count({k.params, run_.sizes[s].label})) return true;
  return false;  // all stored: no reference, no ceilings
}

int Sweep::run() {
  plan();
  kernels_.start_configs(guided_);
  states_.prepare();
  kernels_.start_helpers(guided_);
  decider_.start_contexts([this](std::size_t s) { return size_needs_work(s); });
  progress_ = std::make_unique<Progress>("measuring", todo_);
  bool out_of_time = false;
  const std::size_t n = run_.sizes.size();
  if (run_.o.share.part == Part::decide) {
    for (std::size_t s = 0; s < n; ++s) decide_one_size(s);
  } else if (guided_) {
    for (std::size_t s = 0; s < n && !out_of_time; ++s) out_of_time = !search_one_size(s);
  } else {
    // windows of consecutive sizes whose states take at most a quarter of the device's memory
    const std::size_t budget = run_.session.device().global_memory_bytes / 4;
    std::vector<std::size_t> window;
    std::size_t bytes = 0;
    for (std::size_t s = 0; s <= n && !out_of_time; ++s) {
      const bool end = s == n;
      if (!end && !size_needs_work(s)) continue;
      const std::size_t need = end ? 0 : states_.bytes(s);
      if (!window.empty() && (end || bytes + need > budget)) {
        out_of_time = !measure_window(window);
        window.clear();
        bytes = 0;
      }
      if (!end) window.push_back(s), bytes += need;
    }
  }
  kernels_.finish();
  progress_->finish();
  finish(out_of_time);
  return 0;
}

// Each configuration, as soon as it is compiled, is measured at every size of the window (so the
// first window's measurements overlap the compiles instead of waiting for them), then each size
// is decided.
bool Sweep::measure_window(const std::vector<std::size_t>& window) {
  std::vector<std::unique_ptr<SizeState>> states;
  states.reserve(window.size());
  for (std::size_t s : window) states.push_back(states_.make(s));
  std::size_t cursor = 0;
  bool in_time = true;
  while (auto next = kernels_.next(window.front(), cursor)) {
    const std::size_t c = *next;
    for (auto& st : states) {
      if (done_.count({run_.configs[c].params, run_.sizes[st->index].label})) continue;
      if (run_.o.time_limit_s && ms_since(run_.start) / 1000.0 > *run_.o.time_limit_s) {
        log::warn("time limit of {} s reached: stopping (a re-run resumes)", *run_.o.time_limit_s);
        in_time = false;
        break;
      }
      measure_and_store(c, *st);
    }
    if (!in_time) break;
  }
  for (auto& st : states) {  // each state goes once decided: a decision may add placements to its own
    if (in_time && run_.o.share.part == Part::whole) decider_.decide(st->index, *st);
    states_.drop(st.get());
    st.reset();
  }
  return in_time;
}

// Size after size (each starts from its searched neighbours).
bool Sweep::search_one_size(std::size_t s) {
  auto st = states_.make(s, true);
  const bool in_time = search_size(s, *st);
  kernels_.drop_guesses();
  if (in_time && run_.o.share.part == Part::whole) decider_.decide(s, *st);
  states_.measure_ceilings(*st);  // those no compile wait took (all of them where everything was stored before)
  states_.drop(st.get());
  return in_time;
}

// A size split over MPI ranks: decided from the shares' measurements, merged into this database;
// its ceilings measured on this GPU.
void Sweep::decide_one_size(std::size_t s) {
  auto st = states_.make(s, true);
  decider_.decide(s, *st);
  states_.measure_ceilings(*st);
  states_.drop(st.get());
}

// A configuration that faulted the context costs a recovery.
store::Measurement Sweep::measure_and_store(std::size_t c, SizeState& st) {
  spec::Geometry g;
  const auto t0 = Clock::now();
  store::Measurement m = states_.measure(c, st, g);
  run_.count.measure_ms += ms_since(t0);
  run_.db.record(m);  // durable before anything else can go wrong
  const ConfigState& k = run_.configs[c];
  const std::string& size = run_.sizes[st.index].label;
  if (k.compiled.faulted && m.status == store::MeasurementStatus::runtime_error && !m.error.starts_with("not run"))
    states_.recover(st);
  if (m.status == store::MeasurementStatus::ok) {
    log::debug("{} at {}: grid ({},{},{}) block ({},{},{}): verified, {:.4f} ms ({} samples)", k.params, size,
               g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2], *m.objective, m.samples_ms.size());
    ++run_.count.measured;
  } else {
    ++run_.count.failed;
    log::debug("{} at {}: {}: {}", k.params, size, store::to_string(m.status), m.error.substr(0, 200));
  }
  progress_->update(++progressed_, std::to_string(run_.count.compiled) + " compiled, " +
                                       std::to_string(run_.count.failed) + " failed");
  return m;
}

// Flags of the data (every stored size of this kernel and device, so a resumed run sees its whole
// sweep, and a re-run stores the same flags again, once), the run's end, and the table.
void Sweep::finish(bool out_of_time) {
  const std::string& device = run_.device();
  const auto t0 = Clock::now();
  if (!out_of_time) states_.remeasure_implausible_ceilings();
  const double ceilings_ms = ms_since(t0);
  query::refresh_flags(run_.db, run_.kernel, device);
  run_.db.finish_run(run_.run_id, out_of_time ? store::RunStatus::interrupted : store::RunStatus::completed);
  log::debug("run's end: ceilings checked in {:.0f} ms, flags and the run's record in {:.0f} ms", ceilings_ms,
             ms_since(t0) - ceilings_ms);

  const Counters& count = run_.count;
  query::RunTotals totals;
  totals.compiled = count.compiled;
  totals.cached = count.cached;
  totals.measured = count.measured;
  totals.failed = count.failed;
  totals.compile_s = count.compile_ms / 1000.0;
  totals.measure_s = (count.measure_ms + count.decide_ms) / 1000.0;
  totals.timed_s = count.timed_ms / 1000.0;
  totals.wall_s = ms_since(run_.start) / 1000.0;
  totals.workers = kernels_.workers();
  std::vector<std::string> labels;
  for (const auto& size : run_.sizes) labels.push_back(size.label);
  query::print_run_table(run_.db, run_.kernel, device, labels, totals, run_.o.json, run_.o.wide);
  if (run_.energy && !run_.o.json) {  // the time-energy tradeoff of this run's data (tune best --pareto)
    std::printf("%s\n", run_.energy->describe().c_str());
    if (!query::pareto(run_.db, run_.kernel, device).empty())
      std::printf("%s", query::pareto_text(run_.db, run_.kernel, {device}, run_.o.wide).c_str());
  }
}

int run_engine(const Options& opts, Prepared prepared) {
  const auto t0 = Clock::now();
  int rc = 0;
  {
    Sweep sweep(opts, std::move(prepared));
    rc = sweep.run();
    log::debug("the run's table printed; releasing the GPU and the compilers");
  }
  log::debug("the GPU and the compilers released; {:.0f} ms in all", ms_since(t0));
  return rc;
}

}  // namespace tune::tuning

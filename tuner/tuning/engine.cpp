// The sweep: plan what is left to measure, compile each configuration once (binary cache first,
// then the NVRTC pool, overlapping the measurements), measure every size, flag, report.
#include "tuning/engine.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <thread>

#include "common/error.h"
#include "common/progress.h"
#include "common/ready.h"
#include "compile/source.h"
#include "query/flags.h"
#include "query/table.h"
#include "run/blocker.h"
#include "tuning/sweep.h"

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

// How this run times: the timing method (run::describe), the objective's statistic, the L2 policy.
std::string timing_description(const Options& o, const Extension& ext) {
  run::TimingOptions t;
  t.warmup = o.warmup;
  t.min_samples = o.repetitions;
  t.flush_l2 = o.flush_l2;
  return run::describe(t) + "; objective: the " + std::string(decision::to_string(ext.statistic)) +
         " of the samples; the contenders at each size measured again in " + std::to_string(kDecisionMinRounds) +
         " to " + std::to_string(kDecisionMaxRounds) + " interleaved rounds of one sample on each of up to " +
         std::to_string(kPlacements) + " placements of the arguments, a contender leaving the race once outpaced" +
         (o.flush_l2
              ? std::string()
              : "; where the best takes under " + fmt::format("{:g}", kOtherContextsBelowMs * 1000) +
                    " us and the arguments fit in a quarter of L2, the contenders within " +
                    fmt::format("{:g}", kContenderWidenElsewhere) + " times the tie margin (up to " +
                    std::to_string(kMaxContendersElsewhere) + ") raced on " + std::to_string(kOtherPlacements) +
                    " placements and measured in " + std::to_string(kOtherContexts) + " further CUDA contexts too (" +
                    std::to_string(kDecisionMinRounds) + " rounds on " + std::to_string(kOtherPlacements) +
                    " placements each), each value taken relative to its context's level") +
         "; a contender's value weighs its first pass by " + fmt::format("{:g}", kFirstPassWeight) +
         ", each moment's values relative to their level";
}

// As many compile processes as cores but one, which the measurements keep (--compile-threads says
// otherwise); when none can be started, the run compiles on threads of its own.
std::shared_ptr<compile::CompileProcesses> start_compilers(const Options& o, const std::string& arch) {
  if (!o.compile_server) return nullptr;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = o.compile_threads ? o.compile_threads : std::max(1u, cores - 1);
  try {
    return std::make_shared<compile::CompileProcesses>(*o.compile_server, n, arch);
  } catch (const UnavailableError& e) {
    spdlog::warn("{}: compiling on threads of this process instead", e.what());
    return nullptr;
  }
}

unsigned compile_workers(const Options& o, const compile::CompileProcesses* compilers) {
  return compilers ? compilers->count() : o.compile_threads;
}

compile::CompilePool::CompileFn compile_fn(const std::shared_ptr<compile::CompileProcesses>& compilers) {
  if (!compilers) return compile::compile;
  return [compilers](const compile::CompileRequest& r) { return compilers->compile(r); };
}

}  // namespace

Sweep::Sweep(const Options& o, Prepared prepared)
    : o_(o),
      spec_(std::move(prepared.spec)),
      space_(std::move(prepared.space)),
      ext_(parse_extension(spec_)),
      source_(compile::read_kernel_source(spec_.kernel.file_path, spec_.path.string() + ": KernelFile",
                                          {.name = spec_.kernel.file})
                  .text),
      kernel_(spec_.kernel.name),
      space_hash_(spec::space_hash(spec_)),
      nvrtc_(compile::nvrtc_version()),
      session_(o.device),
      db_(store::Store::open(o.db, store::Store::Mode::read_write)),
      compilers_(start_compilers(o, session_.device().arch)),
      pool_(compile_workers(o, compilers_.get()), compile_fn(compilers_)),
      captures_(std::move(prepared.captures)) {
  spdlog::info("device: {}", session_.device().summary());
  store::RunInfo info = gpu_run_info(o_, spec_, session_.device());
  info.timing = timing_description(o_, parse_extension(spec_)) + "; " + session_.clocks_note();
  run_id_ = db_.begin_run(info);
  for (const auto& a : spec_.kernel.arguments) modifies_inputs_ = modifies_inputs_ || a.read_and_written();
  timing_.warmup = o_.warmup;
  timing_.min_samples = o_.repetitions;
  timing_.flush_l2 = o_.flush_l2;
  timing_.placements = static_cast<int>(kFirstPlacements);  // the ceilings are timed as the first measurements
  rule_.statistic = ext_.statistic;
}

// What is already stored is skipped: a re-run of the same command resumes.
void Sweep::plan() {
  const std::string& device = session_.device().name;
  done_ = db_.measured(kernel_, space_hash_, device);
  for (const auto& d : db_.decisions(kernel_, device)) decided_.insert(d.size);
  n_configs_ = space_.size();
  guided_ = o_.strategy != "brute_force";
  // Brute force measures the first max_fevals configurations of the space; a strategy gets the
  // whole space and spends max_fevals per size on it.
  if (!guided_ && o_.max_fevals && static_cast<std::size_t>(*o_.max_fevals) < n_configs_)
    n_configs_ = static_cast<std::size_t>(*o_.max_fevals);
  // the sizes in search order (size_search.h): a guided search starts each from its smaller neighbours
  const int rank = problem_rank(spec_);
  std::vector<sizes::Size> given;
  for (const auto& size : o_.sizes) given.push_back(size.full(rank));
  for (std::size_t i : search_order(given)) sizes_.push_back(SizeTarget::of(given[i]));
  configs_.resize(n_configs_);
  const Share& share = o_.share;
  for (std::size_t c = 0; c < n_configs_; ++c) {
    configs_[c].params = space_.params_json(c);
    config_index_.emplace(configs_[c].params, c);
    configs_[c].id = db_.upsert_configuration_text(kernel_, space_hash_, configs_[c].params);
    if (share.part == Part::decide || (share.part == Part::search && c % share.count != share.index)) continue;
    for (const auto& size : sizes_)
      if (!done_.count({configs_[c].params, size.label})) configs_[c].needed = true, ++todo_;
  }
  if (share.part == Part::decide) {
    todo_ = 0;
    spdlog::info("{} sizes to decide from the measurements stored", sizes_.size());
    return;
  }
  if (guided_) {
    SearchPolicy policy = search_policy(o_);
    if (share.part == Part::search && !o_.max_fevals)  // the space's share, so the shares cover it once
      policy.budget.max_fevals = share_of(n_configs_, share.index, share.count);
    const std::size_t per_size = std::min(n_configs_, policy.budget.max_fevals.value_or(n_configs_));
    search_ = std::make_unique<SizeSearch>(space_, std::move(policy));
    todo_ = per_size * sizes_.size();
    spdlog::info("{} configurations x {} sizes: strategy {} evaluates up to {} per size{}", n_configs_, sizes_.size(),
                 o_.strategy, per_size,
                 share.part == Part::search
                     ? fmt::format(" (share {} of {}; the decision is another process's)", share.index, share.count)
                     : "");
    return;
  }
  if (share.part == Part::search)
    spdlog::info("share {} of {}: the configurations c with c mod {} = {}; the decision is another process's",
                 share.index, share.count, share.count, share.index);
  spdlog::info("{} configurations x {} sizes: {} measurements to take, {} already stored", n_configs_, sizes_.size(),
               todo_, n_configs_ * sizes_.size() - todo_);
}

compile::CompileRequest Sweep::request(std::size_t c, const std::string& kernel_name,
                                       const std::vector<expr::Value>& values) const {
  compile::CompileRequest r;
  r.source = source_;
  r.source_name = spec_.kernel.file;
  r.kernel_name = kernel_name;
  r.defines = defines(spec_, values);
  r.options = spec_.kernel.compiler_options;
  r.arch = session_.device().arch;
  r.tag = c;
  return r;
}

// The one cubin-cache path: the configuration's cache key, and its kernel loaded from the binary
// cache when there. False when it must be compiled.
bool Sweep::load_cached(std::size_t c, const compile::CompileRequest& req) {
  ConfigState& k = configs_[c];
  k.cache_key = compile::cache_key(req, nvrtc_);
  auto bin = db_.get_binary(k.cache_key);
  if (!bin) return false;
  k.compiled.kernel =
      std::make_unique<run::LoadedKernel>(session_, std::vector<char>(bin->cubin.begin(), bin->cubin.end()), kernel_);
  ++count_.cached;
  return true;
}

void Sweep::start_compiles() {
  for (std::size_t c = 0; c < n_configs_; ++c) {
    if (!configs_[c].needed || guided_) continue;  // a guided search compiles what its strategy asks for
    auto req = request(c, kernel_, space_.config_values(c));
    if (load_cached(c, req)) {
      ready_.push_back(c);
    } else {
      pool_.submit(std::move(req));
      ++pending_;
    }
  }
  spdlog::info("{} kernels from the binary cache, {} to compile in {} {}", count_.cached, pending_, pool_.workers(),
               compilers_ ? "processes" : "threads");

  run::Blocker::precompile(session_.device().arch);  // the timing method's kernels, for the first measurement
  if (!ceilings_) ceilings_ = std::make_unique<run::CeilingRegistry>(session_);
  ceilings_->prepare(ext_.ceilings);  // their kernels compile while the sweep begins
  // The reference kernel: compiled once with every parameter at its default; the check kernel
  // (Tune.check needs Tune.reference) the same way. Brute force loads them now; a guided search at
  // its first measurement, so that they compile while the strategy's first configurations do.
  if (!ext_.reference) {
    if (captures_.empty()) spdlog::warn("{}: no Tune.reference: results are timed but not verified", o_.space);
    return;
  }
  const auto defaults = default_values(spec_);
  reference_pending_ = start_helper(request(0, ext_.reference->kernel_name, defaults),
                                    "Tune.reference: the reference kernel", ext_.reference->kernel_name);
  if (ext_.check)
    check_pending_ = start_helper(request(0, ext_.check->kernel_name, defaults), "Tune.check: the check kernel",
                                  ext_.check->kernel_name);
  if (!guided_) load_helpers();
}

// The reference's or check kernel's cubin from the binary cache (every process of an MPI run, and
// every re-run, would compile it again), else its compile started on a thread of its own.
std::optional<PendingHelper> Sweep::start_helper(const compile::CompileRequest& req, std::string what,
                                                 std::string name) {
  PendingHelper p;
  p.key = compile::cache_key(req, nvrtc_);
  p.what = std::move(what);
  p.kernel_name = std::move(name);
  if (auto bin = db_.get_binary(p.key))
    p.cubin = std::move(bin->cubin);
  else
    p.compiling = std::async(std::launch::async, [req] { return compile::compile(req); });
  return p;
}

// Waits for a helper's compile (cached on success) and loads it; InputError when it does not compile.
std::unique_ptr<run::LoadedKernel> Sweep::load_helper(PendingHelper& p) {
  if (p.compiling.valid()) {
    const compile::CompileResult res = p.compiling.get();
    if (!res.ok()) throw InputError(o_.space + ": " + p.what + " does not compile:\n" + res.log);
    spdlog::debug("compiled {} in {:.1f} ms", p.kernel_name, res.wall_ms);
    put_cubin(p.key, res);
    p.cubin.assign(res.cubin.begin(), res.cubin.end());
  }
  return std::make_unique<run::LoadedKernel>(session_, p.cubin, p.kernel_name);
}

bool Sweep::helpers_compiled() const {
  const auto done = [](const std::optional<PendingHelper>& p) { return !p || ready(p->compiling); };
  return done(reference_pending_) && done(check_pending_);
}

void Sweep::load_helpers() {
  if (reference_pending_) reference_ = load_helper(*reference_pending_), reference_pending_.reset();
  if (check_pending_) check_kernel_ = load_helper(*check_pending_), check_pending_.reset();
}

// A compiled cubin into the binary cache, under its key.
void Sweep::put_cubin(const std::string& key, const compile::CompileResult& r) {
  store::CachedBinary b;
  b.key = key;
  b.arch = session_.device().arch;
  b.compiler_version = nvrtc_;
  b.cubin.assign(r.cubin.begin(), r.cubin.end());
  b.log = r.log;
  b.compile_ms = r.wall_ms;
  db_.put_binary(b);
}

// A finished compile: cache the cubin, load it, or keep why there is none.
void Sweep::accept(compile::CompileResult r) {
  const std::size_t c = r.tag;
  Compiled& k = configs_[c].compiled;
  k.compile_ms = r.wall_ms;
  k.resources = r.resources;
  count_.compile_ms += r.wall_ms;
  ++count_.compiled;
  spdlog::debug("compiled {} in {:.1f} ms: {}", configs_[c].params, r.wall_ms, r.ok() ? "ok" : "failed");
  if (!r.ok()) {
    k.status = store::MeasurementStatus::compile_failed;
    k.error = r.log;
    return;
  }
  put_cubin(configs_[c].cache_key, r);
  try {
    k.kernel =
        std::make_unique<run::LoadedKernel>(session_, std::vector<char>(r.cubin.begin(), r.cubin.end()), kernel_);
  } catch (const Error& e) {
    k.status = store::MeasurementStatus::launch_failed;
    k.error = e.what();
  }
}

// The next configuration to measure at size `size_index`: at the first size, in the order compiles
// finish (cache hits first); later, in space order.
std::optional<std::size_t> Sweep::next_config(std::size_t size_index, std::size_t& cursor) {
  if (size_index > 0) {
    while (cursor < n_configs_) {
      std::size_t c = cursor++;
      if (configs_[c].needed) return c;
    }
    return std::nullopt;
  }
  if (cursor < ready_.size()) return ready_[cursor++];
  if (pending_ == 0) return std::nullopt;
  auto r = pool_.next();
  --pending_;
  const std::size_t c = r->tag;
  accept(std::move(*r));
  ready_.push_back(c);
  return ready_[cursor++];
}

int Sweep::run() {
  plan();
  start_compiles();
  start_other_contexts();
  progress_ = std::make_unique<Progress>("measuring", todo_);
  bool out_of_time = false;
  if (o_.share.part == Part::decide) {
    for (std::size_t s = 0; s < sizes_.size(); ++s) decide_one_size(s);
  } else if (guided_) {
    for (std::size_t s = 0; s < sizes_.size() && !out_of_time; ++s) out_of_time = !search_one_size(s);
  } else {
    // windows of consecutive sizes whose states take at most a quarter of the device's memory
    const std::size_t budget = session_.device().global_memory_bytes / 4;
    std::vector<std::size_t> window;
    std::size_t bytes = 0;
    for (std::size_t s = 0; s <= sizes_.size() && !out_of_time; ++s) {
      const bool end = s == sizes_.size();
      if (!end && !size_needs_work(s)) continue;
      const std::size_t need = end ? 0 : state_bytes(s);
      if (!window.empty() && (end || bytes + need > budget)) {
        out_of_time = !measure_window(window);
        window.clear();
        bytes = 0;
      }
      if (!end) window.push_back(s), bytes += need;
    }
  }
  // Compiles nobody waits for (a time limit; a guided search's last compile-ahead guesses): the
  // finished ones go to the binary cache, the rest are given up rather than waited for (an NVRTC
  // call cannot be stopped; on an H100 host they held a guided run's end up for 0.1 to 1.8 s).
  accept_finished();
  drop_guesses();
  if (pending_ > 0) {
    spdlog::debug("{} compiles in progress that nobody waits for: given up", pending_);
    if (compilers_) compilers_->stop();  // a compile in a process ends at once
    pool_.abandon();
    ahead_.clear();
    pending_ = 0;
  }
  progress_->finish();
  finish(out_of_time);
  return 0;
}

// Flags of the data (every stored size of this kernel and device, so a resumed run sees its whole
// sweep, and a re-run stores the same flags again, once), the run's end, and the table.
void Sweep::finish(bool out_of_time) {
  const std::string& device = session_.device().name;
  const auto t0 = Clock::now();
  if (!out_of_time) remeasure_implausible_ceilings();
  const double ceilings_ms = ms_since(t0);
  query::refresh_flags(db_, kernel_, device);
  db_.finish_run(run_id_, out_of_time ? store::RunStatus::interrupted : store::RunStatus::completed);
  spdlog::debug("run's end: ceilings checked in {:.0f} ms, flags and the run's record in {:.0f} ms", ceilings_ms,
                ms_since(t0) - ceilings_ms);

  query::RunTotals totals;
  totals.compiled = count_.compiled;
  totals.cached = count_.cached;
  totals.measured = count_.measured;
  totals.failed = count_.failed;
  totals.compile_s = count_.compile_ms / 1000.0;
  totals.measure_s = (count_.measure_ms + count_.decide_ms) / 1000.0;
  totals.timed_s = count_.timed_ms / 1000.0;
  totals.wall_s = ms_since(start_) / 1000.0;
  totals.workers = pool_.workers();
  std::vector<std::string> labels;
  for (const auto& size : sizes_) labels.push_back(size.label);
  query::print_run_table(db_, kernel_, device, labels, totals, o_.json, o_.wide);
}

int run_engine(const Options& opts, Prepared prepared) {
  const auto t0 = Clock::now();
  int rc = 0;
  {
    Sweep sweep(opts, std::move(prepared));
    rc = sweep.run();
    spdlog::debug("the run's table printed; releasing the GPU and the compilers");
  }
  spdlog::debug("the GPU and the compilers released; {:.0f} ms in all", ms_since(t0));
  return rc;
}

}  // namespace tune::tuning

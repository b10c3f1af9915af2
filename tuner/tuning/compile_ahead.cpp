#include "tuning/compile_ahead.h"
#include "log/log.h"

#include <algorithm>
#include <thread>

#include "common/error.h"
#include "common/ready.h"
#include "spec/bind.h"

namespace tune::tuning {

namespace {

// As many compile processes as cores but one, which the measurements keep (--compile-threads says
// otherwise); when none can be started, the run compiles on threads of its own.
std::shared_ptr<compile::CompileProcesses> start_compilers(const Options& o, const std::string& arch) {
  if (!o.compile_server) return nullptr;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  const unsigned n = o.compile_threads ? o.compile_threads : std::max(1u, cores - 1);
  try {
    return std::make_shared<compile::CompileProcesses>(*o.compile_server, n, arch);
  } catch (const UnavailableError& e) {
    log::warn("{}: compiling on threads of this process instead", e.what());
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

CompileAhead::CompileAhead(GpuRun& run)
    : run_(run),
      nvrtc_(compile::nvrtc_version()),
      arch_(run.arch),
      compilers_(start_compilers(run.o, arch_)),
      pool_(compile_workers(run.o, compilers_.get()), compile_fn(compilers_)) {}

compile::CompileRequest CompileAhead::request(std::size_t c, const std::string& kernel_name,
                                              const std::vector<expr::Value>& values) const {
  compile::CompileRequest r;
  r.source = run_.source;
  r.source_name = run_.spec.kernel.file;
  r.kernel_name = kernel_name;
  r.defines = spec::defines(run_.spec, values);
  r.options = run_.spec.kernel.compiler_options;
  r.arch = arch_;
  r.tag = c;
  return r;
}

// The one cubin-cache path: the configuration's cache key, and its kernel loaded from the binary
// cache when there. False when it must be compiled.
bool CompileAhead::load_cached(std::size_t c, const compile::CompileRequest& req) {
  ConfigState& k = run_.configs[c];
  k.cache_key = compile::cache_key(req, nvrtc_);
  auto bin = run_.db.get_binary(k.cache_key);
  if (!bin) return false;
  k.compiled.kernel = std::make_unique<run::LoadedKernel>(
      run_.session, std::vector<char>(bin->cubin.begin(), bin->cubin.end()), run_.kernel);
  ++run_.count.cached;
  return true;
}

void CompileAhead::start_configs(bool guided) {
  for (std::size_t c = 0; c < run_.configs.size(); ++c) {
    if (!run_.configs[c].needed || guided) continue;  // a guided search compiles what its strategy asks for
    auto req = request(c, run_.kernel, run_.space.config_values(c));
    if (load_cached(c, req)) {
      ready_.push_back(c);
    } else {
      pool_.submit(std::move(req));
      ++pending_;
    }
  }
  log::info("{} kernels from the binary cache, {} to compile in {} {}", run_.count.cached, pending_, pool_.workers(),
            compilers_ ? "processes" : "threads");
}

void CompileAhead::start_helpers(bool guided) {
  const spec::Extension& ext = run_.ext;
  if (!ext.reference) {
    if (run_.captures.empty()) log::warn("{}: no Tune.reference: results are timed but not verified", run_.o.space);
    return;
  }
  const auto defaults = spec::default_values(run_.spec);
  reference_pending_ = start_helper(request(0, ext.reference->kernel_name, defaults),
                                    "Tune.reference: the reference kernel", ext.reference->kernel_name);
  if (ext.check)
    check_pending_ = start_helper(request(0, ext.check->kernel_name, defaults), "Tune.check: the check kernel",
                                  ext.check->kernel_name);
  if (!guided) load_helpers();
}

// The reference's or check kernel's cubin from the binary cache (every process of an MPI run, and
// every re-run, would compile it again), else its compile started on a thread of its own.
std::optional<PendingHelper> CompileAhead::start_helper(const compile::CompileRequest& req, std::string what,
                                                        std::string name) {
  PendingHelper p;
  p.key = compile::cache_key(req, nvrtc_);
  p.what = std::move(what);
  p.kernel_name = std::move(name);
  if (auto bin = run_.db.get_binary(p.key))
    p.cubin = std::move(bin->cubin);
  else
    p.compiling = std::async(std::launch::async, [req] { return compile::compile(req); });
  return p;
}

// Waits for a helper's compile (cached on success) and loads it; InputError when it does not compile.
std::unique_ptr<run::LoadedKernel> CompileAhead::load_helper(PendingHelper& p) {
  if (p.compiling.valid()) {
    const compile::CompileResult res = p.compiling.get();
    if (!res.ok()) throw InputError(run_.o.space + ": " + p.what + " does not compile:\n" + res.log);
    log::debug("compiled {} in {:.1f} ms", p.kernel_name, res.wall_ms);
    put_cubin(p.key, res);
    p.cubin.assign(res.cubin.begin(), res.cubin.end());
  }
  return std::make_unique<run::LoadedKernel>(run_.session, p.cubin, p.kernel_name);
}

bool CompileAhead::helpers_compiled() const {
  const auto done = [](const std::optional<PendingHelper>& p) { return !p || ready(p->compiling); };
  return done(reference_pending_) && done(check_pending_);
}

void CompileAhead::load_helpers() {
  if (reference_pending_) reference_ = load_helper(*reference_pending_), reference_pending_.reset();
  if (check_pending_) check_kernel_ = load_helper(*check_pending_), check_pending_.reset();
}

// A compiled cubin into the binary cache, under its key.
void CompileAhead::put_cubin(const std::string& key, const compile::CompileResult& r) {
  store::CachedBinary b;
  b.key = key;
  b.arch = arch_;
  b.compiler_version = nvrtc_;
  b.cubin.assign(r.cubin.begin(), r.cubin.end());
  b.log = r.log;
  b.compile_ms = r.wall_ms;
  run_.db.put_binary(b);
}

// A finished compile: cache the cubin, load it, or keep why there is none.
void CompileAhead::accept(compile::CompileResult r) {
  const std::size_t c = r.tag;
  Compiled& k = run_.configs[c].compiled;
  k.compile_ms = r.wall_ms;
  k.resources = r.resources;
  run_.count.compile_ms += r.wall_ms;
  ++run_.count.compiled;
  log::debug("compiled {} in {:.1f} ms: {}", run_.configs[c].params, r.wall_ms, r.ok() ? "ok" : "failed");
  if (!r.ok()) {
    k.status = store::MeasurementStatus::compile_failed;
    k.error = r.log;
    return;
  }
  put_cubin(run_.configs[c].cache_key, r);
  try {
    k.kernel = std::make_unique<run::LoadedKernel>(run_.session, std::vector<char>(r.cubin.begin(), r.cubin.end()),
                                                   run_.kernel);
  } catch (const Error& e) {
    k.status = store::MeasurementStatus::launch_failed;
    k.error = e.what();
  }
}

std::optional<std::size_t> CompileAhead::next(std::size_t size_index, std::size_t& cursor) {
  if (size_index > 0) {
    while (cursor < run_.configs.size()) {
      std::size_t c = cursor++;
      if (run_.configs[c].needed) return c;
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

CompileAhead::Readiness CompileAhead::ensure(std::size_t c, const std::function<bool()>& idle) {
  Compiled& k = run_.configs[c].compiled;
  if (k.settled()) return Readiness::ready;
  const Readiness was = ahead_.contains(c) ? Readiness::hinted : Readiness::not_hinted;
  if (was == Readiness::hinted) {
    if (pool_.withdraw(c)) {  // still queued behind other guesses: compile it here, now
      ahead_.erase(c);
      --pending_;
    } else {  // in progress (or done): wait for it, taking the others that finish first
      bool busy = static_cast<bool>(idle);
      while (ahead_.contains(c)) {
        if (busy && (busy = idle())) {  // other work while it compiles
          accept_finished();
          continue;
        }
        auto r = pool_.next();
        if (!r) break;
        --pending_;
        ahead_.erase(r->tag);
        accept(std::move(*r));
      }
      if (k.settled()) return was;
    }
  }
  auto req = request(c, run_.kernel, run_.space.config_values(c));
  if (!load_cached(c, req)) accept(compile::compile(req));
  return was;
}

bool CompileAhead::compiled_now(std::size_t c) {
  accept_finished();
  return run_.configs[c].compiled.settled();
}

void CompileAhead::accept_finished() {
  while (auto r = pool_.try_next()) {
    --pending_;
    ahead_.erase(r->tag);
    accept(std::move(*r));
  }
}

void CompileAhead::drop_guesses() {
  for (const std::uint64_t c : pool_.drop_queued()) ahead_.erase(c), --pending_;
}

void CompileAhead::prefetch(const std::vector<std::size_t>& configs) {
  accept_finished();
  drop_guesses();
  for (std::size_t c : configs) {
    const Compiled& k = run_.configs[c].compiled;
    if (k.settled() || ahead_.contains(c)) continue;
    auto req = request(c, run_.kernel, run_.space.config_values(c));
    if (load_cached(c, req)) continue;
    pool_.submit(std::move(req));
    ahead_.insert(c);
    ++pending_;
  }
}

// Compiles nobody waits for (a time limit; a guided search's last compile-ahead guesses): an
// NVRTC call cannot be stopped, and waiting for them held a guided run's end up by seconds.
void CompileAhead::finish() {
  accept_finished();
  drop_guesses();
  if (pending_ == 0) return;
  log::debug("{} compiles in progress that nobody waits for: given up", pending_);
  if (compilers_) compilers_->stop();  // a compile in a process ends at once
  pool_.abandon();
  ahead_.clear();
  pending_ = 0;
}

}  // namespace tune::tuning

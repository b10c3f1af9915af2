#include "tuning/engine.h"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "common/error.h"
#include "common/progress.h"
#include "compile/pool.h"
#include "run/args.h"
#include "run/ceilings.h"
#include "run/kernel.h"
#include "run/session.h"
#include "run/timing.h"
#include "run/verify.h"
#include "space/space.h"
#include "store/store.h"
#include "run/isolate.h"
#include "tuning/analysis.h"
#include "tuning/device_check.h"
#include "tuning/extension.h"
#include "tuning/launch.h"
#include "query/table.h"

namespace tune::tuning {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t) { return std::chrono::duration<double, std::milli>(Clock::now() - t).count(); }

std::string read_file(const std::filesystem::path& p) {
  std::ifstream f(p, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

std::vector<run::ArgSpec> arg_specs(const spec::Spec& spec, const sizes::Size& size) {
  std::vector<run::ArgSpec> out;
  for (const auto& a : arguments(spec, size)) {
    run::ArgSpec s;
    s.name = a.name;
    s.dtype = a.type;
    s.scalar = a.scalar;
    s.count = a.scalar ? 1 : a.count;
    s.fill = a.fill_type == "Random" ? run::FillKind::random : run::FillKind::constant;
    s.fill_value = a.fill_value.is_number() ? a.fill_value.as_float() : (a.fill_type == "Random" ? 1.0 : 0.0);
    s.output = a.output && !a.scalar;
    out.push_back(std::move(s));
  }
  return out;
}

run::Dim3 dim3(const std::array<std::uint32_t, 3>& d) { return {d[0], d[1], d[2]}; }

// One configuration's compiled kernel (or why it has none).
struct Compiled {
  std::unique_ptr<run::LoadedKernel> kernel;
  store::MeasurementStatus status = store::MeasurementStatus::ok;
  std::string error;
  double compile_ms = 0;
  compile::Resources resources;
  bool faulted = false;
};

struct Counters {
  std::size_t compiled = 0, cached = 0, measured = 0, failed = 0, skipped = 0;
  double compile_ms = 0, measure_ms = 0;
};

}  // namespace

int run_engine(const Options& o) {
  const auto t_start = Clock::now();
  auto spec = spec::load(o.space);
  auto space = space::Space::build(spec);
  const Extension ext = parse_extension(spec);
  const std::string source = read_file(spec.kernel.file_path);
  const std::string kernel = spec.kernel.name;
  const std::string shash = spec::space_hash(spec);

  run::Session session(o.device);
  const run::DeviceInfo& dev = session.device();
  spdlog::info("device: {}", dev.summary());
  auto db = store::Store::open(o.db, store::Store::Mode::read_write);

  store::RunInfo info;
  info.spec_path = o.space;
  info.spec_hash = spec.content_hash;
  info.kernel = kernel;
  info.device = dev.name;
  info.compute_capability = dev.compute_capability;
  info.driver_version = dev.driver_version;
  info.runtime_version = dev.runtime_version;
  info.nvrtc_version = compile::nvrtc_version();
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  info.host = host;
  info.command_line = o.command_line;
  info.strategy = o.strategy;
  nlohmann::json budget = nlohmann::json::object();
  if (o.max_fevals) budget["max_fevals"] = *o.max_fevals;
  if (o.time_limit_s) budget["time_limit_s"] = *o.time_limit_s;
  info.budget = budget.dump();
  const std::int64_t run_id = db.begin_run(info);

  // What is already stored is skipped: a re-run of the same command resumes.
  std::set<store::MeasuredKey> done = db.measured(kernel, shash, dev.name);
  std::size_t n_configs = space.size();
  if (o.max_fevals && static_cast<std::size_t>(*o.max_fevals) < n_configs) n_configs = static_cast<std::size_t>(*o.max_fevals);
  std::vector<std::string> params(n_configs), size_text(o.sizes.size());
  std::vector<std::int64_t> config_id(n_configs);
  std::vector<sizes::Size> problem(o.sizes.size());
  for (std::size_t s = 0; s < o.sizes.size(); ++s) {
    auto dims = o.sizes[s].as_rank(problem_rank(spec));
    problem[s] = sizes::Size{dims, std::max(problem_rank(spec), o.sizes[s].rank)};
    size_text[s] = problem[s].label();
  }
  std::vector<bool> needed(n_configs, false);
  std::size_t todo = 0;
  for (std::size_t c = 0; c < n_configs; ++c) {
    params[c] = space.params_json(c);
    config_id[c] = db.upsert_configuration_text(kernel, shash, params[c]);
    for (std::size_t s = 0; s < problem.size(); ++s)
      if (!done.count({params[c], size_text[s]})) needed[c] = true, ++todo;
  }
  spdlog::info("{} configurations x {} sizes: {} measurements to take, {} already stored", n_configs, problem.size(),
               todo, n_configs * problem.size() - todo);

  Counters count;
  std::vector<Compiled> compiled(n_configs);
  const std::string nvrtc = compile::nvrtc_version();
  compile::CompilePool pool;
  std::vector<std::string> keys(n_configs);
  std::size_t pending = 0;
  std::vector<std::size_t> ready;  // configurations with a cached or compiled result, in arrival order
  auto make_request = [&](std::size_t c) {
    compile::CompileRequest r;
    r.source = source;
    r.source_name = spec.kernel.file;
    r.kernel_name = kernel;
    r.defines = defines(spec, space.config_values(c));
    r.options = spec.kernel.compiler_options;
    r.arch = dev.arch;
    r.tag = c;
    return r;
  };
  for (std::size_t c = 0; c < n_configs; ++c) {
    if (!needed[c]) continue;
    auto req = make_request(c);
    keys[c] = compile::cache_key(req, nvrtc);
    if (auto bin = db.get_binary(keys[c])) {
      compiled[c].kernel = std::make_unique<run::LoadedKernel>(session, std::vector<char>(bin->cubin.begin(), bin->cubin.end()), kernel);
      compiled[c].compile_ms = 0;
      ++count.cached;
      ready.push_back(c);
    } else {
      pool.submit(std::move(req));
      ++pending;
    }
  }
  spdlog::info("{} kernels from the binary cache, {} to compile on {} threads", count.cached, pending, pool.workers());

  auto accept = [&](compile::CompileResult r) {
    std::size_t c = r.tag;
    Compiled& k = compiled[c];
    k.compile_ms = r.wall_ms;
    k.resources = r.resources;
    count.compile_ms += r.wall_ms;
    ++count.compiled;
    spdlog::debug("compiled {} in {:.1f} ms: {}", params[c], r.wall_ms, r.ok() ? "ok" : "failed");
    if (!r.ok()) {
      k.status = store::MeasurementStatus::compile_failed;
      k.error = r.log;
      return;
    }
    store::CachedBinary b;
    b.key = keys[c];
    b.arch = dev.arch;
    b.compiler_version = nvrtc;
    b.cubin.assign(r.cubin.begin(), r.cubin.end());
    b.log = r.log;
    b.compile_ms = r.wall_ms;
    db.put_binary(b);
    try {
      k.kernel = std::make_unique<run::LoadedKernel>(session, std::vector<char>(r.cubin.begin(), r.cubin.end()), kernel);
    } catch (const Error& e) {
      k.status = store::MeasurementStatus::launch_failed;
      k.error = e.what();
    }
  };

  // The reference kernel: compiled once with every parameter at its default.
  std::unique_ptr<run::LoadedKernel> reference;
  if (ext.reference) {
    compile::CompileRequest r;
    r.source = source;
    r.source_name = spec.kernel.file;
    r.kernel_name = ext.reference->kernel_name;
    r.defines = defines(spec, default_values(spec));
    r.options = spec.kernel.compiler_options;
    r.arch = dev.arch;
    auto res = compile::compile(r);
    if (!res.ok()) throw InputError(o.space + ": Tune.reference: the reference kernel does not compile:\n" + res.log);
    reference = std::make_unique<run::LoadedKernel>(session, std::vector<char>(res.cubin.begin(), res.cubin.end()),
                                                    ext.reference->kernel_name);
  } else {
    spdlog::warn("{}: no Tune.reference: results are timed but not verified", o.space);
  }

  DeviceCheck check(session);
  bool modifies_inputs = false;
  for (const auto& a : spec.kernel.arguments) modifies_inputs = modifies_inputs || a.access_type == "ReadWrite";
  run::TimingOptions topts;
  topts.warmup = o.warmup;
  topts.repetitions = o.repetitions;
  topts.flush_l2 = o.flush_l2;
  const auto defaults = default_values(spec);

  std::vector<SizeResult> sweep(problem.size());
  Progress progress("measuring", todo);
  std::size_t progressed = 0;
  bool out_of_time = false;

  for (std::size_t s = 0; s < problem.size() && !out_of_time; ++s) {
    const sizes::Size& size = problem[s];
    sweep[s].size = size_text[s];
    sweep[s].elements = double(size.dims[0]) * double(size.dims[1]) * double(size.dims[2]);
    bool work = false;
    for (std::size_t c = 0; c < n_configs && !work; ++c) work = needed[c] && !done.count({params[c], size_text[s]});
    if (!work && (s > 0 || pending == 0)) continue;  // all stored: no reference, no ceilings
    run::ArgSet args(session, arg_specs(spec, size), o.seed);
    std::vector<std::size_t> outputs;
    for (std::size_t a = 0; a < args.size(); ++a)
      if (args.spec(a).output) outputs.push_back(a);
    auto bound_default = bind_config(spec, defaults, size);
    const double bytes = ext.bytes ? evaluate_number(spec, *ext.bytes, bound_default) : 0;
    const double flops = ext.flops ? evaluate_number(spec, *ext.flops, bound_default) : 0;

    // Reference outputs for this size, kept on the device (again after a recovery).
    auto prepare_reference = [&] {
      if (!reference) return;
      run::Dim3 grid, block;
      unsigned* gd[3] = {&grid.x, &grid.y, &grid.z};
      unsigned* bd[3] = {&block.x, &block.y, &block.z};
      for (int d = 0; d < 3; ++d) {
        if (ext.reference->grid[d]) *gd[d] = static_cast<unsigned>(evaluate_number(spec, *ext.reference->grid[d], bound_default));
        if (ext.reference->block[d]) *bd[d] = static_cast<unsigned>(evaluate_number(spec, *ext.reference->block[d], bound_default));
      }
      args.refill();
      args.poison_outputs();
      auto st = reference->launch(grid, block, 0, args);
      if (!st.ok()) throw Error("the reference kernel failed at size " + size_text[s] + ": " + st.message);
      for (std::size_t a : outputs)
        if (auto unwritten = run::count_unwritten(args.dtype(a), args.buffer(a)))
          throw Error("the reference kernel left " + std::to_string(unwritten) + " elements of '" + args.spec(a).name +
                      "' unwritten at size " + size_text[s]);
      check.keep_reference(args, outputs);
    };
    prepare_reference();
    auto recover = [&] {  // after a sticky fault, once the failure is stored
      check.forget();
      session.recover();  // throws DeviceLostError where the driver wants a fresh process
      prepare_reference();
    };

    // Ceilings at this size, same timing policy.
    for (const auto& name : ext.ceilings) {
      run::Ceiling c;
      if (name == "d2d_copy") c = run::d2d_copy(session, static_cast<std::size_t>(bytes / 2), topts);
      else if (name == "cublas_sgeam") c = run::cublas_sgeam_transpose(session, size.dims[1], size.dims[0], topts);
      else c = run::cublas_sgemm(session, size.dims[0], size.dims[1], size.dims[2], topts);
      if (!c.ok()) {
        spdlog::warn("ceiling {} at {}: {}", name, size_text[s], c.timing.ok() ? c.check : c.timing.status.message);
        if (c.timing.status.sticky()) recover();
        continue;
      }
      store::Ceiling sc;
      sc.run_id = run_id;
      sc.device = dev.name;
      sc.size = size_text[s];
      sc.name = name;
      sc.median_ms = c.median_ms;
      if (c.unit == "GB/s") sc.gbps = c.value;
      else sc.gflops = c.value;
      for (double v : c.timing.samples_ms) sc.samples_ms.push_back(static_cast<float>(v));
      db.record_ceiling(sc);
    }

    // Every configuration at this size; during the first size, compiles arrive as they finish.
    std::vector<std::size_t> order;
    std::size_t next_ready = 0;
    auto next_config = [&]() -> std::optional<std::size_t> {
      if (s > 0) {
        while (next_ready < n_configs) {
          std::size_t c = next_ready++;
          if (needed[c]) return c;
        }
        return std::nullopt;
      }
      if (next_ready < ready.size()) return ready[next_ready++];
      if (pending == 0) return std::nullopt;
      auto r = pool.next();
      --pending;
      std::size_t c = r->tag;
      accept(std::move(*r));
      ready.push_back(c);
      return ready[next_ready++];
    };
    while (auto next = next_config()) {
      std::size_t c = *next;
      if (done.count({params[c], size_text[s]})) continue;
      if (o.time_limit_s && ms_since(t_start) / 1000.0 > *o.time_limit_s) {
        spdlog::warn("time limit of {} s reached: stopping (a re-run resumes)", *o.time_limit_s);
        out_of_time = true;
        break;
      }
      Compiled& k = compiled[c];
      store::Measurement m;
      m.config_id = config_id[c];
      m.run_id = run_id;
      m.device = dev.name;
      m.size = store::ProblemSize::parse(size_text[s]);
      m.compile_ms = k.compile_ms;
      auto t0 = Clock::now();
      auto bound = bind_config(spec, space.config_values(c), size);
      Geometry g;
      try {
        g = geometry(spec, bound);
      } catch (const InputError& e) {
        k.status = store::MeasurementStatus::restricted;
        k.error = e.what();
      }
      if (k.status == store::MeasurementStatus::ok && k.faulted) {
        m.status = store::MeasurementStatus::runtime_error;
        m.error = "not run: this configuration faulted the GPU context at an earlier size in this run";
      } else if (k.status != store::MeasurementStatus::ok) {
        m.status = k.status;
        m.error = k.error;
      } else if (g.threads_per_block() > static_cast<std::uint64_t>(dev.max_threads_per_block)) {
        m.status = store::MeasurementStatus::restricted;
        m.error = "block of " + std::to_string(g.threads_per_block()) + " threads exceeds the device limit of " +
                  std::to_string(dev.max_threads_per_block);
      } else if (auto why = compile::check_launch(k.resources, static_cast<int>(g.threads_per_block()), 0); k.resources.parsed && !why.empty()) {
        m.status = store::MeasurementStatus::launch_failed;
        m.error = why;
      } else {
        run::LoadedKernel& kern = *k.kernel;
        // Verify first, with poisoned outputs, against the reference. Inputs are re-uploaded only
        // when the kernel may change them (ReadWrite arguments): uploads dominate otherwise.
        if (modifies_inputs) args.refill();
        args.poison_outputs();
        auto st = kern.launch(dim3(g.grid), dim3(g.block), 0, args);
        if (!st.ok()) {
          m.status = st.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
          m.error = st.message;
          if (st.sticky()) {
            k.faulted = true;
            spdlog::warn("{} at {} faulted the context: {}; recovering", params[c], size_text[s], st.message);
          }
        } else {
          if (check.has_reference()) {
            std::string diff = check.compare(args, outputs, ext.relative_tolerance, ext.absolute_tolerance);
            if (!diff.empty()) {
              m.status = store::MeasurementStatus::verification_failed;
              m.error = diff;
            }
          }
          m.verification_ms = ms_since(t0);
        }
        if (m.status == store::MeasurementStatus::ok) {
          auto tb = Clock::now();
          auto timing = run::measure(session, [&] { return kern.enqueue(dim3(g.grid), dim3(g.block), 0, args); }, topts);
          m.benchmark_ms = ms_since(tb);
          if (!timing.ok()) {
            m.status = timing.status.sticky() ? store::MeasurementStatus::runtime_error : store::MeasurementStatus::launch_failed;
            m.error = timing.status.message;
            if (timing.status.sticky()) k.faulted = true;
          } else {
            for (double v : timing.samples_ms) m.samples_ms.push_back(static_cast<float>(v));
            double med = timing.summary.median;
            m.objective = med;
            if (bytes > 0) m.gbps = bytes / med / 1e6;
            if (flops > 0) m.gflops = flops / med / 1e6;
          }
        }
      }
      count.measure_ms += ms_since(t0);
      db.record(m);  // durable before anything else can go wrong
      if (k.faulted && m.status == store::MeasurementStatus::runtime_error && !m.error.starts_with("not run")) {
        try {
          recover();
        } catch (const run::DeviceLostError&) {
          db.finish_run(run_id, store::RunStatus::interrupted);
          throw;
        }
      }
      if (m.status == store::MeasurementStatus::ok) {
        spdlog::debug("{} at {}: grid ({},{},{}) block ({},{},{}): verified, median {:.4f} ms of {} launches", params[c],
                      size_text[s], g.grid[0], g.grid[1], g.grid[2], g.block[0], g.block[1], g.block[2], *m.objective,
                      m.samples_ms.size());
        ++count.measured;
        double thr = m.gbps ? *m.gbps : (m.gflops ? *m.gflops : sweep[s].elements / *m.objective);
        sweep[s].throughput[params[c]] = thr;
      } else {
        ++count.failed;
        spdlog::debug("{} at {}: {}: {}", params[c], size_text[s], store::to_string(m.status), m.error.substr(0, 200));
      }
      progress.update(++progressed, std::to_string(count.compiled) + " compiled, " + std::to_string(count.failed) + " failed");
    }
  }
  progress.finish();
  // Drain compiles nobody waited for (time limit).
  while (pending > 0) {
    auto r = pool.next();
    --pending;
    if (r) accept(std::move(*r));
  }

  // Flags: sizes where the best changes or throughput dips (partition camping), over everything
  // stored for this kernel and device, so a resumed run sees the whole sweep.
  for (std::size_t s = 0; s < problem.size(); ++s) {
    if (!sweep[s].throughput.empty()) continue;
    store::MeasurementFilter f;
    f.kernel = kernel;
    f.device = dev.name;
    f.size = size_text[s];
    f.space_hash = shash;
    for (const auto& m : db.measurements(f))
      if (m.summary && m.summary->median > 0)
        sweep[s].throughput[m.params] = m.gbps ? *m.gbps : (m.gflops ? *m.gflops : sweep[s].elements / m.summary->median);
  }
  auto flags = find_flags(sweep);
  for (const auto& f : flags) {
    store::Flag fl;
    fl.run_id = run_id;
    fl.kernel = kernel;
    fl.device = dev.name;
    fl.size = f.size;
    fl.kind = store::parse_flag_kind(f.kind);
    fl.text = f.text;
    db.record_flag(fl);
  }
  db.finish_run(run_id, out_of_time ? store::RunStatus::interrupted : store::RunStatus::completed);

  query::RunTotals totals;
  totals.compiled = count.compiled;
  totals.cached = count.cached;
  totals.measured = count.measured;
  totals.failed = count.failed;
  totals.compile_s = count.compile_ms / 1000.0;
  totals.measure_s = count.measure_ms / 1000.0;
  totals.wall_s = ms_since(t_start) / 1000.0;
  totals.workers = pool.workers();
  std::vector<std::string> flag_lines;
  for (const auto& f : flags) flag_lines.push_back(f.size + " " + f.kind + ": " + f.text);
  query::print_run_table(db, kernel, dev.name, size_text, flag_lines, totals, o.json);
  return 0;
}

}  // namespace tune::tuning

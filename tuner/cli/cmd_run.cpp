// tune [run]: tune a kernel over problem sizes on the GPU.

#include <algorithm>
#include <filesystem>
#include <string_view>

#include "cli/commands.h"
#include "decision/objective.h"
#include "log/log.h"
#ifdef TUNE_HAVE_MPI
#include "mpi/ranks.h"
#include "run/device.h"
#endif
#include "common/error.h"
#include "common/launcher.h"
#include "common/output_file.h"
#include "compile/source.h"
#include "run/isolate.h"
#include "search/search.h"
#include "spec/spec.h"
#include "tuning/tuner.h"

namespace tune::cli {

namespace {
std::string strategy_help() {
  std::string names;
  for (const auto& s : search::strategies()) names += (names.empty() ? "" : ", ") + s.name;
  return "search strategy: " + names + " (default: the spec's Search.Name, else " +
         std::string(tuning::kDefaultStrategy) + ")";
}

constexpr std::size_t kMaxShares = 4096;

// --share I/K: decimal I < K, 2 <= K <= kMaxShares.
tuning::Share parse_share(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return InputError("bad --share '" + text + "': " + why +
                      " (expected I/K, 0 <= I < K, 2 <= K <= " + std::to_string(kMaxShares) + ")");
  };
  const auto slash = text.find('/');
  if (slash == std::string::npos) throw bad("no '/'");
  const auto number = [&](std::string_view digits) {
    if (digits.empty() || digits.size() > 4 || digits.find_first_not_of("0123456789") != std::string_view::npos)
      throw bad("'" + std::string(digits) + "' is not a number up to " + std::to_string(kMaxShares));
    return static_cast<std::size_t>(std::stoul(std::string(digits)));
  };
  tuning::Share s;
  s.part = tuning::Part::search;
  s.index = number(std::string_view(text).substr(0, slash));
  s.count = number(std::string_view(text).substr(slash + 1));
  if (s.count < 2 || s.count > kMaxShares) throw bad("K out of range");
  if (s.index >= s.count) throw bad("I must be less than K");
  return s;
}

// The database is what the run writes: never one of its inputs (the spec, its KernelFile, a
// replayed cache, a capture file), whatever path names it.
void refuse_input_as_database(const tuning::Options& o, const spec::Spec& spec) {
  std::vector<std::string> inputs{o.space};
  for (const auto& f : compile::kernel_files(spec.kernel.file_path)) inputs.push_back(f.string());
  inputs.insert(inputs.end(), o.replay.begin(), o.replay.end());
  inputs.insert(inputs.end(), o.capture.begin(), o.capture.end());
  for (const auto& in : inputs)
    if (same_file(o.db, in))
      throw InputError("--db " + o.db + " is the input " + in + ": refusing to write the database over it");
}

// One run's work in its database: the kernel, the device and the sizes (or the replayed caches or
// captures), and the share of a split run. Two processes with the same work would measure the
// same configurations twice into one database: the second refuses (the first keeps the work; run
// the command again when it ends and it resumes what is left).
void claim_work(NewDatabaseGuard& guard, const tuning::Options& o, const spec::Spec& spec) {
  std::string key = "kernel=" + spec.kernel.name;
  std::string what;
  auto add_files = [&](const char* kind, const std::vector<std::string>& files) {
    std::vector<std::string> resolved;
    for (const auto& f : files) {
      std::error_code ec;
      const auto c = std::filesystem::weakly_canonical(f, ec);
      resolved.push_back(ec ? f : c.string());
    }
    std::sort(resolved.begin(), resolved.end());
    key += std::string("\n") + kind + "=";
    for (const auto& r : resolved) key += r + ";";
    what = std::string("the same ") + kind + " files";
  };
  if (!o.replay.empty()) {
    add_files("replay", o.replay);
  } else if (!o.capture.empty()) {
    add_files("capture", o.capture);
    key += "\ndevice=" + std::to_string(o.device);
  } else {
    for (const auto& s : o.sizes) key += "\nsize=" + s.label();
    key += "\ndevice=" + std::to_string(o.device);
    what = "the same sizes on device " + std::to_string(o.device);
  }
  key += "\nshare=" + std::to_string(static_cast<int>(o.share.part)) + ":" + std::to_string(o.share.index) + "/" +
         std::to_string(o.share.count);
  if (!guard.lock_work(key))
    throw InputError("database " + o.db + ": another tune process is tuning kernel " + spec.kernel.name + " (" + what +
                     ") into it now: refusing to measure the same work twice; run this again when it "
                     "ends and it measures only what is left");
}

}  // namespace

constexpr std::int64_t kMaxParallel = 256;  // simulated GPUs: each lane of a strategy is a thread
constexpr std::int64_t kMaxCompileThreads = 1024;

int cmd_run(const Args& args) {
  po::options_description opts = options_for("tune run options");
  opts.add_options()("space", po::value<std::string>()->required()->value_name("SPEC"), "T1 search-space file")(
      "sizes", po::value<std::string>()->value_name("SIZES"),
      "problem sizes: A:B[:STEP], N,M,..., MxN, or design:A:B[:N] (N sizes, default 45: squares, odd and "
      "unaligned extents, rectangles both ways up to 16:1, around the L2; for the selection model) (required unless "
      "--replay)")("replay", po::value<std::vector<std::string>>()->multitoken()->value_name("CACHE..."),
                   "Kernel Tuner cache(s) to replay instead of running on the GPU")(
      "capture", po::value<std::vector<std::string>>()->multitoken()->value_name("FILE..."),
      "capture file(s) written by the runtime library (TUNE_CAPTURE): tune at their sizes with their inputs, "
      "verified against their outputs")("strategy", po::value<std::string>()->value_name("NAME"),
                                        strategy_help().c_str())(
      "strategy-option", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
      "an option of the strategy (Kernel Tuner's names), repeatable")(
      "max-fevals", po::value<std::int64_t>()->value_name("N"), "at most this many configurations per size")(
      "parallel", po::value<std::int64_t>()->value_name("N"),
      "replay only: simulate this many GPUs evaluating at once (1..256); the strategy proposes batches")(
      "time-limit", po::value<double>()->value_name("SECONDS"), "stop after this many seconds")(
      "compile-threads", po::value<std::int64_t>()->value_name("N"),
      "GPU runs: compile this many configurations at once, each in a process of its own (1..1024; default: one per "
      "core of the machine but one, which the measurements keep)")(
      "seed", po::value<std::uint64_t>()->value_name("N"),
      "random seed of the search and the input data (default: the search draws a fresh seed, printed and stored "
      "with the run; the input data use 1)")("device", po::value<int>()->default_value(0)->value_name("N"),
                                             "CUDA device ordinal")(
      "repetitions", po::value<int>()->default_value(10)->value_name("N"),
      "at least this many samples per measurement (each a batch of launches; more until the mean's 95% "
      "interval is within 1%): the policy's min_samples")(
      "warmup", po::value<int>()->default_value(0)->value_name("N"),
      "extra untimed launches before timing (each block of samples is primed anyway): the policy's warmup")(
      "flush-l2", po::bool_switch(),
      "flush the L2 cache before each timed launch (cold L2; one launch per sample): the policy's flush_l2")(
      "policy", po::value<std::vector<std::string>>()->composing()->value_name("KEY=VALUE"),
      "override the measurement and decision policy (min_samples, max_noise, max_time_ms, tie_margin, "
      "contenders, ...; decision/policy.h), over the spec's Tune.policy; repeatable")(
      "objective", po::value<std::string>()->default_value("time")->value_name("time|energy|edp"),
      "what to minimise: time (default), energy per launch, or the energy-delay product; energy and edp measure "
      "energy through NVML on a GPU (clocks and power limits untouched), or rank a replay by the caches' "
      "nvml_energy")("json", po::bool_switch(), "print the end-of-run table as JSON")(
      "wide", po::bool_switch(), "print each configuration in the end-of-run table (default: labels and a legend)")(
      "no-seed-sizes", po::bool_switch(),
      "replay of several sizes: search each size from scratch instead of starting from the best "
      "configurations of the nearest sizes searched before it");
  add_db_option(opts);
  // The parts of a size split over MPI ranks, which tune's ranks pass to themselves.
  po::options_description internal("internal");
  internal.add_options()("share", po::value<std::string>(), "I/K: measure share I of K of each size")(
      "decide-only", po::bool_switch(), "decide each size from the measurements stored");
  po::variables_map vm;
  if (!parse("run",
             "tune [run] --space SPEC (--sizes SIZES | --replay CACHE... | --capture FILE...) [--strategy NAME] "
             "[--strategy-option KEY=VALUE]... [--max-fevals N] [--time-limit SECONDS] [--seed N] "
             "[--objective time|energy|edp] [--db FILE]",
             args, opts, vm, nullptr, &internal))
    return 0;

  tuning::Options o;
  o.space = vm["space"].as<std::string>();
  if (vm.count("replay")) o.replay = vm["replay"].as<std::vector<std::string>>();
  if (vm.count("capture")) o.capture = vm["capture"].as<std::vector<std::string>>();
  if (!o.capture.empty() && (vm.count("sizes") || !o.replay.empty()))
    throw InputError("tune run: --capture gives the sizes and the data: it takes neither --sizes nor --replay");
  if (vm.count("sizes")) {
    o.sizes_text = vm["sizes"].as<std::string>();
    o.sizes = sizes::parse(o.sizes_text);
  } else if (o.replay.empty() && o.capture.empty()) {
    throw InputError("tune run: the option '--sizes' is required but missing (see tune run --help)");
  }
  o.db = db_path(vm);
  o.strategy = vm.count("strategy") ? vm["strategy"].as<std::string>() : "";  // "": tuning::strategy_for decides
  if (vm.count("strategy-option"))
    o.strategy_options = search::parse_options(vm["strategy-option"].as<std::vector<std::string>>());
  o.seed_sizes = !vm["no-seed-sizes"].as<bool>();
  if (vm.count("max-fevals")) {
    o.max_fevals = vm["max-fevals"].as<std::int64_t>();
    if (*o.max_fevals <= 0)
      throw InputError("bad --max-fevals " + std::to_string(*o.max_fevals) + ": must be positive");
  }
  if (vm.count("parallel")) {
    const std::int64_t k = vm["parallel"].as<std::int64_t>();
    if (k < 1 || k > kMaxParallel)
      throw InputError("bad --parallel " + std::to_string(k) + ": must be 1.." + std::to_string(kMaxParallel));
    if (o.replay.empty())
      throw InputError(
          "--parallel simulates several GPUs in a replay (--replay); a GPU run evaluates in parallel over MPI ranks "
          "(mpirun -n K tune ...)");
    o.parallel = static_cast<std::size_t>(k);
  }
  if (vm.count("compile-threads")) {
    const std::int64_t n = vm["compile-threads"].as<std::int64_t>();
    if (n < 1 || n > kMaxCompileThreads)
      throw InputError("bad --compile-threads " + std::to_string(n) + ": must be 1.." +
                       std::to_string(kMaxCompileThreads));
    o.compile_threads = static_cast<unsigned>(n);
  }
  // This binary serves its own compiles (cli/main.cpp): one process each, in parallel.
  o.compile_server = compile::ServerProgram{};
  if (vm.count("share")) o.share = parse_share(vm["share"].as<std::string>());
  if (vm["decide-only"].as<bool>()) {
    if (o.share.part != tuning::Part::whole)
      throw InputError("--share and --decide-only are different parts: give one");
    o.share.part = tuning::Part::decide;
  }
  if (vm.count("time-limit")) {
    o.time_limit_s = vm["time-limit"].as<double>();
    if (!(*o.time_limit_s > 0)) throw InputError("bad --time-limit: must be a positive number of seconds");
  }
  if (vm.count("seed")) {
    o.seed = o.data_seed = vm["seed"].as<std::uint64_t>();
  } else {
    o.seed = tuning::draw_seed();
    o.seed_drawn = true;
  }
  o.device = vm["device"].as<int>();
  const int repetitions = vm["repetitions"].as<int>(), warmup = vm["warmup"].as<int>();
  if (repetitions < 1 || warmup < 0) throw InputError("bad --repetitions/--warmup: need repetitions >= 1, warmup >= 0");
  if (!vm["repetitions"].defaulted()) o.policy.push_back("min_samples=" + std::to_string(repetitions));
  if (!vm["warmup"].defaulted()) o.policy.push_back("warmup=" + std::to_string(warmup));
  if (vm["flush-l2"].as<bool>()) o.policy.emplace_back("flush_l2=true");
  if (vm.count("policy"))
    for (const auto& kv : vm["policy"].as<std::vector<std::string>>()) o.policy.push_back(kv);
  decision::Policy checked;
  tuning::apply_policy(o.policy, checked);  // refused here, before anything runs; again over the spec's
  o.objective = decision::parse_objective(vm["objective"].as<std::string>());
  if (decision::needs_energy(o.objective) && !o.capture.empty())
    throw InputError("tune run: --objective " + std::string(decision::to_string(o.objective)) +
                     " measures at --sizes (or replays caches); it does not take --capture");
  o.json = vm["json"].as<bool>();
  o.wide = vm["wide"].as<bool>();
  o.argv = process_args();
  // A launcher's rank that MPI sees alone would repeat the whole job beside its copies.
  if (run::worker_generation() < 0) {
#ifdef TUNE_HAVE_MPI
    const mpi::World* world = mpi::world();
    check_launcher(world != nullptr ? world->size() : 1, true);
#else
    check_launcher(1, false);
#endif
  }
  for (const auto& a : args) o.command_line += (o.command_line.empty() ? "tune " : " ") + a;
#ifdef TUNE_HAVE_MPI
  if (const mpi::World* w = mpi::world(); w != nullptr && w->size() > 1) {  // mpirun -n K, K > 1
    if (decision::needs_energy(o.objective) && o.replay.empty())
      throw InputError("tune run: --objective " + std::string(decision::to_string(o.objective)) +
                       " measures energy on one GPU, not over MPI ranks: run it without mpirun");
    if (w->rank() != 0) return mpi::run(*w, o);  // only rank 0 touches the database
    const spec::Spec spec = spec::load(o.space);
    refuse_input_as_database(o, spec);
    NewDatabaseGuard created(o.db);
    claim_work(created, o, spec);
    const int status = mpi::run(*w, o);
    if (status == 0) created.dismiss();  // a failure (exit 3: no GPU) leaves no empty file behind
    return status;
  }
#endif
  // Energy is measured on a GPU: without one, say so before anything else is done.
  if (decision::needs_energy(o.objective) && o.replay.empty() && !run::gpu_available())
    throw UnavailableError("--objective " + std::string(decision::to_string(o.objective)) +
                           " measures energy through NVML on a GPU: " + run::gpu_unavailable_reason());
  const spec::Spec spec = spec::load(o.space);
  refuse_input_as_database(o, spec);
  NewDatabaseGuard created(o.db);
  if (run::worker_generation() < 0) claim_work(created, o, spec);  // a worker's supervisor holds it
  int status = 0;
  try {
    status = tuning::tune(o);
  } catch (const UnavailableError& e) {
    if (!decision::needs_energy(o.objective) || !o.replay.empty()) throw;
    const std::string why = e.what();  // its first line: one line in all
    throw UnavailableError("--objective " + std::string(decision::to_string(o.objective)) +
                           " measures energy through NVML on a GPU: " + why.substr(0, why.find('\n')));
  }
  if (status == 0) created.dismiss();  // a failure (exit 3: no GPU) leaves no empty file behind
  return status;
}

}  // namespace tune::cli

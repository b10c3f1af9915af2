// Internal to tuning: the GPU sweep behind `tune run` as one object, so that each stage reads as
// a method: plan (what is stored already), compile (cache, then the NVRTC pool), and per size:
// arguments, reference, ceilings, then every configuration (verify, time, store).
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "common/progress.h"
#include "compile/pool.h"
#include "run/args.h"
#include "run/ceiling_registry.h"
#include "run/device_check.h"
#include "run/kernel.h"
#include "run/session.h"
#include "run/timing.h"
#include "space/space.h"
#include "store/store.h"
#include "tuning/extension.h"
#include "tuning/launch.h"
#include "tuning/size_search.h"
#include "tuning/tuner.h"

namespace tune::tuning {

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

// One configuration's compiled kernel (or why it has none).
struct Compiled {
  std::unique_ptr<run::LoadedKernel> kernel;
  store::MeasurementStatus status = store::MeasurementStatus::ok;
  std::string error;
  double compile_ms = 0;
  compile::Resources resources;
  bool faulted = false;  // faulted the context earlier in this process
  // Nothing left to compile: the kernel is loaded, or its compile (or load) failed.
  bool settled() const { return kernel || status != store::MeasurementStatus::ok; }
};

struct Counters {
  std::size_t compiled = 0, cached = 0, measured = 0, failed = 0;
  double compile_ms = 0, measure_ms = 0, decide_ms = 0;
  double timed_ms = 0;  // GPU time inside timed batches (run::Timing::timed_ms)
};

inline run::Dim3 to_dim3(const std::array<std::uint32_t, 3>& d) { return {d[0], d[1], d[2]}; }

// The decision at each size (sweep_decide.cpp): at most kMaxContenders contenders, within
// kContenderWiden times the tie test's margin of the best, measured again in interleaved rounds of
// one sample on each of up to kPlacements placements of the arguments; after kDecisionMinRounds
// rounds a contender whose interval lies wholly beyond the best's by the tie margin leaves the
// race (decision::outpaced), and the rounds stop once every contender still racing is known within
// kDecisionNoise (the 95% half-width of its mean), or after kDecisionMaxRounds.
// Why so many placements: a configuration's time depends on where its buffers lie, differently
// for each configuration (about 1% standard deviation from one placement to another on an H100 at
// 128..4096, measured), and the winner has to hold in another run, on other addresses. With 4
// placements and 4 rounds two runs of the main job disagreed by more than 2% at 1 of 32 sizes per
// pair of runs; the spread of a configuration between runs matched what its samples predicted.
inline constexpr std::size_t kMaxContenders = 8;
inline constexpr double kContenderWiden = 3.0;
inline constexpr int kDecisionMinRounds = 2;
inline constexpr int kDecisionMaxRounds = 4;
inline constexpr double kDecisionNoise = 0.003;
// Copies of the arguments at other addresses, made with the size's state: a first measurement uses
// kFirstPlacements of them, the decision all (up to kPlacements, as many as fit in a quarter of the
// device's memory). Made for the decision alone, right before it, they measured the contenders 10
// to 25% slower than their first pass near the L2's capacity (2304..2944 on an H100, all of them
// kernels with evict-first cache hints; probably the fills' lines in L2); made with the state, the
// decision's values stay 1 to 3.7% above the first pass.
inline constexpr std::size_t kPlacements = 16;
inline constexpr std::size_t kFirstPlacements = 2;
// Arguments of at least this many times the L2's size get the decision's further placements right
// before the decision, not with the state: far from the L2's capacity a fresh copy behaves as the
// state's do, and a window of such sizes then holds several of them, so that each configuration is
// measured at all of them as it compiles. With all placements made with the state, a window held one
// size of the transposes at 10880..16384 on an H100 (20 GB each), and the first size waited for
// compiles for about 4 of its 7 s (wall / measurement 1.29 to 1.36).
inline constexpr std::size_t kLatePlacementsOverL2 = 16;
// Other CUDA contexts (run/context.h): a kernel of a few microseconds takes another time per
// launch in each context, by a level common to all configurations and by a part of each one's own
// (on an H100 at 128..1024: a configuration's time from one process to another moved within a
// 5% band around the common level, and two runs' winners differed by up to 5.9%). Where the best
// first pass takes less than kOtherContextsBelowMs and the arguments fit in a quarter of L2 (so
// that fresh copies of them behave as the state's do), the contenders are those within
// kContenderWidenElsewhere times the tie margin (at most kMaxContendersElsewhere: a first pass in
// one context can put a configuration 5% off), measured again in kOtherContexts further contexts
// of this process too, kDecisionMinRounds rounds on kOtherPlacements placements each (this
// context's race on as many), and decided on the mean of their values relative to each context's
// level (decision::across_contexts). With three further contexts and the usual contenders, two runs
// still differed by 5.2% at one size: the other run's winner had not been a contender. With at most
// 12, again (H100, 2026-11-27: at 384x384 19 configurations had a first pass within 6% of the
// best, the other run's winner 15th of them, 4.5% off, and measured 5.2% off as no contender;
// the other run's winners were 0th to 15th by first pass at 128..1152, within 4.6%). So up to 24,
// and this context's race on kOtherPlacements placements rather than kPlacements pays for them.
// Tried on 2026-11-28 up to two thirds of L2 (to 2048x2048 on an H100, where the misses were):
// not kept. There the race in this context on 16 placements gives way to 4 placements and the other
// contexts, and the winner's interval, the larger of this context's and the contexts' (decision::
// across_contexts), widened from 0.4..0.6% to 0.5..1.7% at 1664 and 1920, so more was tied and kept
// across sizes, and the runs disagreed as before (4 of 6 pairs on an H100).
inline constexpr std::size_t kOtherContexts = 5;
inline constexpr double kOtherContextsBelowMs = 0.02;
inline constexpr std::size_t kOtherPlacements = 4;
// 8 rather than 6 since 2026-11-28: on an H200 at 768x768 the first pass of a configuration with
// evict-first hints read 1.041 to 1.073 of the best first pass in seven runs of eight, while every
// decision that raced it put it first or tied with the first (with 6, three runs left it out, and
// such a run missed by 4.75 and 4.98% against one that raced and used it). Not more: on an H100
// at 128x128 one run's first pass read the other runs' winner 12.6% behind its best (2.41 us
// against 2.14 us, every sample), but with 20 (the 24 closest racing nearly everywhere) main jobs
// took 29.91 to 30.26 s on a slow host, where one with 8 took 29.30 s.
inline constexpr double kContenderWidenElsewhere = 8.0;
inline constexpr std::size_t kMaxContendersElsewhere = 24;

// The decision's values combine the race with the contenders' first passes, made seconds before in
// the same process, by kFirstPassWeight (decision::across_moments, each moment relative to its
// level over the contenders). Why: a configuration's time relative to the others drifts with the
// moment, not with the context. On an H200 at 3328x3328 (2026-11-28) configuration 131 (evict-first
// hints) over 126 read 1.0116 at its first pass and 0.9787 in the race 20 s later in one process,
// 0.979 to 1.021 from one run's race to another's, while in each process six contexts measured
// within a second agreed (131/126 in all six of one process 0.997 to 1.006, of each of three others
// 1.011 to 1.033); the runs that raced 131 ahead missed the target by 2.1 to 2.2% against others.
// Re-decided offline on the stored runs of 2026-11-28 (seven benchmarks of four main jobs, H100 and
// H200; scripts/moment_weight.py), pairs at target went from 30 of 42 (the race alone) to 36
// (weight 0.1), 40 (0.2), 41 (0.25), 40 (0.33), 39 (0.4) and 33 (0.5): the first pass has 2
// placements to the race's 16, and weighs a quarter. Twenty new main jobs with it on three H200
// hosts: 29 of 30 pairs at target (22 of 30 for the race alone on the same runs, re-decided).
inline constexpr double kFirstPassWeight = 0.25;

// A spec's arguments at a size, as the run module takes them (sweep_size.cpp), and the bytes of
// one placement of them (their buffers; scalars take none).
std::vector<run::ArgSpec> arg_specs(const spec::Spec& spec, const sizes::Size& size);
std::size_t buffer_bytes(const std::vector<run::ArgSpec>& specs);

// One configuration of the run: its canonical params, its id in the database, its cubin-cache key,
// whether any size still needs it, and its compiled kernel.
struct ConfigState {
  std::string params;
  std::int64_t id = 0;
  std::string cache_key;
  bool needed = false;
  Compiled compiled;
};

// One problem size of the run, parsed once (from --sizes, in every dimension of the spec's
// ProblemSize): the size, as stored, and its label ("4096x4096").
struct SizeTarget {
  sizes::Size size;
  std::string label;
  static SizeTarget of(const sizes::Size& s) { return {s, s.label()}; }
};

// What every configuration at one size shares.
struct SizeState {
  std::size_t index = 0;
  std::unique_ptr<run::ArgSet> args;
  // The same arguments at other addresses (Sweep::placements_of in all): a first measurement is
  // timed on the first kFirstPlacements, the decision on all (run::measure's placements), since a
  // transpose's speed depends on where its buffers lie (one configuration measured 2 to 7% apart
  // between runs on an H100 with one placement). Fewer when the device has no room for them.
  // Where the arguments are far larger than L2 (kLatePlacementsOverL2), the state holds
  // kFirstPlacements of them until the decision makes the rest (Sweep::add_placements).
  std::vector<std::unique_ptr<run::ArgSet>> more_args;
  std::vector<std::size_t> outputs;
  std::vector<expr::Value> bound_default;  // defaults bound to this size (bytes, flops, reference)
  double bytes = 0, flops = 0;
  run::Dim3 check_grid, check_block;        // Tune.check's launch shape at this size
  std::unique_ptr<run::DeviceCheck> check;  // this size's reference outputs, on the device
  bool reference_ready = false;             // prepare_reference has run (Sweep::ready_size)
  std::set<std::string> ceilings_done;      // Tune.ceilings measured at this size
};

// The reference or check kernel's cubin on its way: from the binary cache, or compiled on a thread
// of its own while the sweep goes on (Sweep::load_helpers takes it).
struct PendingHelper {
  std::string key, what, kernel_name;
  std::vector<char> cubin;                        // from the binary cache
  std::future<compile::CompileResult> compiling;  // else being compiled
};

class Sweep {
 public:
  // Opens the device and the database and begins the stored run. Throws UnavailableError.
  Sweep(const Options& opts, Prepared prepared);
  int run();

 private:
  // plan and compile (engine.cpp)
  void plan();
  compile::CompileRequest request(std::size_t c, const std::string& kernel_name,
                                  const std::vector<expr::Value>& values) const;
  void start_compiles();
  bool load_cached(std::size_t c, const compile::CompileRequest& req);
  // The reference and check kernels: compiles started (start_compiles), then loaded once needed
  // (at once in brute force, at a guided search's first measurement, so that they compile while
  // the strategy's first configurations do).
  std::optional<PendingHelper> start_helper(const compile::CompileRequest& req, std::string what, std::string name);
  std::unique_ptr<run::LoadedKernel> load_helper(PendingHelper& p);
  void load_helpers();
  bool helpers_compiled() const;  // load_helpers would not wait for a compile
  void put_cubin(const std::string& key, const compile::CompileResult& r);
  void accept(compile::CompileResult r);
  std::optional<std::size_t> next_config(std::size_t size_index, std::size_t& cursor);
  void finish(bool out_of_time);

  // sizes (sweep_size.cpp); false when the time limit stopped the sweep
  bool size_needs_work(std::size_t s) const;
  std::size_t state_bytes(std::size_t s) const;
  // How many placements of arguments of `args_bytes` a size's state holds: kPlacements, fewer where
  // they would take more than a quarter of the device's memory, at least kFirstPlacements.
  std::size_t placements_of(std::size_t args_bytes) const;
  // How many placements a state holds from the start: placements_of, or kFirstPlacements where
  // the arguments are at least kLatePlacementsOverL2 times the L2's size.
  std::size_t first_placements_of(std::size_t args_bytes) const;
  // Makes placements of the state's arguments until it holds `count` (fewer, with a warning, when
  // the device has no room for them).
  void add_placements(SizeState& st, std::size_t count);
  // Arguments, reference, ceilings; `deferred` (a guided search): arguments only, the reference at
  // the first measurement (ready_size), the ceilings while the search waits for compiles
  // (idle_work) or after it.
  std::unique_ptr<SizeState> make_state(std::size_t s, bool deferred = false);
  void ready_size(SizeState& st);
  // One piece of GPU work a guided search owes anyway, done while it waits for a compile (the GPU
  // is idle then): the clocks' warm-up (run::settle_clocks), then the size's next ceiling whose
  // cuBLAS handle and kernels are ready. False when there is none (for now).
  bool idle_work(SizeState& st);
  void drop_state(SizeState* st);
  bool search_one_size(std::size_t s);
  void decide_one_size(std::size_t s);
  bool measure_window(const std::vector<std::size_t>& window);
  std::pair<run::Dim3, run::Dim3> kernel_shape(const Reference& ref, const SizeState& st) const;  // grid, block
  void prepare_reference(SizeState& st);
  void recover(SizeState& st);
  void measure_ceilings(SizeState& st);  // those not measured yet
  // The first ceiling not measured yet at this size (`only_ready`: of those whose cuBLAS handle
  // and kernels are made already); false when there is none.
  bool measure_next_ceiling(SizeState& st, bool only_ready = false);
  void measure_ceiling(SizeState& st, const std::string& name);
  store::Measurement measure_config(std::size_t c, SizeState& st, Geometry& g);
  // A launch of `kern` with `g` on each of the argument sets (placements of the same arguments).
  static std::vector<run::LaunchFn> placements(run::LoadedKernel& kern, const Geometry& g,
                                               std::span<run::ArgSet* const> sets);
  static std::vector<run::ArgSet*> own_placements(SizeState& st);  // the state's args and more_args
  // measured, stored and counted like the brute-force path does
  store::Measurement measure_and_store(std::size_t c, SizeState& st);

  // the decision at a size, the ceilings checked against their neighbours (sweep_decide.cpp)
  void decide_size(std::size_t s, SizeState& st);
  // The other contexts (sweep_contexts.cpp). Whether a size's decision takes them: its best first
  // pass `best_ms` is short and its arguments are small (kOtherContexts), and they can be had.
  // Decided once per size, by decide_size.
  bool other_contexts_apply(const SizeState& st, double best_ms) const;
  // Creates the other contexts in the background when some size may take them.
  void start_other_contexts();
  // Adds further contexts of the device to `to` until it holds kOtherContexts.
  void add_other_contexts(std::vector<std::unique_ptr<run::Session>>& to) const;
  // The contenders (their kernels and shapes) of a size that takes the other contexts
  // (other_contexts_apply) measured again there: one row of estimates per context that measured
  // every one of them; empty where no other context can be had.
  std::vector<std::vector<decision::Estimate>> measure_in_other_contexts(SizeState& st,
                                                                         const std::vector<run::LoadedKernel*>& kernels,
                                                                         const std::vector<Geometry>& shapes);
  void remeasure_implausible_ceilings();

  // a search strategy other than brute force (sweep_search.cpp): at each size the strategy picks
  // the configurations, each compiled when first asked for
  bool search_size(std::size_t s, SizeState& st);
  // The search's evaluation of `c` at the size: compiled (ensure_compiled, with idle_work while it
  // waits), measured and stored; the time of each part counted in guided_time_.
  std::optional<double> evaluate_guided(std::size_t c, SizeState& st);
  // Compiles or loads `c` unless done; says whether it was ready, hinted (compile-ahead) but not
  // done, or not hinted. While a compile of `c` in the pool runs, `idle` is called until it returns
  // false (it does some other work each time).
  enum class Readiness { ready, hinted, not_hinted };
  Readiness ensure_compiled(std::size_t c, const std::function<bool()>& idle = {});
  // Compile-ahead for a guided search (search::Context::hint): the hinted configurations go to the
  // compile pool, replacing earlier guesses no worker has started.
  void prefetch(const std::vector<std::size_t>& configs);
  void accept_finished();            // takes the pool's finished results without waiting
  bool compiled_now(std::size_t c);  // its kernel loaded, or its compile failed (finished results taken first)
  void drop_guesses();               // drops the compile-ahead guesses no worker has started

  const Options& o_;
  const Clock::time_point start_ = Clock::now();
  spec::Spec spec_;
  space::Space space_;
  Extension ext_;
  std::string source_, kernel_, space_hash_, nvrtc_;
  run::Session session_;                               // before every GPU resource: destroyed after them
  std::vector<std::unique_ptr<run::Session>> others_;  // other contexts (kOtherContexts), made on first use
  bool others_off_ = false;                            // none could be had: decisions in one context
  // others_ in the making (start_other_contexts); joined before session_ goes
  std::future<std::vector<std::unique_ptr<run::Session>>> others_ready_;
  store::Store db_;
  std::int64_t run_id_ = 0;

  std::set<store::MeasuredKey> done_;  // stored already: skipped
  std::set<std::string> decided_;      // sizes with a decision stored on this device (plan)
  std::size_t n_configs_ = 0, todo_ = 0, progressed_ = 0;
  std::vector<ConfigState> configs_;                 // one per configuration of the run
  std::map<std::string, std::size_t> config_index_;  // params -> index into configs_
  std::vector<SizeTarget> sizes_;                    // in search order
  std::unique_ptr<run::LoadedKernel> reference_;
  std::unique_ptr<run::LoadedKernel> check_kernel_;                 // Tune.check, compiled next to the reference
  std::optional<PendingHelper> reference_pending_, check_pending_;  // until load_helpers
  std::unique_ptr<run::CeilingRegistry> ceilings_;                  // Tune.ceilings, measured by name
  std::vector<SizeState*> live_;  // the sizes whose states are alive (a recovery restores them all)
  // Per size decided in this run (index into sizes_): the configurations the tie-break across sizes
  // may use there (decision::eligible). They are contenders at the next size too, so that a choice
  // kept across sizes stands on a decision's measurement at both, not on one first pass (on an
  // H100, 2026-11-27: run B kept a configuration from 1920x1920 at 2048x2048, 0.9% off its best
  // there, that run A's first pass had put 4.7% off, outside its contenders: regret 1.047).
  std::map<std::size_t, std::set<std::string>> eligible_;
  // The compile processes (Options::compile_server) the pool's threads hand their compiles to;
  // none: the threads compile themselves.
  std::shared_ptr<compile::CompileProcesses> compilers_;
  compile::CompilePool pool_;
  std::size_t pending_ = 0;
  std::vector<std::size_t> ready_;      // cached or compiled, in arrival order
  bool guided_ = false;                 // a strategy chooses the configurations (not brute force)
  std::set<std::size_t> ahead_;         // guided: compiles submitted ahead, results not taken yet
  std::unique_ptr<SizeSearch> search_;  // guided: the search path shared with the replay
  // guided, per size: where an evaluation's wall time went (the log's line per size)
  struct GuidedTime {
    double compile_s = 0, measure_s = 0;             // waiting for (or running) a compile; measuring and storing
    double ready_s = 0;                              // the reference (ready_size)
    double idle_s = 0;                               // idle_work while waiting for compiles
    std::size_t ready = 0, waited = 0, inline_ = 0;  // compiled ahead and done; hinted, not done; not hinted
  } guided_time_;

  run::TimingOptions timing_;
  decision::Rule rule_;
  bool modifies_inputs_ = false;
  std::vector<capture::Capture> captures_;  // tune --capture: the launches the sizes come from
  const capture::Capture* captured(std::size_t size_index) const;
  Counters count_;
  std::unique_ptr<Progress> progress_;
};

}  // namespace tune::tuning

// The timing method (run.h states it for reports; decision::Policy::describe() gives it in one line):
//   - warm-up: the GPU's clocks are brought up and settle once per Session (settle_clocks: a busy
//     kernel until two NVML readings of the SM clock 20 ms apart agree within 1%, 1 s at most;
//     200 ms of work without NVML); then `warmup` untimed launches of the kernel and a
//     synchronisation, so a fault is reported before any timing;
//   - batches: a sample is a batch of N back-to-back launches between one pair of CUDA events, its
//     value the batch time / N (ms per launch). N is chosen from one timed launch (taken again once
//     if its hold timed out: a launch function whose first call stalls the host, as cuBLAS's
//     first call did behind the hold, until the timeout) so that a batch lasts at least
//     min_batch_ms (event resolution is about 0.5 us and a 2..3 us launch varies by 5% alone: a
//     3 us kernel gets N = 17 at the default 50 us), at most kMaxLaunchesPerHold / 8;
//   - no host jitter: each batch is enqueued behind a kernel that holds the stream (blocker.h) and
//     released once queued, so its launches run back to back on the GPU; the first batch of a
//     block is preceded by an untimed copy of itself (primed): the first launches after a release
//     ran slower (about 5% on an H100); a kernel that fills a batch alone (N = 1) skips the
//     priming where the launch before was its own on the same placement (a GEMM's launch costs
//     milliseconds);
//   - a quiet host: the host waits for a batch to end before it queues the next one, as an
//     application's timing loop does (queuing the next batch while one ran biased the times, away
//     from what an application's loop measures);
//   - the floor: a launch's fixed cost depends on the hardware channel behind the stream, which
//     the driver assigns per context and stream: a 2 us kernel's time moves by several percent from
//     one context or stream to another and stays put within one (docs/performance.md, "The timing
//     method's floor"). Below a few microseconds two processes can differ by that much,
//     whatever the method, and not by the same for every kernel: a sweep's decision at such sizes
//     measures its contenders in further contexts too (context.h, decision/policy.h: other_contexts);
//   - clocks: with NVML, the SM clock and the throttle reasons are read around each round; a round
//     that saw power, thermal or hardware slowdown is taken again (up to max_retakes rounds),
//     counted in Timing::retaken; if it persists the samples are kept and Timing::throttled says so.
//     Once kSteadyThrottle measurements in a row stayed throttled through their retakes, throttling
//     is the GPU's steady state (an H100 at its power limit under a 4096^3 GEMM's best
//     configurations): rounds are not taken again for it (Timing::steady_throttle) until a
//     measurement's round runs unthrottled;
//   - stop: after at least min_samples samples, as soon as the 95% confidence interval of the mean
//     is within rel_ci of it and min_time_ms has passed; at max_samples or max_time_ms otherwise;
//   - screen (a first pass, screen_above_ms > 0): once screen_after samples are in and the fastest
//     of them is above screen_above_ms, the measurement stops there (Timing::screened), between two
//     batches: a configuration that far behind the size's best so far is no contender, and its
//     further samples would not change that;
//   - L2: by default warm (back to back: a problem that fits in L2 runs from L2, as in an
//     application loop), from a known start: before each primed batch the L2 is emptied (a 2 x L2
//     memset whose lines are then discarded without write-back, Blocker::discard_l2), so the priming
//     brings in the kernel's own data whatever ran before. Without it, what earlier work left in
//     L2 set the regime near the L2's capacity: evict-first kernels read several percent slower or
//     not depending on what the process had measured before (bench/race_regime.sh), and a memset
//     alone (the L2 full of other data) slowed every evict-first kernel.
//     With flush_l2, N = 1 and a 2 x L2 cudaMemsetAsync runs before each timed launch, outside its
//     events: every sample starts with a cold L2.
// Kernels and ceilings go through the same measure(), so a kernel and its ceiling are comparable.
#pragma once
#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "run/cuda.h"
#include "run/session.h"

namespace tune::run {

struct TimingOptions {
  int warmup = 0;        // untimed launches before the calibration (the primed batches warm each placement)
  int min_samples = 10;  // --repetitions
  int max_samples = 200;
  double min_batch_ms = 0.05;  // a batch (one sample) lasts at least this long
  double rel_ci = 0.01;        // stop once the mean's 95% half-width is within this fraction of it
  double min_time_ms = 0;      // of timed batches, before the stop rule may stop
  double max_time_ms = 200;    // of timed batches, then stop whatever the interval
  int max_retakes = 3;         // rounds taken again because the GPU throttled
  int steady_throttle = 3;     // measurements in a row throttled through their retakes: the steady state
  // false: warm L2 (each block of batches from an emptied L2, then primed; the L2 bullet above).
  // true: a 2 x L2 flush before each timed launch, one launch per sample (cold).
  bool flush_l2 = false;
  // For the ceilings (ceilings.h), which allocate their own buffers: on how many placements to time
  // them, as many as the kernels they are compared with.
  int placements = 1;
  // The screen above: 0 is off.
  double screen_above_ms = 0;
  int screen_after = 3;
};

struct Summary {
  double median = 0, mean = 0, min = 0, max = 0;
  double stddev = 0;      // sample standard deviation (n - 1); 0 for one sample
  double half_width = 0;  // of the mean's 95% confidence interval (Student's t)
  std::size_t count = 0;
};

// Statistics of `samples` (count 0 and zeros when empty).
Summary summarize(std::span<const double> samples);

struct Timing {
  LaunchStatus status;                      // the first failure, if any; samples are then empty
  std::vector<double> samples_ms;           // one per batch: its time / launches_per_sample, in order
  Summary summary;                          // of samples_ms
  int launches_per_sample = 1;              // N
  std::size_t launches = 0;                 // launches in all, the priming ones and retaken rounds included
  double timed_ms = 0;                      // GPU time of every timed batch (retaken rounds included)
  int retaken = 0;                          // rounds taken again because the GPU throttled or the hold timed out
  bool throttled = false;                   // throttling persisted through the retakes
  bool steady_throttle = false;             // throttled, and not taken again: the steady state (above)
  bool screened = false;                    // stopped by the screen (above) with fewer samples than the rule's
  unsigned sm_mhz_min = 0, sm_mhz_max = 0;  // SM clock seen around the rounds (0: not monitored)
  double wall_ms = 0, prepare_ms = 0;       // host time of measure(), and of its warm-up and calibration
  bool ok() const { return status.ok(); }
};

// Enqueues one launch on the legacy default stream (for example LoadedKernel::enqueue) and
// reports launch-time errors. It must not synchronise (it runs behind the Blocker).
using LaunchFn = std::function<LaunchStatus()>;

// The method above for one launch function. Never throws for launch failures or faults: they come
// back in Timing::status (sticky() => Session::recover()). Throws InputError on bad options.
Timing measure(Session& session, const LaunchFn& launch, const TimingOptions& options = {});
// The same kernel on several placements (the same arguments at other addresses: a transpose's
// speed depends on where its buffers lie, by up to 7% on an H100): each round takes a block of
// batches on every placement, the first batch of each block primed; one set of samples.
Timing measure(Session& session, std::span<const LaunchFn> placements, const TimingOptions& options);

// Several contenders measured round robin, so that drift and throttling hit all of them alike:
// up to `rounds` rounds, each measuring every contender still racing in turn with measure()
// itself (its placements, priming, warm-up) for `samples_per_round` samples. The same protocol as
// a first measurement: timing one kernel batch by batch right after another gave up to 25% other
// results near the L2's capacity, where what the previous kernel left in L2 matters.
// After each round, `after_round(rounds_done, timings, racing)` may take contenders out of the
// race (racing[i] = false: no more samples) and returns false to stop early; without it every
// round runs for every contender. A contender whose launch fails leaves the race with its status.
using RoundHook = std::function<bool(int rounds_done, std::span<const Timing> timings, std::vector<bool>& racing)>;
std::vector<Timing> measure_interleaved(Session& session, std::span<const std::vector<LaunchFn>> contenders,
                                        const TimingOptions& options, int rounds, int samples_per_round,
                                        const RoundHook& after_round = {});

// The GPU's clocks up and settled, once per session (see above); a no-op afterwards.
void settle_clocks(Session& session);

// The pieces of the method that need no GPU (tested on the CPU):
// N for a kernel of `single_ms` per launch.
int launches_per_sample(double single_ms, const TimingOptions& options);
// Whether the samples are enough by the stop rule, `timed_ms` of batches so far.
bool enough(std::span<const double> samples, double timed_ms, const TimingOptions& options);
// Whether the samples so far (ms per launch) stop the measurement by the screen.
bool screened_out(std::span<const double> samples, const TimingOptions& options);
// Measurements in a row throttled through their retakes, after which throttling is the steady state.
inline constexpr int kSteadyThrottle = 3;
// Whether a round is taken again: the hold timed out, or the GPU throttled and that is not its
// steady state (throttled_in_a_row measurements before this one stayed throttled, fewer than
// `steady_throttle`), while `attempt` (0 for the first round) is below max_retakes.
bool take_again(bool throttled, bool timed_out, int attempt, int max_retakes, int throttled_in_a_row,
                int steady_throttle = kSteadyThrottle);
// Throws InputError naming the option when the options are inconsistent.
void validate(const TimingOptions& options);

}  // namespace tune::run

#include "run/timing.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <numeric>
#include <optional>

#include "common/error.h"
#include "decision/decision.h"
#include "run/blocker.h"
#include "run/nvml.h"

namespace tune::run {

Summary summarize(std::span<const double> samples) {
  Summary s;
  s.count = samples.size();
  if (samples.empty()) return s;
  std::vector<double> sorted(samples.begin(), samples.end());
  std::sort(sorted.begin(), sorted.end());
  const std::size_t n = sorted.size();
  s.min = sorted.front();
  s.max = sorted.back();
  s.median = n % 2 == 1 ? sorted[n / 2] : 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]);
  s.mean = std::accumulate(sorted.begin(), sorted.end(), 0.0) / static_cast<double>(n);
  if (n > 1) {
    double squares = 0;
    for (double v : sorted) squares += (v - s.mean) * (v - s.mean);
    s.stddev = std::sqrt(squares / static_cast<double>(n - 1));
  }
  s.half_width = decision::estimate(samples, decision::Statistic::mean).half_width;
  return s;
}

void validate(const TimingOptions& o) {
  auto bad = [](const std::string& what) { throw InputError("timing options: " + what); };
  if (o.warmup < 0) bad("warmup " + std::to_string(o.warmup) + " < 0");
  if (o.min_samples < 1) bad("repetitions (min_samples) " + std::to_string(o.min_samples) + " < 1");
  if (o.max_samples < o.min_samples)
    bad("max_samples " + std::to_string(o.max_samples) + " < min_samples " + std::to_string(o.min_samples));
  if (!(o.min_batch_ms >= 0) || !(o.rel_ci > 0) || !(o.min_time_ms >= 0) || !(o.max_time_ms > 0) ||
      !std::isfinite(o.max_time_ms))
    bad("min_batch_ms, min_time_ms must be >= 0, rel_ci and max_time_ms > 0 and finite");
  if (o.max_retakes < 0) bad("max_retakes " + std::to_string(o.max_retakes) + " < 0");
  if (!(o.screen_above_ms >= 0) || !std::isfinite(o.screen_above_ms) || o.screen_after < 1)
    bad("screen_above_ms must be >= 0 and finite, screen_after >= 1");
}

int launches_per_sample(double single_ms, const TimingOptions& o) {
  if (o.flush_l2) return 1;                                // each launch behind its own flush
  constexpr int kMost = Blocker::kMaxLaunchesPerHold / 8;  // holds stay far from the launch queue's depth
  if (!(single_ms > 0)) return kMost;
  const double n = std::ceil(o.min_batch_ms / single_ms);
  return static_cast<int>(std::clamp(n, 1.0, static_cast<double>(kMost)));
}

bool enough(std::span<const double> samples, double timed_ms, const TimingOptions& o) {
  const auto n = static_cast<int>(samples.size());
  if (n >= o.max_samples || timed_ms >= o.max_time_ms) return true;
  if (n < o.min_samples || timed_ms < o.min_time_ms) return false;
  const auto e = decision::estimate(samples, decision::Statistic::mean);
  return e.value > 0 && e.half_width <= o.rel_ci * e.value;
}

bool screened_out(std::span<const double> samples, const TimingOptions& o) {
  if (!(o.screen_above_ms > 0) || samples.size() < static_cast<std::size_t>(std::max(1, o.screen_after))) return false;
  return *std::min_element(samples.begin(), samples.end()) > o.screen_above_ms;
}

bool take_again(bool throttled, bool timed_out, int attempt, int max_retakes, int throttled_in_a_row,
                int steady_throttle) {
  if (attempt >= max_retakes) return false;
  return timed_out || (throttled && throttled_in_a_row < steady_throttle);
}

namespace {

// One sample of one launch function: N launches between a pair of events; `primed`: the same N
// launches run untimed right before it, so that the GPU's front end has work queued and the L2
// holds what this kernel left there, not what the work before it did.
struct Batch {
  const LaunchFn* fn = nullptr;
  int launches = 1;
  bool primed = false;
};

// Runs `batches` behind one hold of the stream and appends each batch's time (ms, whole batch) to
// `ms`. `timed_out`: the hold ended by its timeout (take the round again). `stop_early`, called with
// `ms` after each batch but the last has ended, ends the round there when it returns true.
using StopFn = std::function<bool(const std::vector<double>&)>;
LaunchStatus run_round(Session& session, std::span<const Batch> batches, bool flush, std::vector<double>& ms,
                       bool& timed_out, const StopFn& stop_early = {}) {
  Blocker& blocker = session.blocker();
  std::span<Event> events = session.events(2 * batches.size());
  const auto start = events.first(batches.size()), stop = events.last(batches.size());
  (void)blocker.timed_out();  // forget an earlier timeout
  bool held = false;
  auto abandon = [&](LaunchStatus&& s) {  // let the stream go, drain it, report the first failure
    if (held) blocker.release();
    LaunchStatus drained = session.synchronize("timed launches");
    return drained.sticky() ? drained : s;
  };
  // A launch function that throws (an InputError: arguments that do not fit the kernel) must not
  // leave the stream held until the blocker's timeout: release, drain, and let the error go on.
  struct ReleaseOnThrow {
    Blocker& blocker;
    const bool& held;
    const int exceptions = std::uncaught_exceptions();
    ~ReleaseOnThrow() {
      if (held && std::uncaught_exceptions() > exceptions) blocker.release();
    }
  } guard{blocker, held};
  const std::size_t first = ms.size();
  auto elapsed = [&](std::size_t i) {  // batch i's time, appended to ms
    float t = 0;
    if (cudaError_t c = cudaEventElapsedTime(&t, start[i].get(), stop[i].get()); c != cudaSuccess)
      return classify(c, "cudaEventElapsedTime");
    ms.push_back(static_cast<double>(t));
    return LaunchStatus{};
  };
  // Each batch behind its own hold, released once queued; the host then waits for its end before it
  // queues the next (see timing.h: queuing during a timed batch slowed it).
  std::size_t queued = 0;
  for (std::size_t i = 0; i < batches.size(); ++i) {
    // The L2 before the batch (timing.h): cold, 2 x L2 written before each timed launch; warm, that
    // write's lines discarded before each primed batch, so it starts from an empty L2 whatever ran
    // before. A different byte each time so no layer can skip the write as redundant.
    if (flush || batches[i].primed) {
      DeviceBuffer& scratch = session.l2_flush_buffer();
      if (cudaError_t c =
              cudaMemsetAsync(scratch.data(), static_cast<int>((first + i) & 0xFF), scratch.bytes(), nullptr);
          c != cudaSuccess)
        return abandon(classify(c, "L2 flush (cudaMemsetAsync)"));
      if (!flush)
        if (LaunchStatus s = blocker.discard_l2(scratch); !s.ok()) return abandon(std::move(s));
    }
    if (LaunchStatus s = blocker.hold(); !s.ok()) return abandon(std::move(s));
    held = true;
    if (batches[i].primed)
      for (int k = 0; k < batches[i].launches; ++k)
        if (LaunchStatus s = (*batches[i].fn)(); !s.ok()) return abandon(std::move(s));
    if (cudaError_t c = cudaEventRecord(start[i].get(), nullptr); c != cudaSuccess)
      return abandon(classify(c, "cudaEventRecord"));
    for (int k = 0; k < batches[i].launches; ++k)
      if (LaunchStatus s = (*batches[i].fn)(); !s.ok()) return abandon(std::move(s));
    if (cudaError_t c = cudaEventRecord(stop[i].get(), nullptr); c != cudaSuccess)
      return abandon(classify(c, "cudaEventRecord"));
    blocker.release();
    held = false;
    queued = i + 1;
    // The host stays quiet while the batch runs: the next batch is queued once this one ended.
    if (i + 1 < batches.size()) {
      if (cudaError_t c = cudaEventSynchronize(stop[i].get()); c != cudaSuccess)
        return abandon(classify(c, "cudaEventSynchronize (timed launches)"));
      if (LaunchStatus s = elapsed(i); !s.ok()) return abandon(std::move(s));
      if (stop_early && stop_early(ms)) break;
    }
  }
  if (LaunchStatus s = session.synchronize("timed launches"); !s.ok()) return s;
  timed_out = blocker.timed_out();
  if (ms.size() - first < queued)  // the last batch queued, not read in the loop
    if (LaunchStatus s = elapsed(queued - 1); !s.ok()) return s;
  return {};
}

// Clock readings around rounds: the SM clock range and whether a throttling reason showed.
// NVML is read at most every kClockReadMs (a query costs tens of microseconds; measurements
// follow each other faster than that).
constexpr double kClockReadMs = 2.0;

struct Watch {
  const Nvml* nvml = nullptr;
  bool throttled = false;
  void read(Timing& t) {
    if (nvml == nullptr) return;
    using Clock = std::chrono::steady_clock;
    static Clock::time_point last{};
    static std::optional<ClockReading> reading;
    static const Nvml* of = nullptr;
    const auto now = Clock::now();
    if (of != nvml || !reading || std::chrono::duration<double, std::milli>(now - last).count() >= kClockReadMs) {
      reading = nvml->read();
      last = now;
      of = nvml;
    }
    const auto& r = reading;
    if (!r) return;
    throttled = throttled || throttling(r->reasons);
    t.sm_mhz_min = t.sm_mhz_min == 0 ? r->sm_mhz : std::min(t.sm_mhz_min, r->sm_mhz);
    t.sm_mhz_max = std::max(t.sm_mhz_max, r->sm_mhz);
  }
};

// Warm-up launches, a synchronisation, and (calibrate) N from one timed launch.
LaunchStatus prepare(Session& session, const LaunchFn& fn, const TimingOptions& o, int& n, bool calibrate = true) {
  for (int i = 0; i < o.warmup; ++i)
    if (LaunchStatus s = fn(); !s.ok()) return s;
  if (LaunchStatus s = session.synchronize("warm-up launches"); !s.ok()) return s;
  if (!calibrate) return {};
  const Batch one{&fn, 1};
  // A calibration whose hold timed out timed the host's stall, not the launch (a launch function
  // whose first call waits for the device, as cuBLAS's first call does): taken again, once.
  for (int attempt = 0;; ++attempt) {
    std::vector<double> ms;
    bool timed_out = false;
    if (LaunchStatus s = run_round(session, std::span(&one, 1), o.flush_l2, ms, timed_out); !s.ok()) return s;
    n = launches_per_sample(ms.at(0), o);
    if (!timed_out || attempt > 0) return {};
  }
}

Timing failed(LaunchStatus status) {
  Timing t;
  t.status = std::move(status);
  return t;
}

// One block: a primed batch, then `batches` timed batches of the same launch function.
void add_block(std::vector<Batch>& round, const LaunchFn& fn, int n, int batches) {
  for (int b = 0; b < batches; ++b) round.push_back({&fn, n, b == 0});
}

Timing measure_unguarded(Session& session, std::span<const LaunchFn> placements, const TimingOptions& o) {
  validate(o);
  if (placements.empty()) throw InputError("measure: no launch function");
  using Clock = std::chrono::steady_clock;
  const auto since = [](Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
  };
  const auto t0 = Clock::now();
  settle_clocks(session);
  Timing t;
  const auto tp = Clock::now();
  for (std::size_t p = placements.size(); p-- > 0;) {  // warm-ups, then N from the first placement, launched last
    int n = 1;
    if (LaunchStatus s = prepare(session, placements[p], o, n, p == 0); !s.ok()) return failed(std::move(s));
    if (p == 0) t.launches_per_sample = n;
  }
  t.prepare_ms = since(tp);
  const int n = t.launches_per_sample;
  const int places = static_cast<int>(placements.size());
  std::size_t last = 0;  // the placement launched last (the calibration's)
  Watch watch{session.nvml()};
  for (int attempt = 0;; ++attempt) {
    watch.throttled = false;
    watch.read(t);
    std::vector<double> samples;
    double timed = 0;
    bool timed_out = false, screened = false;
    // The screen (timing.h), checked between batches: the samples so far and the round's.
    std::vector<double> so_far;
    const StopFn screen = [&](const std::vector<double>& round_ms) {
      so_far = samples;
      for (double b : round_ms) so_far.push_back(b / n);
      return screened_out(so_far, o);
    };
    while (!screened && !enough(samples, timed, o)) {
      // the samples still wanted by the minimum (at least a few), split over the placements in blocks
      const int wanted = std::max(o.min_samples - static_cast<int>(samples.size()), std::max(2, o.min_samples / 4));
      const int left = o.max_samples - static_cast<int>(samples.size());
      const int per_place = std::max(1, (std::min(wanted, left) + places - 1) / places);
      std::vector<Batch> round;
      for (std::size_t p = 0; p < placements.size(); ++p) {
        add_block(round, placements[p], n, per_place);
        // A block after launches of the same placement (the calibration, the previous block) of a
        // kernel that fills a batch alone needs no priming: that saves a launch of a long kernel.
        if (n == 1 && p == last) round[round.size() - static_cast<std::size_t>(per_place)].primed = false;
        last = p;
      }
      std::vector<double> ms;
      bool out = false;
      if (LaunchStatus s = run_round(session, round, o.flush_l2, ms, out, o.screen_above_ms > 0 ? screen : StopFn{});
          !s.ok())
        return failed(std::move(s));
      for (std::size_t b = 0; b < ms.size(); ++b) t.launches += static_cast<std::size_t>(n) * (round[b].primed ? 2 : 1);
      for (double b : ms) {
        t.timed_ms += b;
        timed += b;
        samples.push_back(b / n);
      }
      timed_out = timed_out || out;
      screened = screened_out(samples, o);
    }
    watch.read(t);
    if (take_again(watch.throttled, timed_out, attempt, o.max_retakes, session.throttled_in_a_row, o.steady_throttle)) {
      ++t.retaken;
      continue;
    }
    t.throttled = watch.throttled;
    t.steady_throttle = t.throttled && session.throttled_in_a_row >= o.steady_throttle;
    t.screened = screened;
    t.samples_ms = std::move(samples);
    break;
  }
  session.throttled_in_a_row = t.throttled ? session.throttled_in_a_row + 1 : 0;
  t.wall_ms = since(t0);
  t.summary = summarize(t.samples_ms);
  return t;
}

}  // namespace

Timing measure(Session& session, const LaunchFn& launch, const TimingOptions& options) {
  return measure(session, std::span<const LaunchFn>(&launch, 1), options);
}

Timing measure(Session& session, std::span<const LaunchFn> placements, const TimingOptions& options) {
  try {
    return measure_unguarded(session, placements, options);
  } catch (const CudaError& e) {  // events, the flush buffer or the blocker failed
    return failed(LaunchStatus{e.sticky() ? Outcome::fault : Outcome::error, e.code(), e.what()});
  }
}

std::vector<Timing> measure_interleaved(Session& session, std::span<const std::vector<LaunchFn>> contenders,
                                        const TimingOptions& o, int rounds, int samples_per_round,
                                        const RoundHook& after_round) {
  std::vector<Timing> out(contenders.size());
  validate(o);
  if (rounds < 1 || samples_per_round < 1)
    throw InputError("measure_interleaved: rounds " + std::to_string(rounds) + " and samples per round " +
                     std::to_string(samples_per_round) + " must be at least 1");
  // each round, each contender measured by measure() itself with a fixed number of samples: the
  // same protocol as its first measurement, so the two agree
  TimingOptions fixed = o;
  fixed.min_samples = fixed.max_samples = samples_per_round;
  fixed.max_retakes = 1;
  std::vector<bool> racing(contenders.size(), true);
  for (int r = 0; r < rounds; ++r) {
    for (std::size_t i = 0; i < contenders.size(); ++i) {
      Timing& t = out[i];
      if (!t.ok() || !racing[i]) continue;
      Timing one = measure(session, std::span<const LaunchFn>(contenders[i]), fixed);
      if (!one.ok()) {
        t.status = std::move(one.status);
        racing[i] = false;
        if (t.status.sticky()) return out;  // the context is lost: nothing else runs
        continue;
      }
      t.samples_ms.insert(t.samples_ms.end(), one.samples_ms.begin(), one.samples_ms.end());
      t.launches_per_sample = one.launches_per_sample;
      t.launches += one.launches;
      t.timed_ms += one.timed_ms;
      t.retaken += one.retaken;
      t.throttled = t.throttled || one.throttled;
      if (one.sm_mhz_min > 0)
        t.sm_mhz_min = t.sm_mhz_min == 0 ? one.sm_mhz_min : std::min(t.sm_mhz_min, one.sm_mhz_min);
      t.sm_mhz_max = std::max(t.sm_mhz_max, one.sm_mhz_max);
    }
    if (std::none_of(racing.begin(), racing.end(), [](bool b) { return b; })) break;
    if (after_round && !after_round(r + 1, out, racing)) break;
  }
  for (auto& t : out)
    if (t.ok()) t.summary = summarize(t.samples_ms);
  return out;
}

void settle_clocks(Session& session) {
  if (session.clocks_settled) return;
  session.clocks_settled = true;
  Blocker& b = session.blocker();
  const Nvml* nvml = session.nvml();
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const auto elapsed_ms = [&] { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); };
  unsigned previous = 0;
  while (elapsed_ms() < 1000) {
    if (!b.busy(20'000'000).ok() || !session.synchronize("warming the clocks").ok()) return;
    if (nvml == nullptr) {
      if (elapsed_ms() >= 200) return;
      continue;
    }
    const auto r = nvml->read();
    if (!r) return;
    if (elapsed_ms() >= 100 && previous > 0 && std::abs(static_cast<double>(r->sm_mhz) - previous) <= 0.01 * previous)
      return;
    previous = r->sm_mhz;
  }
}

}  // namespace tune::run

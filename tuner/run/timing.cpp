#include "run/timing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

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
  return s;
}

namespace {

// Runs `count` timed launches, appending their times to `samples`.
LaunchStatus timed_batch(Session& session, const LaunchFn& launch, const TimingOptions& options,
                         int count, std::vector<double>& samples) {
  std::vector<Event> start(static_cast<std::size_t>(count));
  std::vector<Event> stop(static_cast<std::size_t>(count));
  DeviceBuffer* flush = options.flush_l2 ? &session.l2_flush_buffer() : nullptr;
  for (int i = 0; i < count; ++i) {
    if (flush != nullptr) {
      // A different byte each time so no layer can skip the write as redundant.
      const cudaError_t code = cudaMemsetAsync(flush->data(), (samples.size() + i) & 0xFF, flush->bytes(), nullptr);
      if (code != cudaSuccess) return classify(code, "L2 flush (cudaMemsetAsync)");
    }
    const std::size_t k = static_cast<std::size_t>(i);
    if (const cudaError_t code = cudaEventRecord(start[k].get(), nullptr); code != cudaSuccess)
      return classify(code, "cudaEventRecord");
    LaunchStatus status = launch();
    if (!status.ok()) return status;
    if (const cudaError_t code = cudaEventRecord(stop[k].get(), nullptr); code != cudaSuccess)
      return classify(code, "cudaEventRecord");
  }
  LaunchStatus status = session.synchronize("timed launches");
  if (!status.ok()) return status;
  for (std::size_t k = 0; k < start.size(); ++k) {
    float ms = 0;
    if (const cudaError_t code = cudaEventElapsedTime(&ms, start[k].get(), stop[k].get()); code != cudaSuccess)
      return classify(code, "cudaEventElapsedTime");
    samples.push_back(static_cast<double>(ms));
  }
  return {};
}

Timing measure_unguarded(Session& session, const LaunchFn& launch, const TimingOptions& options) {
  Timing timing;
  if (options.repetitions < 1 || options.warmup < 0 || options.max_repetitions < options.repetitions)
    throw InputError("timing options: need warmup >= 0 and 1 <= repetitions <= max_repetitions, got warmup " +
                     std::to_string(options.warmup) + ", repetitions " + std::to_string(options.repetitions) +
                     ", max_repetitions " + std::to_string(options.max_repetitions));
  auto fail = [&](LaunchStatus status) {
    timing.status = std::move(status);
    timing.samples_ms.clear();
    timing.summary = {};
    return timing;
  };
  for (int i = 0; i < options.warmup; ++i) {
    LaunchStatus status = launch();
    if (!status.ok()) return fail(std::move(status));
  }
  if (LaunchStatus status = session.synchronize("warm-up launches"); !status.ok()) return fail(std::move(status));

  if (LaunchStatus status = timed_batch(session, launch, options, options.repetitions, timing.samples_ms);
      !status.ok())
    return fail(std::move(status));
  if (options.min_time_ms) {
    const double target = *options.min_time_ms;
    for (;;) {
      const double total = std::accumulate(timing.samples_ms.begin(), timing.samples_ms.end(), 0.0);
      const int done = static_cast<int>(timing.samples_ms.size());
      if (total >= target || done >= options.max_repetitions) break;
      // Estimate the launches still needed from the mean so far (+10%), at least one.
      const double mean = total / done;
      const double wanted = mean > 0 ? std::ceil((target - total) / mean * 1.1) : options.max_repetitions;
      const int batch = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(options.max_repetitions - done)));
      if (LaunchStatus status = timed_batch(session, launch, options, batch, timing.samples_ms); !status.ok())
        return fail(std::move(status));
    }
  }
  timing.summary = summarize(timing.samples_ms);
  return timing;
}

}  // namespace

Timing measure(Session& session, const LaunchFn& launch, const TimingOptions& options) {
  try {
    return measure_unguarded(session, launch, options);
  } catch (const CudaError& e) {  // event creation or the flush buffer failed
    Timing timing;
    timing.status = LaunchStatus{e.sticky() ? Outcome::fault : Outcome::error, e.code(), e.what()};
    return timing;
  }
}

}  // namespace tune::run

// The race's other contexts (decider.h, policy.other_contexts): the contenders of a size whose
// kernels take a few microseconds measured again in further CUDA contexts of this process, each
// with its own copies of the arguments, so that one context's draw of the launch channel does not
// decide (run/context.h).

#include "common/error.h"
#include "log/log.h"
#include "run/context.h"
#include "tuning/decider.h"

namespace tune::tuning {

void Decider::start_contexts(const std::function<bool(std::size_t)>& needs_work) {
  if (run_.timing.flush_l2 || run_.policy().other_contexts == 0) return;
  bool small = false;  // a size whose arguments fit in a quarter of L2 (contexts_apply)
  for (std::size_t s = 0; s < run_.sizes.size() && !small; ++s)
    small =
        needs_work(s) && buffer_bytes(arg_specs(run_.spec, run_.sizes[s].size)) <= run_.session.device().l2_bytes / 4;
  if (!small) return;
  // made on a thread of their own while the first kernels compile (a context takes a few hundred
  // milliseconds to create); taken by the first decision that needs them
  others_ready_ = std::async(std::launch::async, [this] {
    std::vector<std::unique_ptr<run::Session>> made;
    add_contexts(made);
    return made;
  });
}

void Decider::add_contexts(std::vector<std::unique_ptr<run::Session>>& to) const {
  while (to.size() < run_.policy().other_contexts)
    to.push_back(std::make_unique<run::Session>(run_.session, run::Session::OwnContext{}));
}

bool Decider::contexts_apply(const SizeState& st, double best_ms) const {
  const decision::Policy& policy = run_.policy();
  if (others_off_ || policy.other_contexts == 0 || !(best_ms < policy.other_contexts_below_ms) || run_.timing.flush_l2)
    return false;
  return buffer_bytes(st.args->specs()) <= run_.session.device().l2_bytes / 4;
}

std::vector<std::vector<decision::Estimate>> Decider::measure_elsewhere(SizeState& st,
                                                                        const std::vector<run::LoadedKernel*>& kernels,
                                                                        const std::vector<spec::Geometry>& shapes) {
  const decision::Policy& policy = run_.policy();
  if (kernels.size() < 2 || others_off_) return {};
  const std::vector<run::ArgSpec>& specs = st.args->specs();
  if (others_.empty()) {
    try {
      if (others_ready_.valid()) others_ = others_ready_.get();
      add_contexts(others_);  // none made in the background, or fewer
    } catch (const run::CudaError& e) {
      log::warn("no further CUDA context ({}): each size decided in one context", e.what());
      others_.clear();
      others_off_ = true;
      return {};
    }
  }
  std::vector<std::vector<decision::Estimate>> rows;
  for (auto& other : others_) {
    try {
      const run::ContextScope scope(*other->context());
      std::vector<std::unique_ptr<run::ArgSet>> own;
      std::vector<run::ArgSet*> sets;
      for (std::size_t p = 0; p < policy.other_placements; ++p) {
        own.push_back(std::make_unique<run::ArgSet>(*other, specs, st.args->seed()));
        sets.push_back(own.back().get());
      }
      std::vector<std::vector<run::LaunchFn>> launches;
      for (std::size_t k = 0; k < kernels.size(); ++k)
        launches.push_back(SizeStates::placements(*kernels[k], shapes[k], sets));
      // A kernel's first launch in a context loads it there (milliseconds): untimed, before the
      // timing method calibrates its batch from one launch (which would otherwise time it alone,
      // launch gaps included: 3.4 us for a 2.2 us kernel on an H100).
      bool loaded = true;
      for (const auto& fns : launches) loaded = loaded && fns.front()().ok();
      if (!loaded || !other->synchronize("loading the contenders in another context").ok()) {
        log::debug("{}: another context could not load the contenders; left out", run_.sizes[st.index].label);
        continue;
      }
      const auto timings = run::measure_interleaved(*other, launches, run_.timing, policy.race_min_rounds,
                                                    static_cast<int>(sets.size()));
      std::vector<decision::Estimate> row;
      for (const auto& t : timings) {
        run_.count.timed_ms += t.timed_ms;
        if (!t.ok() || t.samples_ms.empty()) {
          log::debug("{}: another context failed a contender ({}); that context left out", run_.sizes[st.index].label,
                     t.status.message);
          if (t.status.sticky()) others_off_ = true;
          break;
        }
        row.push_back(decision::estimate(t.samples_ms, run_.rule.statistic));
      }
      if (row.size() == kernels.size()) rows.push_back(std::move(row));
      (void)other->synchronize("the other context's measurements");
    } catch (const run::CudaError& e) {
      if (e.sticky()) others_off_ = true;
      log::debug("{}: another context failed ({}); left out", run_.sizes[st.index].label, e.what());
    } catch (const Error& e) {  // not the device's doing: no other context for the rest of the run
      log::warn("{}: another CUDA context could not measure ({}); each size decided in one context from here",
                run_.sizes[st.index].label, e.what());
      others_off_ = true;
    }
    if (others_off_) break;
  }
  return rows;
}

}  // namespace tune::tuning

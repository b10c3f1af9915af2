// A GPU sweep driven by a search strategy (any --strategy but brute_force): at each size the
// strategy (search/search.h) picks the configurations; each is compiled when first asked for (the
// binary cache first), verified, timed and stored like in the brute-force sweep. The budget is
// --max-fevals per size and --time-limit on the run's wall clock. Each size starts from the best
// configurations of the sizes searched before it, nearest first. A re-run of the same command
// answers configurations already stored at a size from the database, without measuring them again.
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>

#include "search/search.h"
#include "tuning/sweep.h"

namespace tune::tuning {

namespace {

class SizeEvaluator : public search::Evaluator {
 public:
  SizeEvaluator(std::function<std::optional<double>(std::size_t)> measure, Clock::time_point start)
      : measure_(std::move(measure)), start_(start) {}
  std::optional<double> evaluate(std::size_t config) override { return measure_(config); }
  double elapsed_s() const override { return ms_since(start_) / 1000.0; }

 private:
  std::function<std::optional<double>(std::size_t)> measure_;
  Clock::time_point start_;
};

}  // namespace

void Sweep::ensure_compiled(std::size_t c) {
  Compiled& k = compiled_[c];
  if (k.kernel || k.status != store::MeasurementStatus::ok) return;
  auto req = request(c, kernel_, space_.config_values(c));
  keys_[c] = compile::cache_key(req, nvrtc_);
  if (auto bin = db_.get_binary(keys_[c])) {
    k.kernel = std::make_unique<run::LoadedKernel>(session_, std::vector<char>(bin->cubin.begin(), bin->cubin.end()), kernel_);
    ++count_.cached;
    return;
  }
  accept(compile::compile(req));
}

bool Sweep::search_size(std::size_t s, SizeState& st) {
  // What an earlier run stored at this size answers without a measurement.
  std::map<std::string, std::optional<double>> stored;
  store::MeasurementFilter f;
  f.kernel = kernel_;
  f.device = session_.device().name;
  f.size = size_text_[s];
  f.space_hash = space_hash_;
  f.ok_only = false;
  for (const auto& m : db_.measurements(f))
    stored[m.params] = m.status == store::MeasurementStatus::ok && m.objective ? m.objective : std::nullopt;

  // Starts: the best of the sizes already searched, nearest size first.
  std::vector<std::size_t> order;
  for (std::size_t t = 0; t < s; ++t)
    if (!best_of_size_[t].empty()) order.push_back(t);
  auto extent = [&](std::size_t t) {
    return std::log(double(problem_[t].dims[0]) * double(problem_[t].dims[1]) * double(problem_[t].dims[2]));
  };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return std::abs(extent(a) - extent(s)) < std::abs(extent(b) - extent(s));
  });
  std::vector<std::size_t> starts;
  for (std::size_t t : order)
    for (std::size_t c : best_of_size_[t])
      if (std::find(starts.begin(), starts.end(), c) == starts.end() && starts.size() < 3) starts.push_back(c);

  bool out_of_time = false;
  SizeEvaluator ev(
      [&](std::size_t c) -> std::optional<double> {
        if (auto it = stored.find(params_[c]); it != stored.end()) return it->second;
        ensure_compiled(c);
        store::Measurement m = measure_and_store(c, st);
        return m.status == store::MeasurementStatus::ok ? m.objective : std::nullopt;
      },
      start_);
  search::Budget budget;
  if (o_.max_fevals) budget.max_fevals = static_cast<std::size_t>(*o_.max_fevals);
  budget.time_limit_s = o_.time_limit_s;
  search::Context ctx(space_, ev, budget, o_.seed + s, o_.strategy_options, starts);
  const std::size_t evaluations = search::run(o_.strategy, ctx);
  if (o_.time_limit_s && ev.elapsed_s() >= *o_.time_limit_s) {
    spdlog::warn("time limit of {} s reached at {}: stopping (a re-run resumes)", *o_.time_limit_s, size_text_[s]);
    out_of_time = true;
  }
  if (ctx.best()) best_of_size_[s] = {*ctx.best()};
  spdlog::info("{} at {}: {} evaluated {} configurations{}{}", kernel_, size_text_[s], o_.strategy, evaluations,
               starts.empty() ? "" : ", starting from the best of " + std::to_string(order.size()) + " searched sizes",
               ctx.best() ? "; best " + params_[*ctx.best()] : "");
  return !out_of_time;
}

}  // namespace tune::tuning

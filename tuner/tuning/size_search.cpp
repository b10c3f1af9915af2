#include "tuning/size_search.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "select/select.h"

namespace tune::tuning {

namespace {

double log_volume(const sizes::Size& s) {
  return std::log(static_cast<double>(s.x())) + std::log(static_cast<double>(s.y())) +
         std::log(static_cast<double>(s.z()));
}

// Records what the search evaluated, in order, around the caller's evaluator.
class Recording : public search::Evaluator {
 public:
  Recording(search::Evaluator& inner, SizeOutcome& out) : inner_(inner), out_(out) {}
  std::optional<double> evaluate(std::size_t config) override {
    auto r = inner_.evaluate(config);
    out_.evaluated.push_back(config);
    out_.objectives.push_back(r);
    return r;
  }
  std::vector<std::optional<double>> evaluate_batch(const std::vector<std::size_t>& configs) override {
    auto r = inner_.evaluate_batch(configs);
    out_.evaluated.insert(out_.evaluated.end(), configs.begin(), configs.end());
    out_.objectives.insert(out_.objectives.end(), r.begin(), r.end());
    return r;
  }
  std::size_t parallelism() const override { return inner_.parallelism(); }
  double elapsed_s() const override { return inner_.elapsed_s(); }
  void prefetch(const std::vector<std::size_t>& configs) override { inner_.prefetch(configs); }
  bool wants_prefetch() const override { return inner_.wants_prefetch(); }
  bool ready(std::size_t config) override { return inner_.ready(config); }

 private:
  search::Evaluator& inner_;
  SizeOutcome& out_;
};

}  // namespace

std::vector<std::size_t> search_order(const std::vector<sizes::Size>& sizes) {
  std::vector<std::size_t> order(sizes.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const double va = log_volume(sizes[a]), vb = log_volume(sizes[b]);
    if (va != vb) return va < vb;
    return sizes[a].dims < sizes[b].dims;
  });
  return order;
}

SizeSearch::SizeSearch(const space::Space& space, SearchPolicy policy) : space_(space), policy_(std::move(policy)) {}

std::vector<std::size_t> SizeSearch::starts_for(const sizes::Size& size, std::vector<std::string>* from) const {
  std::vector<std::size_t> starts;
  if (!policy_.seed_sizes) return starts;
  std::vector<std::size_t> near;
  for (std::size_t i = 0; i < done_.size(); ++i)
    if (done_[i].best) near.push_back(i);
  auto distance = [&](std::size_t i) {  // the selection model's distance (select/select.h)
    const auto& d = done_[i].size.dims;
    return tune_select::distance2(d[0], d[1], d[2], size.x(), size.y(), size.z());
  };
  std::stable_sort(near.begin(), near.end(), [&](std::size_t a, std::size_t b) { return distance(a) < distance(b); });
  if (near.size() > kNeighbourSizes) near.resize(kNeighbourSizes);
  for (std::size_t i : near) {
    const SizeOutcome& n = done_[i];
    std::vector<std::size_t> ranked;
    for (std::size_t k = 0; k < n.evaluated.size(); ++k)
      if (n.objectives[k]) ranked.push_back(k);
    std::stable_sort(ranked.begin(), ranked.end(),
                     [&](std::size_t a, std::size_t b) { return *n.objectives[a] < *n.objectives[b]; });
    std::size_t taken = 0;
    for (std::size_t k : ranked) {
      if (taken == kStartsPerSize) break;
      const std::size_t c = n.evaluated[k];
      if (std::find(starts.begin(), starts.end(), c) == starts.end()) starts.push_back(c);
      ++taken;
    }
    if (from) from->push_back(n.size.label());
  }
  return starts;
}

const SizeOutcome& SizeSearch::search(const sizes::Size& size, search::Evaluator& evaluator) {
  SizeOutcome out;
  out.size = size;
  out.starts = starts_for(size, &out.seeded_from);
  Recording recording(evaluator, out);
  search::Context ctx(space_, recording, policy_.budget, policy_.seed + done_.size(), policy_.options, out.starts);
  bool stopped = false;
  try {
    for (std::size_t c : ctx.starts()) ctx.evaluate(c);  // the starts first, whatever the strategy
  } catch (const search::Stop&) {
    stopped = true;
  }
  if (!stopped) search::run(policy_.strategy, ctx);
  out.best = ctx.best();
  if (out.best) out.best_objective = ctx.best_objective();
  done_.push_back(std::move(out));
  return done_.back();
}

}  // namespace tune::tuning

#include "query/query.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"
#include "common/suggest.h"
#include "query/verdict.h"

namespace tune::query {

std::string resolve_kernel(store::Store& db, const std::optional<std::string>& kernel) {
  auto kernels = db.kernels();
  if (kernel) {
    if (std::find(kernels.begin(), kernels.end(), *kernel) == kernels.end()) {
      std::string known;
      for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k;
      const std::vector<std::string_view> names(kernels.begin(), kernels.end());
      throw InputError("no results for kernel '" + *kernel + "' in " + db.path() + did_you_mean(*kernel, names) +
                       (known.empty() ? " (the database is empty)" : " (it has: " + known + ")"));
    }
    return *kernel;
  }
  if (kernels.size() == 1) return kernels[0];
  if (kernels.empty())
    throw InputError("no results in " + db.path() + " yet: run `tune --space ... --sizes ...` first");
  std::string known;
  for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k;
  throw InputError(db.path() + " holds several kernels (" + known + "): choose one with --kernel");
}

namespace {

void figures_of(const Contender& c, Best& b) {
  b.params = c.params;
  b.time_ms = c.time_ms;
  b.half_width_ms = c.time_hw_ms;
  b.objective_value = c.estimate.value;
  b.energy_j = c.energy_j;
  b.energy_hw_j = c.energy_hw_j;
  b.power_w = c.power_w;
  b.gbps = c.gbps;
  b.gflops = c.gflops;
  b.config_id = c.config_id;
  b.run_id = c.run_id;
}

Best best_of(const std::string& kernel, const std::string& device, const SizeVerdict& v,
             decision::Objective objective) {
  const Contender& u = v.used();
  Best b;
  b.kernel = kernel;
  b.device = device;
  b.size = b.measured_size = v.size;
  b.objective = objective;
  figures_of(u, b);
  b.candidates = v.candidates;
  for (const auto& c : v.tied)
    if (c.config_id != u.config_id) b.tied.push_back(c.params);
  if (v.chosen != 0) b.winner = v.winner().params;
  b.noise = v.noise;
  b.remeasured = v.remeasured;
  return b;
}

}  // namespace

namespace {

select::Extents extents(const std::string& label) {
  const auto d = sizes::Size::parse_label(label).dims;
  return {d[0], d[1], d[2]};
}

}  // namespace

std::vector<select::SizeMeasurements> size_measurements(const std::vector<SizeVerdict>& verdicts) {
  std::vector<select::SizeMeasurements> out;
  for (const auto& v : verdicts) {
    select::SizeMeasurements m;
    m.size = extents(v.size);
    m.decision = v.used().params;
    m.decision_ms = v.used().estimate.value;
    for (const auto& c : v.all) m.times.emplace_back(c.params, c.estimate.value);
    out.push_back(std::move(m));
  }
  return out;
}

namespace {

select::Data model_of(const std::vector<SizeVerdict>& all, const select::Alignment& alignment) {
  return select::build(size_measurements(all), alignment);
}

std::string label_of(const tune_select::Point& p, int rank) { return sizes::Size{{p.x, p.y, p.z}, rank}.label(); }

// The model's choice at a size never measured: the chosen configuration's figures are those of the
// nearest size of its evidence (the nearest measured size when it has none).
Best predicted(const std::string& kernel, const std::string& device, const std::vector<SizeVerdict>& all,
               const select::Data& data, const sizes::Size& asked, int rank, decision::Objective objective) {
  const tune_select::Model m = data.model();
  const tune_select::Choice c = tune_select::select(m, asked.x(), asked.y(), asked.z());
  const std::string& params = data.variants.at(c.variant);
  const unsigned at = c.count > 0 ? c.evidence[0].size : c.nearest;
  const tune_select::Point& near = m.sizes[at];
  const SizeVerdict* v = &all.front();
  for (const auto& x : all)
    if (extents(x.size) == select::Extents{near.x, near.y, near.z}) v = &x;
  Best b = best_of(kernel, device, *v, objective);
  b.size = asked.label();
  b.match = c.how;
  b.regret = c.regret;
  b.applies = c.applies;
  b.tied.clear();
  b.winner.clear();
  b.remeasured = false;
  for (const auto& x : v->all)
    if (x.params == params) figures_of(x, b);
  for (unsigned k = 0; k < c.count; ++k) {
    const tune_select::Point& p = m.sizes[c.evidence[k].size];
    const double r = c.evidence[k].regret / tune_select::kScale;
    b.evidence.push_back({label_of(p, rank), r, r * p.best_ms});
  }
  return b;
}

}  // namespace

select::Data model(store::Store& db, const std::string& kernel, const std::string& device,
                   const select::Alignment& alignment, decision::Objective objective) {
  return model_of(verdicts(db, kernel, device, {}, objective), alignment);
}

std::vector<Best> best(store::Store& db, const BestQuery& q) {
  std::string kernel = resolve_kernel(db, q.kernel);
  std::vector<std::string> devices = q.device ? std::vector<std::string>{*q.device} : db.devices(kernel);
  std::vector<Best> out;
  for (const auto& device : devices) {
    auto measured = db.sizes(kernel, device);
    if (measured.empty()) {
      if (q.device) {
        const auto known = db.devices(kernel);
        std::string list;
        for (const auto& d : known) list += (list.empty() ? "" : ", ") + d;
        const std::vector<std::string_view> names(known.begin(), known.end());
        throw InputError("no results for kernel '" + kernel + "' on device '" + device + "' in " + db.path() +
                         did_you_mean(device, names) + " (it has: " + list + ")");
      }
      continue;
    }
    const auto all = verdicts(db, kernel, device, {}, q.objective);
    if (!q.size) {
      for (const auto& v : all) out.push_back(best_of(kernel, device, v, q.objective));
      continue;
    }
    if (all.empty()) continue;  // only failures on this device
    const auto rank = static_cast<int>(std::count(measured[0].begin(), measured[0].end(), 'x')) + 1;
    const select::Data model = model_of(all, q.alignment);
    std::string_view rest = *q.size;
    while (true) {  // a comma list: the verdicts and the model serve every size of it
      const auto comma = rest.find(',');
      // "4096" for a kernel measured at 2-D (3-D) sizes means 4096x4096 (x4096), as in --sizes
      const sizes::Size asked = sizes::Size::parse_label(rest.substr(0, comma));
      const sizes::Size canonical = asked.rank == 1 ? asked.full(rank) : asked;
      const auto exact =
          std::find_if(all.begin(), all.end(), [&](const SizeVerdict& v) { return v.size == canonical.label(); });
      if (exact != all.end()) {
        Best b = best_of(kernel, device, *exact, q.objective);
        b.regret = exact->used().estimate.value / exact->all.front().estimate.value;
        b.evidence.push_back({b.size, b.regret, b.objective_value});
        out.push_back(std::move(b));
      } else {
        out.push_back(predicted(kernel, device, all, model, canonical, rank, q.objective));
      }
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

}  // namespace tune::query

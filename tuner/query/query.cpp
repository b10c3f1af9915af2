#include "query/query.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"
#include "common/suggest.h"
#include "query/verdict.h"

namespace tune::query {

namespace {}  // namespace

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

std::string nearest_size(const std::vector<std::string>& measured, const std::string& size) {
  if (measured.empty()) return "";
  double want = std::log(sizes::Size::parse_label(size).elements());
  std::string best;
  double best_d = INFINITY, best_e = 0;
  for (const auto& m : measured) {
    double e = sizes::Size::parse_label(m).elements(), d = std::fabs(std::log(e) - want);
    if (d < best_d - 1e-12 || (std::fabs(d - best_d) <= 1e-12 && e < best_e)) best = m, best_d = d, best_e = e;
  }
  return best;
}

namespace {

Best best_of(const std::string& kernel, const std::string& device, const SizeVerdict& v) {
  const Contender& u = v.used();
  Best b;
  b.kernel = kernel;
  b.device = device;
  b.size = b.measured_size = v.size;
  b.params = u.params;
  b.time_ms = u.estimate.value;
  b.half_width_ms = u.estimate.half_width;
  b.gbps = u.gbps;
  b.gflops = u.gflops;
  b.config_id = u.config_id;
  b.run_id = u.run_id;
  b.candidates = v.candidates;
  for (const auto& c : v.tied)
    if (c.config_id != u.config_id) b.tied.push_back(c.params);
  if (v.chosen != 0) b.winner = v.winner().params;
  b.noise = v.noise;
  b.remeasured = v.remeasured;
  return b;
}

}  // namespace

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
    const auto all = verdicts(db, kernel, device);
    std::map<std::string, const SizeVerdict*> at;
    for (const auto& v : all) at[v.size] = &v;
    if (!q.size) {
      for (const auto& v : all) out.push_back(best_of(kernel, device, v));
      continue;
    }
    // "4096" for a kernel measured at 2-D (3-D) sizes means 4096x4096 (x4096), as in --sizes
    const sizes::Size asked = sizes::Size::parse_label(*q.size);
    const auto measured_rank = static_cast<int>(std::count(measured[0].begin(), measured[0].end(), 'x')) + 1;
    const std::string canonical = (asked.rank == 1 ? asked.full(measured_rank) : asked).label();
    std::vector<std::string> verified;
    verified.reserve(all.size());
    for (const auto& v : all) verified.push_back(v.size);
    const bool exact = at.count(canonical) > 0;
    const std::string size = exact ? canonical : nearest_size(verified, canonical);
    if (size.empty()) continue;  // only failures on this device
    Best b = best_of(kernel, device, *at.at(size));
    b.size = canonical;
    b.nearest = !exact;
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace tune::query

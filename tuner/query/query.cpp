#include "query/query.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "common/error.h"

namespace tune::query {

namespace {
double elements(const std::string& size) {
  auto s = store::ProblemSize::parse(size);
  return double(s.x) * double(s.y) * double(s.z);
}
}  // namespace

std::string resolve_kernel(store::Store& db, const std::optional<std::string>& kernel) {
  auto kernels = db.kernels();
  if (kernel) {
    if (std::find(kernels.begin(), kernels.end(), *kernel) == kernels.end()) {
      std::string known;
      for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k;
      throw InputError("no results for kernel '" + *kernel + "' in " + db.path() +
                       (known.empty() ? " (the database is empty)" : " (it has: " + known + ")"));
    }
    return *kernel;
  }
  if (kernels.size() == 1) return kernels[0];
  if (kernels.empty()) throw InputError("no results in " + db.path() + " yet: run `tune --space ... --sizes ...` first");
  std::string known;
  for (const auto& k : kernels) known += (known.empty() ? "" : ", ") + k;
  throw InputError(db.path() + " holds several kernels (" + known + "): choose one with --kernel");
}

std::string nearest_size(const std::vector<std::string>& measured, const std::string& size) {
  if (measured.empty()) return "";
  double want = std::log(elements(size));
  std::string best;
  double best_d = INFINITY, best_e = 0;
  for (const auto& m : measured) {
    double e = elements(m), d = std::fabs(std::log(e) - want);
    if (d < best_d - 1e-12 || (std::fabs(d - best_d) <= 1e-12 && e < best_e)) best = m, best_d = d, best_e = e;
  }
  return best;
}

std::vector<Best> best(store::Store& db, const BestQuery& q) {
  std::string kernel = resolve_kernel(db, q.kernel);
  std::vector<std::string> devices = q.device ? std::vector<std::string>{*q.device} : db.devices(kernel);
  std::vector<Best> out;
  for (const auto& device : devices) {
    auto measured = db.sizes(kernel, device);
    if (measured.empty()) {
      if (q.device) throw InputError("no results for kernel '" + kernel + "' on device '" + device + "' in " + db.path());
      continue;
    }
    std::vector<std::pair<std::string, std::string>> wanted;  // (asked, measured)
    if (q.size) {
      std::string canonical = store::ProblemSize::parse(*q.size).text;
      // "4096" for a kernel measured at 2-D (3-D) sizes means 4096x4096 (x4096), as in --sizes
      auto rank = std::count(measured[0].begin(), measured[0].end(), 'x');
      if (canonical.find('x') == std::string::npos)
        for (long d = 0, n = rank, side = store::ProblemSize::parse(*q.size).x; d < n; ++d) {
          canonical += 'x';
          canonical += std::to_string(side);
        }
      bool exact = std::find(measured.begin(), measured.end(), canonical) != measured.end();
      wanted.emplace_back(canonical, exact ? canonical : nearest_size(measured, canonical));
    } else {
      for (const auto& m : measured) wanted.emplace_back(m, m);
    }
    for (const auto& [asked, at] : wanted) {
      store::MeasurementFilter f;
      f.kernel = kernel;
      f.device = device;
      f.size = at;
      auto rows = db.measurements(f);
      if (rows.empty()) continue;  // only failures there
      const auto* top = &rows[0];
      for (const auto& r : rows)
        if (r.summary && top->summary && r.summary->median < top->summary->median) top = &r;
      Best b;
      b.kernel = kernel;
      b.device = device;
      b.size = asked;
      b.measured_size = at;
      b.nearest = asked != at;
      b.params = top->params;
      b.median_ms = top->summary ? top->summary->median : top->objective.value_or(0);
      b.gbps = top->gbps;
      b.gflops = top->gflops;
      b.config_id = top->config_id;
      b.run_id = top->run_id;
      b.candidates = rows.size();
      out.push_back(std::move(b));
    }
  }
  return out;
}

}  // namespace tune::query

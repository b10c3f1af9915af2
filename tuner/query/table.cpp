#include "query/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdio>
#include <iostream>

#include "query/query.h"

namespace tune::query {

namespace {

// printf into a string.
[[gnu::format(printf, 1, 2)]] std::string strf(const char* fmt, ...) {
  char buf[512];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  return buf;
}

// "-" for no value.
std::string num(const char* fmt, const std::optional<double>& v) { return v ? strf(fmt, *v) : "-"; }

}  // namespace

std::vector<TableRow> run_table(store::Store& db, const std::string& kernel, const std::string& device,
                                const std::vector<std::string>& sizes) {
  std::vector<TableRow> rows;
  for (const auto& size : sizes) {
    TableRow r;
    r.size = size;
    auto top = best(db, {kernel, device, size});
    if (!top.empty() && !top[0].nearest) {
      r.best = top[0].params;
      r.median_ms = top[0].median_ms;
      r.gbps = top[0].gbps;
      r.gflops = top[0].gflops;
    }
    // Per ceiling: the one the best configuration's run measured (ratios within one run), else the
    // latest run's (a best imported or measured by a run that took no ceilings).
    const std::int64_t best_run = r.best.empty() ? 0 : top[0].run_id;
    std::map<std::string, store::Ceiling> ceiling;
    for (const auto& c : db.ceilings(device, size)) {
      const auto it = ceiling.find(c.name);
      if (it == ceiling.end() ||
          (it->second.run_id != best_run && (c.run_id == best_run || c.run_id > it->second.run_id)))
        ceiling[c.name] = c;
    }
    if (r.gbps && ceiling.count("d2d_copy") && ceiling["d2d_copy"].gbps) r.copy_fraction = *r.gbps / *ceiling["d2d_copy"].gbps;
    if (r.gflops && ceiling.count("fp32_peak") && ceiling["fp32_peak"].gflops && *ceiling["fp32_peak"].gflops > 0)
      r.peak_fraction = *r.gflops / *ceiling["fp32_peak"].gflops;
    for (const char* lib : {"cublas_sgeam", "cublas_sgemm", "cublas_sgemm_argmax"})
      if (ceiling.count(lib) && r.median_ms > 0) {
        r.library = lib;
        r.library_ratio = ceiling[lib].median_ms / r.median_ms;
      }
    for (const auto& f : db.flags(kernel, device))
      if (f.size == size) r.flags += (r.flags.empty() ? "" : "; ") + std::string(store::to_string(f.kind));
    rows.push_back(std::move(r));
  }
  return rows;
}

void print_run_table(store::Store& db, const std::string& kernel, const std::string& device,
                     const std::vector<std::string>& sizes, const std::vector<std::string>& flag_lines,
                     const RunTotals& t, bool json) {
  auto rows = run_table(db, kernel, device, sizes);
  if (json) {
    nlohmann::ordered_json out;
    out["kernel"] = kernel;
    out["device"] = device;
    out["compiled"] = t.compiled;
    out["from_cache"] = t.cached;
    out["measured"] = t.measured;
    out["failed"] = t.failed;
    out["compile_cpu_seconds"] = t.compile_s;
    out["measure_seconds"] = t.measure_s;
    out["wall_seconds"] = t.wall_s;
    auto& arr = out["sizes"] = nlohmann::ordered_json::array();
    for (const auto& r : rows) {
      nlohmann::ordered_json j;
      j["size"] = r.size;
      j["best"] = r.best.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(r.best);
      j["median_ms"] = r.median_ms;
      j["gbps"] = r.gbps ? nlohmann::ordered_json(*r.gbps) : nlohmann::ordered_json();
      j["copy_fraction"] = r.copy_fraction ? nlohmann::ordered_json(*r.copy_fraction) : nlohmann::ordered_json();
      j["gflops"] = r.gflops ? nlohmann::ordered_json(*r.gflops) : nlohmann::ordered_json();
      j["peak_fraction"] = r.peak_fraction ? nlohmann::ordered_json(*r.peak_fraction) : nlohmann::ordered_json();
      j["library"] = r.library;
      j["library_ratio"] = r.library_ratio ? nlohmann::ordered_json(*r.library_ratio) : nlohmann::ordered_json();
      j["flags"] = r.flags;
      arr.push_back(j);
    }
    std::cout << out.dump() << "\n";
    return;
  }
  std::printf("\n%s on %s\n", kernel.c_str(), device.c_str());
  bool any_gflops = false, any_copy = false;
  int w = 12;  // the size column: 12 wide, wider for long sizes such as 16384x16384x128
  for (const auto& r : rows) {
    any_gflops = any_gflops || r.gflops.has_value();
    any_copy = any_copy || r.copy_fraction.has_value();
    w = std::max(w, static_cast<int>(r.size.size()));
  }
  // GB/s for bytes-only kernels; for GFLOP/s kernels only with a copy ceiling to compare with.
  const bool bytes_cols = any_copy || !any_gflops;
  std::string head = strf("%-*s %10s", w, "size", "median ms");
  if (bytes_cols) head += strf(" %9s %7s", "GB/s", "of copy");
  if (any_gflops) head += strf(" %9s %7s", "GFLOP/s", "of peak");
  std::printf("%s %9s  %-12s %s\n", head.c_str(), "vs lib", "flags", "best configuration");
  for (const auto& r : rows) {
    std::string line = strf("%-*s %10.4f", w, r.size.c_str(), r.median_ms);
    if (bytes_cols) line += strf(" %9s %7s", num("%.0f", r.gbps).c_str(), num("%.3f", r.copy_fraction).c_str());
    if (any_gflops) line += strf(" %9s %7s", num("%.0f", r.gflops).c_str(), num("%.3f", r.peak_fraction).c_str());
    const std::string lr = r.library_ratio ? strf("%.3fx", *r.library_ratio) : "-";
    std::printf("%s %9s  %-12s %s\n", line.c_str(), lr.c_str(), r.flags.c_str(), r.best.c_str());
  }
  for (const auto& f : flag_lines) std::printf("flag %s\n", f.c_str());
  std::printf("%zu measured, %zu failed; %zu compiled (%.1f s of compile time on %u threads), %zu from the binary cache; "
              "measurement %.1f s; wall %.1f s\n",
              t.measured, t.failed, t.compiled, t.compile_s, t.workers, t.cached, t.measure_s, t.wall_s);
}

}  // namespace tune::query

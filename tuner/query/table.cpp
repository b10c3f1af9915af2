#include "query/table.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <map>
#include <set>

#include "output/output.h"
#include "query/labels.h"
#include "query/verdict.h"
#include "spec/ceilings.h"

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

nlohmann::ordered_json opt(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

// Per ceiling: the one the used configuration's run measured (ratios within one run), else the
// latest run's (a result imported or measured by a run that took no ceilings).
std::map<std::string, store::Ceiling> ceilings_at(store::Store& db, const std::string& device, const std::string& size,
                                                  std::int64_t run) {
  std::map<std::string, store::Ceiling> out;
  for (const auto& c : db.ceilings(device, size)) {
    const auto it = out.find(c.name);
    if (it == out.end() || (it->second.run_id != run && (c.run_id == run || c.run_id > it->second.run_id)))
      out[c.name] = c;
  }
  return out;
}

// A ceiling's rate at a size: GB/s when it has one, else work per ms (elements / time).
std::optional<double> rate(const std::map<std::string, store::Ceiling>& c, const std::string& name, double elements) {
  const auto it = c.find(name);
  if (it == c.end()) return std::nullopt;
  if (it->second.gbps) return *it->second.gbps;
  if (it->second.gflops) return *it->second.gflops;
  return it->second.time_ms > 0 ? std::optional(elements / it->second.time_ms) : std::nullopt;
}

}  // namespace

bool implausible(double value, std::optional<double> left, std::optional<double> right) {
  if (!left || !right || *left <= 0 || *right <= 0 || value <= 0) return false;
  return value < std::min(*left, *right) / 3.0 || value > 3.0 * std::max(*left, *right);
}

Table run_table(store::Store& db, const std::string& kernel, const std::string& device,
                const std::vector<std::string>& sizes) {
  Table t;
  decision::Rule rule;
  t.rule = decision::describe(rule);
  const auto all = verdicts(db, kernel, device, rule);
  std::map<std::string, const SizeVerdict*> at;
  for (const auto& v : all) at[v.size] = &v;
  std::vector<SizeVerdict> shown;  // the verdicts at the table's sizes, for the single best
  for (const auto& s : sizes)
    if (at.count(s)) shown.push_back(*at[s]);
  const auto single = single_best(shown);
  if (single) t.single_best = single->params;

  std::map<std::int64_t, store::RunInfo> runs;
  std::vector<std::string> timing;  // in the order of the sizes that used each (not as text)
  std::vector<std::map<std::string, store::Ceiling>> ceilings;
  std::size_t k = 0;  // index into shown
  for (const auto& size : sizes) {
    TableRow r;
    r.size = size;
    std::int64_t run = 0;
    if (const auto it = at.find(size); it != at.end()) {
      const SizeVerdict& v = *it->second;
      const Contender& u = v.used();
      r.best = u.params;
      r.time_ms = u.estimate.value;
      r.noise = v.noise;
      r.tied = v.tied.size() - 1;
      r.remeasured = v.remeasured;
      r.gbps = u.gbps;
      r.gflops = u.gflops;
      if (single) r.single_loss = single->loss.at(k);
      ++k;
      run = u.run_id;
      if (!runs.count(run))
        if (auto info = db.run(run)) runs[run] = *info;
      if (runs.count(run)) {
        const auto& info = runs[run];
        if (info.kind != store::RunKind::gpu) t.replayed = true;
        const std::string how = !info.timing.empty() ? info.timing
                                                     : std::string(store::to_string(info.kind)) +
                                                           " data of an older tune (per-launch CUDA events, median)";
        if (std::find(timing.begin(), timing.end(), how) == timing.end()) timing.push_back(how);
      }
    }
    ceilings.push_back(ceilings_at(db, device, size, run));
    auto& ceiling = ceilings.back();
    for (const auto& kind : spec::ceiling_kinds()) {  // roles and precedence: spec/ceilings.h
      const auto it = ceiling.find(std::string(kind.name));
      if (it == ceiling.end()) continue;
      const store::Ceiling& c = it->second;
      if (kind.role == spec::CeilingRole::roofline && r.gbps && c.gbps && *c.gbps > 0)
        r.copy_fraction = *r.gbps / *c.gbps;
      if (kind.role == spec::CeilingRole::peak && r.gflops && c.gflops && *c.gflops > 0)
        r.peak_fraction = *r.gflops / *c.gflops;
      if (kind.role == spec::CeilingRole::library && r.time_ms > 0) {
        r.library = kind.name;
        r.library_ratio = c.time_ms / r.time_ms;
        r.libraries.push_back({r.library, *r.library_ratio, c.gflops});
      }
    }
    t.rows.push_back(std::move(r));
  }
  for (const auto& f : db.flags(kernel, device))
    for (auto& r : t.rows)
      if (f.size == r.size) r.flags += (r.flags.empty() ? "" : ",") + std::string(store::to_string(f.kind));
  // ceilings that disagree implausibly with both neighbours
  for (std::size_t i = 1; i + 1 < t.rows.size(); ++i)
    for (const auto& [name, c] : ceilings[i]) {
      const double e = sizes::Size::parse_label(t.rows[i].size).elements();
      const auto v = rate(ceilings[i], name, e);
      if (v && implausible(*v, rate(ceilings[i - 1], name, sizes::Size::parse_label(t.rows[i - 1].size).elements()),
                           rate(ceilings[i + 1], name, sizes::Size::parse_label(t.rows[i + 1].size).elements())))
        t.rows[i].ceiling_suspect = true;
    }
  t.timing = std::move(timing);
  return t;
}

void print_run_table(store::Store& db, const std::string& kernel, const std::string& device,
                     const std::vector<std::string>& sizes, const RunTotals& totals, bool json, bool wide) {
  const Table t = run_table(db, kernel, device, sizes);
  const auto flags = db.flags(kernel, device);
  if (json) {
    nlohmann::ordered_json out;
    out["kernel"] = kernel;
    out["device"] = device;
    out["statistic"] = t.statistic;
    out["timing"] = t.timing;
    out["replayed"] = t.replayed;
    out["rule"] = t.rule;
    out["single_best"] =
        t.single_best.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(t.single_best);
    out["compiled"] = totals.compiled;
    out["from_cache"] = totals.cached;
    out["measured"] = totals.measured;
    out["failed"] = totals.failed;
    out["compile_cpu_s"] = totals.compile_s;
    out["measure_s"] = totals.measure_s;
    out["timed_s"] = totals.timed_s;
    out["wall_s"] = totals.wall_s;
    auto& arr = out["sizes"] = nlohmann::ordered_json::array();
    for (const auto& r : t.rows) {
      nlohmann::ordered_json j;
      j["size"] = r.size;
      j["params"] = r.best.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(r.best);
      j["time_ms"] = r.time_ms;
      j["noise"] = r.noise;
      j["tied"] = r.tied;
      j["remeasured"] = r.remeasured;
      j["gbps"] = opt(r.gbps);
      j["copy_fraction"] = opt(r.copy_fraction);
      j["gflops"] = opt(r.gflops);
      j["peak_fraction"] = opt(r.peak_fraction);
      j["library"] = r.library;
      j["library_ratio"] = opt(r.library_ratio);
      j["single_loss"] = opt(r.single_loss);
      j["ceiling_suspect"] = r.ceiling_suspect;
      j["flags"] = r.flags;
      arr.push_back(j);
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return;
  }
  // Notes: whole lines with --wide, else wrapped at the table's width.
  auto note = [wide](const std::string& text) {
    if (wide) {
      std::printf("%s\n", text.c_str());
      return;
    }
    for (const auto& line : output::wrap(text)) std::printf("%s\n", line.c_str());
  };
  ConfigLabels labels;
  std::printf("\n");
  note(kernel + " on " + device);
  for (const auto& line : t.timing) note("timing: " + line);
  if (t.replayed) note("data: replayed or imported measurements (not measured by this run)");
  note("decision: " + t.rule);
  bool any_gflops = false, any_copy = false, any_suspect = false;
  std::vector<double> times;
  for (const auto& r : t.rows) {
    any_gflops = any_gflops || r.gflops.has_value();
    any_copy = any_copy || r.copy_fraction.has_value();
    any_suspect = any_suspect || r.ceiling_suspect;
    if (!r.best.empty()) times.push_back(r.time_ms);
  }
  // GB/s for bytes-only kernels; for GFLOP/s kernels only with a copy ceiling to compare with.
  const bool bytes_cols = any_copy || !any_gflops;
  const output::TimeUnit unit = output::time_unit(times);
  std::vector<output::Column> cols = {{"size", output::Align::left}, {t.statistic + " " + unit.name}, {"noise"}};
  if (bytes_cols) cols.insert(cols.end(), {{"GB/s"}, {"of copy"}});
  if (any_gflops) cols.insert(cols.end(), {{"GFLOP/s"}, {"of peak"}});
  cols.insert(
      cols.end(),
      {{"vs lib"}, {"single"}, {"tied"}, {"flags", output::Align::left}, {"configuration", output::Align::left}});
  output::Table table(cols);
  for (const auto& r : t.rows) {
    const std::string mark = r.ceiling_suspect ? "?" : "";
    std::vector<std::string> cells = {r.size, r.best.empty() ? "-" : output::format_time(r.time_ms, unit),
                                      strf("%.1f%%", 100.0 * r.noise)};
    if (bytes_cols) cells.insert(cells.end(), {num("%.0f", r.gbps), num("%.3f", r.copy_fraction) + mark});
    if (any_gflops) cells.insert(cells.end(), {num("%.0f", r.gflops), num("%.3f", r.peak_fraction) + mark});
    cells.insert(cells.end(), {r.library_ratio ? strf("%.3fx", *r.library_ratio) : "-",
                               r.single_loss ? strf("%.3fx", *r.single_loss) : "-", std::to_string(r.tied), r.flags,
                               wide ? r.best : labels.label(r.best)});
    table.add(std::move(cells));
  }
  for (const auto& line : wide ? table.lines(SIZE_MAX) : table.lines()) std::printf("%s\n", line.c_str());
  if (!wide) {
    if (!t.single_best.empty()) (void)labels.label(t.single_best);  // in the legend too
    const auto legend = labels.legend();
    if (!legend.empty()) std::printf("configurations (--wide prints them in the table):\n");
    for (const auto& l : legend)
      for (const auto& line : output::wrap("  " + output::breakable(l), output::width(), 7))
        std::printf("%s\n", line.c_str());
  }
  if (any_suspect)
    note("?: a ceiling at this size disagrees implausibly with both neighbouring sizes (re-measured; kept)");
  if (!t.single_best.empty()) {
    const std::string single = wide ? t.single_best : labels.label(t.single_best);
    note("single: the best single configuration over these sizes, " + single +
         ", is that many times slower than the configuration used");
  }
  for (const auto& f : flags)
    if (std::find(sizes.begin(), sizes.end(), f.size) != sizes.end())
      note("flag " + f.size + " " + std::string(store::to_string(f.kind)) + ": " + f.text);
  note(
      strf("%zu measured, %zu failed; %zu compiled (%.1f s of compile time, %u at a time), %zu from the binary cache; "
           "measurement %.1f s (%.1f s of it timed launches); wall %.1f s",
           totals.measured, totals.failed, totals.compiled, totals.compile_s, totals.workers, totals.cached,
           totals.measure_s, totals.timed_s, totals.wall_s));
}

}  // namespace tune::query

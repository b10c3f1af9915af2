// The evaluation's outputs: the text table, JSON and the curves as CSV.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "evaluate/evaluate.h"
#include "output/output.h"

namespace tune::evaluate {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string score_text(const Cell& c) {
  if (!c.curve) return "error";
  return std::isnan(c.curve->mean) ? "n/a" : fmt("%.3f", c.curve->mean);
}

}  // namespace

std::string format_table(const Result& r) {
  const Settings& st = r.options.settings;
  std::string out;
  const std::string intro =
      "FGCS 2024 methodology: " + std::to_string(r.options.repeats) + " repeats per strategy and cache (seeds " +
      std::to_string(r.options.seed) + ".." + std::to_string(r.options.seed + r.options.repeats - 1) +
      "); score 0 = calculated random search, 1 = optimum at once, averaged over " + std::to_string(st.resolution) +
      " time points from the " + fmt("%g", st.cutoff_percentile_start) + " to the " + fmt("%g", st.cutoff_percentile) +
      " cutoff (median -> optimum); time limit per run: the " + fmt("%g", st.cutoff_percentile) + " cutoff x " +
      fmt("%g", 1 + st.cutoff_margin) + (st.exact_rank ? "; baseline at the exact expected rank" : "");
  for (const auto& line : output::wrap(intro)) out += line + "\n";
  out += "\n";

  using output::Align;
  std::vector<double> times;  // the caches' objectives, Kernel Tuner's `time` in ms
  for (const SpaceStats& s : r.stats) times.insert(times.end(), {s.optimum(), s.median()});
  const output::TimeUnit unit = output::time_unit(times);
  output::Table caches({{"cache", Align::left},
                        {"configs"},
                        {"failed"},
                        {"optimum " + unit.name},
                        {"median " + unit.name},
                        {"s/eval"},
                        {"fevals"},
                        {"time s"},
                        {"limit s"}});
  for (std::size_t p = 0; p < r.problems.size(); ++p) {
    const SpaceStats& s = r.stats[p];
    const Window& w = r.windows[p];
    caches.add({r.problems[p], std::to_string(s.configs()), std::to_string(s.configs() - s.successful()),
                output::format_time(s.optimum(), unit), output::format_time(s.median(), unit),
                fmt("%.3f", s.time_per_feval_s()), std::to_string(w.start.fevals) + ".." + std::to_string(w.end.fevals),
                fmt("%.1f", w.start.time_s) + ".." + fmt("%.1f", w.end.time_s), fmt("%.1f", w.time_limit_s)});
  }
  out += caches.text() + "\n";

  // The scores: a strategy per row and a cache per column while that fits, else one wrapped
  // line per strategy.
  std::vector<output::Column> cols = {{"strategy", Align::left}};
  for (const auto& p : r.problems) cols.push_back({p});
  cols.push_back({"mean"});
  output::Table scores(cols);
  std::vector<std::string> errors, listed;
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    std::vector<std::string> row = {r.strategies[s]};
    std::string list = r.strategies[s] + ": mean ";
    std::string first_error;
    std::size_t failed = 0;
    for (std::size_t p = 0; p < r.problems.size(); ++p) {
      const Cell& c = r.cells[s][p];
      row.push_back(score_text(c));
      if (!c.curve) {
        ++failed;
        if (first_error.empty()) first_error = c.error;
      }
    }
    auto m = r.mean(s);
    row.push_back(m ? fmt("%.3f", *m) : "-");
    list += row.back() + ";";
    for (std::size_t p = 0; p < r.problems.size(); ++p) list += " " + r.problems[p] + " " + row[p + 1] + ",";
    list.pop_back();
    listed.push_back(list);
    scores.add(std::move(row));
    if (failed)
      errors.push_back(r.strategies[s] + ": " + first_error +
                       (failed == r.problems.size() ? "" : " (on " + std::to_string(failed) + " caches)"));
  }
  const auto lines = scores.lines(SIZE_MAX);
  if (!lines.empty() && output::columns(lines.front()) <= output::width()) {
    for (const auto& l : lines) out += l + "\n";
  } else {
    for (const auto& l : listed)
      for (const auto& w : output::wrap(l, output::width(), 4)) out += w + "\n";
  }
  for (const auto& e : errors)
    for (const auto& w : output::wrap("error: " + e)) out += w + "\n";
  out += fmt("%.1f", r.seconds) + " s of runs\n";
  return out;
}

nlohmann::ordered_json to_json(const Result& r) {
  using ojson = nlohmann::ordered_json;
  const Settings& st = r.options.settings;
  ojson j;
  j["methodology"] = "Willemsen et al., FGCS 2024 (AutoTuningAssociation/autotuning_methodology)";
  j["settings"] = {{"cutoff_percentile", st.cutoff_percentile},
                   {"cutoff_percentile_start", st.cutoff_percentile_start},
                   {"cutoff_margin", st.cutoff_margin},
                   {"resolution", st.resolution},
                   {"exact_rank", st.exact_rank}};
  j["repeats"] = r.options.repeats;
  j["seed"] = r.options.seed;
  j["caches"] = ojson::array();
  for (std::size_t p = 0; p < r.problems.size(); ++p) {
    const SpaceStats& s = r.stats[p];
    const Window& w = r.windows[p];
    j["caches"].push_back({{"cache", r.problems[p]},
                           {"configs", s.configs()},
                           {"failed", s.configs() - s.successful()},
                           {"optimum_time_ms", s.optimum()},
                           {"median_time_ms", s.median()},
                           {"time_per_feval_s", s.time_per_feval_s()},
                           {"median_feval_s", s.median_time_s()},
                           {"fevals_start", w.start.fevals},
                           {"fevals_end", w.end.fevals},
                           {"time_start_s", w.start.time_s},
                           {"time_end_s", w.end.time_s},
                           {"time_limit_s", w.time_limit_s}});
  }
  j["strategies"] = ojson::array();
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    // One object per cache (its label a value, never a key).
    ojson row{{"strategy", r.strategies[s]}, {"caches", ojson::array()}};
    for (std::size_t p = 0; p < r.problems.size(); ++p) {
      const Cell& c = r.cells[s][p];
      row["caches"].push_back({{"cache", r.problems[p]},
                               {"score", c.curve && !std::isnan(c.curve->mean) ? ojson(c.curve->mean) : ojson(nullptr)},
                               {"mean_fevals", c.mean_fevals},
                               {"error", c.curve ? ojson(nullptr) : ojson(c.error)}});
    }
    auto m = r.mean(s);
    row["mean"] = m ? ojson(*m) : ojson(nullptr);
    j["strategies"].push_back(std::move(row));
  }
  j["wall_s"] = r.seconds;
  return j;
}

std::string curves_csv(const Result& r) {
  std::string out = "cache,strategy,time_s,random,strategy_best,score\n";
  for (std::size_t s = 0; s < r.strategies.size(); ++s)
    for (std::size_t p = 0; p < r.problems.size(); ++p) {
      const Cell& c = r.cells[s][p];
      if (!c.curve) continue;
      const Window& w = r.windows[p];
      for (std::size_t k = 0; k < w.times.size(); ++k) {
        out += r.problems[p] + "," + r.strategies[s] + "," + fmt("%.9g", w.times[k]) + "," +
               fmt("%.9g", c.curve->random[k]) + "," + fmt("%.9g", c.curve->strategy[k]) + "," +
               (std::isnan(c.curve->score[k]) ? std::string("nan") : fmt("%.9g", c.curve->score[k])) + "\n";
      }
    }
  return out;
}

}  // namespace tune::evaluate

// The evaluation's outputs: the text table, JSON and the curves as CSV.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "evaluate/evaluate.h"

namespace tune::evaluate {

namespace {

std::string fmt(const char* f, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, f, v);
  return buf;
}

std::string pad_left(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : std::string(w - s.size(), ' ') + s;
}
std::string pad_right(const std::string& s, std::size_t w) {
  return s.size() >= w ? s : s + std::string(w - s.size(), ' ');
}

std::string score_text(const Cell& c) {
  if (!c.curve) return "error";
  return std::isnan(c.curve->mean) ? "n/a" : fmt("%.3f", c.curve->mean);
}

}  // namespace

std::string format_table(const Result& r) {
  const Settings& st = r.options.settings;
  std::string out;
  out += "FGCS 2024 methodology: " + std::to_string(r.options.repeats) + " repeats per strategy and cache (seeds " +
         std::to_string(r.options.seed) + ".." + std::to_string(r.options.seed + r.options.repeats - 1) +
         "); score 0 = calculated random search, 1 = optimum at once, averaged over " + std::to_string(st.resolution) +
         " time points from the " + fmt("%g", st.cutoff_percentile_start) + " to the " +
         fmt("%g", st.cutoff_percentile) + " cutoff (median -> optimum); time limit per run: the " +
         fmt("%g", st.cutoff_percentile) + " cutoff x " + fmt("%g", 1 + st.cutoff_margin) +
         (st.exact_rank ? "; baseline at the exact expected rank" : "") + "\n\n";

  std::size_t lw = 8;
  for (const auto& p : r.problems) lw = std::max(lw, p.size());
  out += pad_right("cache", lw) +
         "  configs  failed     optimum      median   s/eval  fevals range  time range s    limit s\n";
  for (std::size_t p = 0; p < r.problems.size(); ++p) {
    const SpaceStats& s = r.stats[p];
    const Window& w = r.windows[p];
    out += pad_right(r.problems[p], lw) + pad_left(std::to_string(s.configs()), 9) +
           pad_left(std::to_string(s.configs() - s.successful()), 8) + pad_left(fmt("%.5g", s.optimum()), 12) +
           pad_left(fmt("%.5g", s.median()), 12) + pad_left(fmt("%.3f", s.time_per_feval_s()), 9) +
           pad_left(std::to_string(w.start.fevals) + ".." + std::to_string(w.end.fevals), 14) +
           pad_left(fmt("%.1f", w.start.time_s) + ".." + fmt("%.1f", w.end.time_s), 14) +
           pad_left(fmt("%.1f", w.time_limit_s), 11) + "\n";
  }
  out += "\n";

  std::size_t sw = 8;
  for (const auto& s : r.strategies) sw = std::max(sw, s.size());
  std::vector<std::size_t> cw;
  out += pad_right("strategy", sw);
  for (const auto& p : r.problems) {
    cw.push_back(std::max<std::size_t>(p.size(), 7) + 2);
    out += pad_left(p, cw.back());
  }
  out += pad_left("mean", 9) + "\n";
  std::vector<std::string> errors;
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    out += pad_right(r.strategies[s], sw);
    std::string first_error;
    std::size_t failed = 0;
    for (std::size_t p = 0; p < r.problems.size(); ++p) {
      const Cell& c = r.cells[s][p];
      out += pad_left(score_text(c), cw[p]);
      if (!c.curve) {
        ++failed;
        if (first_error.empty()) first_error = c.error;
      }
    }
    auto m = r.mean(s);
    out += pad_left(m ? fmt("%.3f", *m) : "-", 9) + "\n";
    if (failed)
      errors.push_back(r.strategies[s] + ": " + first_error +
                       (failed == r.problems.size() ? "" : " (on " + std::to_string(failed) + " caches)"));
  }
  for (const auto& e : errors) out += "error: " + e + "\n";
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
                           {"optimum", s.optimum()},
                           {"median", s.median()},
                           {"time_per_feval_s", s.time_per_feval_s()},
                           {"median_time_s", s.median_time_s()},
                           {"fevals_start", w.start.fevals},
                           {"fevals_end", w.end.fevals},
                           {"time_start_s", w.start.time_s},
                           {"time_end_s", w.end.time_s},
                           {"time_limit_s", w.time_limit_s}});
  }
  j["strategies"] = ojson::array();
  for (std::size_t s = 0; s < r.strategies.size(); ++s) {
    ojson row{{"strategy", r.strategies[s]}, {"scores", ojson::object()}, {"mean_fevals", ojson::object()}};
    for (std::size_t p = 0; p < r.problems.size(); ++p) {
      const Cell& c = r.cells[s][p];
      row["scores"][r.problems[p]] = c.curve && !std::isnan(c.curve->mean) ? ojson(c.curve->mean) : ojson(nullptr);
      row["mean_fevals"][r.problems[p]] = c.mean_fevals;
      if (!c.curve) row["errors"][r.problems[p]] = c.error;
    }
    auto m = r.mean(s);
    row["mean"] = m ? ojson(*m) : ojson(nullptr);
    j["strategies"].push_back(std::move(row));
  }
  j["seconds"] = r.seconds;
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

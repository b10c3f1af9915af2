#include "query/energy.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include <nlohmann/json.hpp>

#include "output/output.h"
#include "query/labels.h"
#include "query/verdict.h"

namespace tune::query {

namespace {

std::string fixed(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

// Joules as mJ or uJ, three significant digits.
std::string joules(double j) {
  if (j >= 1) return fixed(j, "%.3g J");
  if (j >= 1e-3) return fixed(j * 1e3, "%.3g mJ");
  return fixed(j * 1e6, "%.3g uJ");
}

std::string percent(double f) { return fixed(100 * f, "%+.1f%%"); }

}  // namespace

std::optional<double> Tradeoff::saved() const {
  if (!time_best_has_energy || !(time_best_j > 0)) return std::nullopt;
  return 1 - energy_best_j / time_best_j;
}

std::vector<SizeFront> pareto(store::Store& db, const std::string& kernel, const std::string& device) {
  std::vector<SizeFront> out;
  for (const auto& v : verdicts(db, kernel, device, {}, decision::Objective::energy)) {
    SizeFront f;
    f.size = v.size;
    for (const auto& c : v.all)
      f.points.push_back({c.params, c.time_ms, *c.energy_j, c.power_w, false, c.energy_raced});
    std::sort(f.points.begin(), f.points.end(),
              [](const EnergyPoint& a, const EnergyPoint& b) { return a.time_ms < b.time_ms; });
    std::vector<decision::TimeEnergyPoint> xy;
    for (const auto& p : f.points) xy.push_back({p.time_ms, p.energy_j});
    f.front = decision::pareto_front(xy);
    for (std::size_t i : f.front) f.points[i].front = true;
    out.push_back(std::move(f));
  }
  return out;
}

std::vector<Tradeoff> tradeoffs(store::Store& db, const std::string& kernel, const std::string& device) {
  std::map<std::string, const Contender*> by_time;
  const auto time = verdicts(db, kernel, device);
  for (const auto& v : time) by_time[v.size] = &v.used();
  std::vector<Tradeoff> out;
  for (const auto& v : verdicts(db, kernel, device, {}, decision::Objective::energy)) {
    const auto t = by_time.find(v.size);
    if (t == by_time.end()) continue;
    Tradeoff x;
    x.size = v.size;
    x.time_best = t->second->params;
    x.time_best_ms = t->second->time_ms;
    // its figures from the same measurements as the energy-optimal one's, where it has an energy
    for (const auto& c : v.all)
      if (c.params == x.time_best) {
        x.time_best_ms = c.time_ms;
        x.time_best_has_energy = true;
        x.time_best_j = *c.energy_j;
      }
    x.energy_best = v.used().params;
    x.energy_best_ms = v.used().time_ms;
    x.energy_best_j = *v.used().energy_j;
    out.push_back(std::move(x));
  }
  return out;
}

std::string pareto_text(store::Store& db, const std::string& kernel, const std::vector<std::string>& devices,
                        bool wide) {
  ConfigLabels labels;
  auto name = [&](const std::string& params) { return wide ? params : labels.label(params); };
  std::string text;
  for (const auto& device : devices) {
    const auto fronts = pareto(db, kernel, device);
    if (fronts.empty()) continue;
    std::map<std::string, Tradeoff> trade;
    for (auto& t : tradeoffs(db, kernel, device)) trade.emplace(t.size, std::move(t));
    output::Table table({{"size", output::Align::left},
                         {"on front"},
                         {"time-optimal"},
                         {"energy-optimal"},
                         {"energy saved"},
                         {"time cost"},
                         {"front (time us, energy)", output::Align::left}});
    for (const auto& f : fronts) {
      std::string front;
      for (std::size_t i : f.front) {
        const EnergyPoint& p = f.points[i];
        front += (front.empty() ? "" : "  ") + name(p.params) + " " + fixed(p.time_ms * 1e3, "%.2f") + " " +
                 joules(p.energy_j);
      }
      const auto t = trade.find(f.size);
      std::string tb = "-", eb = "-", saved = "-", cost = "-";
      if (t != trade.end()) {
        tb = name(t->second.time_best);
        eb = name(t->second.energy_best);
        if (const auto s = t->second.saved()) saved = percent(*s);
        cost = percent(t->second.time_cost());
      }
      table.add(
          {f.size, std::to_string(f.front.size()) + "/" + std::to_string(f.points.size()), tb, eb, saved, cost, front});
    }
    text += kernel + " on " + device + ": time against energy per launch (configurations with a resolved energy)\n";
    for (const auto& l : table.lines(wide ? SIZE_MAX : kTableWidth)) text += l + "\n";
  }
  if (!wide) {
    const auto legend = labels.legend();
    if (!legend.empty()) text += "configurations (--wide prints them in the table):\n";
    for (const auto& l : legend)
      for (const auto& w : wrap("  " + output::breakable(l), kTableWidth, 7)) text += w + "\n";
  }
  text +=
      "front: the configurations no other beats in both time and energy; energy saved: 1 - the energy-optimal "
      "configuration's J per launch / the time-optimal one's; time cost: its time / the time-optimal one's - 1\n";
  return text;
}

std::string pareto_json(store::Store& db, const std::string& kernel, const std::vector<std::string>& devices) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const auto& device : devices) {
    std::map<std::string, Tradeoff> trade;
    for (auto& t : tradeoffs(db, kernel, device)) trade.emplace(t.size, std::move(t));
    for (const auto& f : pareto(db, kernel, device)) {
      nlohmann::ordered_json points = nlohmann::ordered_json::array();
      for (const auto& p : f.points)
        points.push_back({{"params", nlohmann::ordered_json::parse(p.params)},
                          {"time_ms", p.time_ms},
                          {"energy_j", p.energy_j},
                          {"power_w", p.power_w ? nlohmann::ordered_json(*p.power_w) : nlohmann::ordered_json()},
                          {"front", p.front},
                          {"raced", p.raced}});
      nlohmann::ordered_json row = {{"device", device}, {"size", f.size}, {"points", points}};
      if (const auto t = trade.find(f.size); t != trade.end()) {
        row["time_optimal"] = nlohmann::ordered_json::parse(t->second.time_best);
        row["energy_optimal"] = nlohmann::ordered_json::parse(t->second.energy_best);
        const auto s = t->second.saved();
        row["energy_saved"] = s ? nlohmann::ordered_json(*s) : nlohmann::ordered_json();
        row["time_cost"] = t->second.time_cost();
      } else {
        row["time_optimal"] = row["energy_optimal"] = row["energy_saved"] = row["time_cost"] = nullptr;
      }
      rows.push_back(std::move(row));
    }
  }
  nlohmann::ordered_json out;
  out["kernel"] = kernel;
  out["sizes"] = std::move(rows);
  return out.dump(2) + "\n";
}

}  // namespace tune::query

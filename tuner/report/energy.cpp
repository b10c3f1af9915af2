#include "report/energy.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <sstream>

#include "query/energy.h"

namespace tune::report {

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    if (c == '<')
      o += "&lt;";
    else if (c == '>')
      o += "&gt;";
    else if (c == '&')
      o += "&amp;";
    else if (c == '"')
      o += "&quot;";
    else
      o += c;
  }
  return o;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// One size: x the time per launch (us), y the energy per launch (mJ), from zero to the largest.
std::string scatter(const query::SizeFront& f, const std::string& time_best, const std::string& energy_best) {
  const double W = 440, H = 300, L = 60, R = 12, T = 24, B = 42;
  double xmax = 0, ymax = 0;
  for (const auto& p : f.points) xmax = std::max(xmax, p.time_ms * 1e3), ymax = std::max(ymax, p.energy_j * 1e3);
  xmax *= 1.08;
  ymax *= 1.08;
  auto X = [&](double us) { return L + us / xmax * (W - L - R); };
  auto Y = [&](double mj) { return H - B - mj / ymax * (H - T - B); };
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" role=\"img\">"
    << "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>"
    << "<text x=\"" << L << "\" y=\"16\" font-size=\"13\">" << esc(f.size) << ": " << f.front.size() << " of "
    << f.points.size() << " on the front</text>\n";
  for (int i = 0; i <= 4; ++i) {
    const double x = xmax * i / 4, y = ymax * i / 4;
    o << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << Y(y) << "\" y2=\"" << Y(y) << "\" stroke=\"#eee\"/>"
      << "<text x=\"" << L - 4 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\" font-size=\"11\">" << fmt("%.3g", y)
      << "</text><text x=\"" << X(x) << "\" y=\"" << H - B + 15 << "\" text-anchor=\"middle\" font-size=\"11\">"
      << fmt("%.3g", x) << "</text>\n";
  }
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 6 << "\" text-anchor=\"middle\" font-size=\"12\">"
    << "time per launch (us)</text><text x=\"14\" y=\"" << (T + H - B) / 2 << "\" transform=\"rotate(-90 14 "
    << (T + H - B) / 2 << ")\" text-anchor=\"middle\" font-size=\"12\">energy per launch (mJ)</text>\n";
  for (const auto& p : f.points)
    if (!p.front)
      o << "<circle cx=\"" << fmt("%.1f", X(p.time_ms * 1e3)) << "\" cy=\"" << fmt("%.1f", Y(p.energy_j * 1e3))
        << "\" r=\"2\" fill=\"#999\" opacity=\"0.6\"><title>" << esc(p.params) << "</title></circle>";
  o << "\n<polyline fill=\"none\" stroke=\"#d62728\" stroke-width=\"1.5\" points=\"";
  for (std::size_t i : f.front)
    o << fmt("%.1f", X(f.points[i].time_ms * 1e3)) << "," << fmt("%.1f", Y(f.points[i].energy_j * 1e3)) << " ";
  o << "\"/>\n";
  for (std::size_t i : f.front) {
    const auto& p = f.points[i];
    const char* color = p.params == energy_best ? "#2ca02c" : p.params == time_best ? "#1f77b4" : "#d62728";
    o << "<circle class=\"front\" cx=\"" << fmt("%.1f", X(p.time_ms * 1e3)) << "\" cy=\""
      << fmt("%.1f", Y(p.energy_j * 1e3)) << "\" r=\"4\" fill=\"" << color << "\"><title>" << esc(p.params)
      << "</title></circle>";
  }
  o << "\n</svg>\n";
  return o.str();
}

std::string percent(const std::optional<double>& f) { return f ? fmt("%+.1f%%", 100 * *f) : "-"; }

}  // namespace

std::string energy_section(store::Store& db, const std::string& kernel, const std::string& device) {
  const auto fronts = query::pareto(db, kernel, device);
  if (fronts.empty()) return "";
  std::map<std::string, query::Tradeoff> trade;
  for (auto& t : query::tradeoffs(db, kernel, device)) trade.emplace(t.size, std::move(t));
  std::ostringstream o;
  o << "<h3>Energy</h3>\n<ul class=\"note\">";
  std::set<std::string> methods;
  for (const auto& r : db.runs(kernel))
    if (r.device == device && !r.energy.empty() && methods.insert(r.energy).second)
      o << "<li>" << esc(r.energy) << "</li>";
  o << "<li>Each plot: every configuration with a resolved energy (grey), the time-energy Pareto front (red: no "
       "other configuration is both faster and more frugal), the time-optimal choice (blue) and the energy-optimal "
       "one (green) where they are on the front.</li></ul>\n<div>";
  for (const auto& f : fronts) {
    const auto t = trade.find(f.size);
    o << scatter(f, t != trade.end() ? t->second.time_best : "", t != trade.end() ? t->second.energy_best : "");
  }
  o << "</div>\n<table><tr><th>size</th><th>on front</th><th>time-optimal us</th><th>its mJ</th>"
       "<th>energy-optimal us</th><th>its mJ</th><th>energy saved</th><th>time cost</th></tr>\n";
  for (const auto& f : fronts) {
    const auto t = trade.find(f.size);
    if (t == trade.end()) continue;
    const query::Tradeoff& x = t->second;
    o << "<tr><td>" << esc(f.size) << "</td><td>" << f.front.size() << "/" << f.points.size() << "</td><td>"
      << fmt("%.2f", x.time_best_ms * 1e3) << "</td><td>"
      << (x.time_best_has_energy ? fmt("%.4g", x.time_best_j * 1e3) : "-") << "</td><td>"
      << fmt("%.2f", x.energy_best_ms * 1e3) << "</td><td>" << fmt("%.4g", x.energy_best_j * 1e3) << "</td><td>"
      << percent(x.saved()) << "</td><td>" << percent(x.time_cost()) << "</td></tr>\n";
  }
  o << "</table>\n";
  return o.str();
}

}  // namespace tune::report

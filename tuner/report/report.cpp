#include "report/report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/error.h"
#include "query/query.h"
#include "query/table.h"
#include "report/energy.h"
#include "spec/ceilings.h"

namespace tune::report {

namespace {

std::string esc(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '<':
        o += "&lt;";
        break;
      case '>':
        o += "&gt;";
        break;
      case '&':
        o += "&amp;";
        break;
      case '"':
        o += "&quot;";
        break;
      default:
        o += c;
    }
  }
  return o;
}

std::string fmt(const char* f, double v) {
  char b[64];
  std::snprintf(b, sizeof b, f, v);
  return b;
}

// {"a":1,"b":2} -> "a=1 b=2" (wraps in a table cell)
std::string compact(const std::string& params) {
  if (params.empty()) return "-";
  auto j = nlohmann::ordered_json::parse(params);
  std::string out;
  for (auto it = j.begin(); it != j.end(); ++it) out += (out.empty() ? "" : " ") + it.key() + "=" + it.value().dump();
  return out;
}

// The plot's x: n for an n x n (or n x n x k) size, sqrt(x * y) in general: the extent of the
// output matrix, also for GEMM (N x M x K) and matching (n2 x n1 x dim) sizes.
double plot_x(const std::string& size) {
  auto p = sizes::Size::parse_label(size);
  return std::sqrt(double(p.x()) * double(p.y()));
}

struct Series {
  std::string name, color;
  std::vector<std::pair<double, double>> points;  // (x, y)
};

// A line plot: x is the square root of the element count (n for n x n), y the throughput.
std::string plot(const std::vector<Series>& series, const std::vector<std::pair<double, std::string>>& marks,
                 const std::string& unit, const std::string& xlabel) {
  const double W = 900, H = 420, L = 70, R = 20, T = 20, B = 50;
  double xmax = 1, ymax = 1;
  for (const auto& s : series)
    for (auto [x, y] : s.points) xmax = std::max(xmax, x), ymax = std::max(ymax, y);
  ymax *= 1.08;
  auto X = [&](double x) { return L + x / xmax * (W - L - R); };
  auto Y = [&](double y) { return H - B - y / ymax * (H - T - B); };
  const double LX = W - R - 290, LY = H - B - 90;  // legend, lower right (curves rise to the upper left)
  std::ostringstream o;
  o << "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W << "\" height=\"" << H << "\" viewBox=\"0 0 " << W
    << " " << H << "\" role=\"img\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  for (int i = 0; i <= 5; ++i) {  // grid and axes
    double y = ymax * i / 5, x = xmax * i / 5;
    o << "<line x1=\"" << L << "\" x2=\"" << W - R << "\" y1=\"" << Y(y) << "\" y2=\"" << Y(y) << "\" stroke=\"#ddd\"/>"
      << "<text x=\"" << L - 6 << "\" y=\"" << Y(y) + 4 << "\" text-anchor=\"end\" font-size=\"12\">" << fmt("%.0f", y)
      << "</text>\n"
      << "<text x=\"" << X(x) << "\" y=\"" << H - B + 18 << "\" text-anchor=\"middle\" font-size=\"12\">"
      << fmt("%.0f", x) << "</text>\n";
  }
  o << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 8 << "\" text-anchor=\"middle\" font-size=\"13\">"
    << esc(xlabel) << "</text>\n"
    << "<text x=\"16\" y=\"" << (T + H - B) / 2 << "\" transform=\"rotate(-90 16 " << (T + H - B) / 2
    << ")\" text-anchor=\"middle\" font-size=\"13\">" << esc(unit) << "</text>\n";
  for (const auto& [x, label] : marks)
    o << "<line x1=\"" << X(x) << "\" x2=\"" << X(x) << "\" y1=\"" << T << "\" y2=\"" << H - B
      << "\" stroke=\"#d62728\" stroke-dasharray=\"3,3\" opacity=\"0.6\"><title>" << esc(label) << "</title></line>\n";
  int k = 0;
  for (const auto& s : series) {
    if (s.points.empty()) continue;
    o << "<polyline fill=\"none\" stroke=\"" << s.color << "\" stroke-width=\"2\" points=\"";
    for (auto [x, y] : s.points) o << fmt("%.1f", X(x)) << "," << fmt("%.1f", Y(y)) << " ";
    o << "\"/>\n";
    for (auto [x, y] : s.points)
      o << "<circle cx=\"" << fmt("%.1f", X(x)) << "\" cy=\"" << fmt("%.1f", Y(y)) << "\" r=\"2.5\" fill=\"" << s.color
        << "\"/>";
    o << "\n<rect x=\"" << LX << "\" y=\"" << LY + 18 * k << "\" width=\"14\" height=\"4\" fill=\"" << s.color << "\"/>"
      << "<text x=\"" << LX + 20 << "\" y=\"" << LY + 6 + 18 * k << "\" font-size=\"13\">" << esc(s.name)
      << "</text>\n";
    ++k;
  }
  if (!marks.empty())
    o << "<line x1=\"" << LX << "\" x2=\"" << LX + 14 << "\" y1=\"" << LY + 2 + 18 * k << "\" y2=\"" << LY + 2 + 18 * k
      << "\" stroke=\"#d62728\" stroke-dasharray=\"3,3\"/><text x=\"" << LX + 20 << "\" y=\"" << LY + 6 + 18 * k
      << "\" font-size=\"13\">flagged size</text>\n";
  o << "</svg>\n";
  return o.str();
}

std::string library_name(const std::string& library) {
  const spec::CeilingKind* kind = spec::find_ceiling(library);
  return kind != nullptr ? std::string(kind->display) : library;
}

// Our best throughput per size and the ceilings present, in GFLOP/s (flops) or GB/s: the copy
// (GB/s) or the FP32 peak (GFLOP/s), and the library (its time converted to our unit).
std::vector<Series> throughput_series(const std::vector<query::TableRow>& rows, bool flops) {
  Series ours{"best configuration", "#1f77b4", {}}, lib{"library", "#ff7f0e", {}};
  Series roof = flops ? Series{std::string(spec::find_ceiling("fp32_peak")->display), "#9467bd", {}}
                      : Series{std::string(spec::find_ceiling("d2d_copy")->display), "#2ca02c", {}};
  for (const auto& r : rows) {
    const std::optional<double>& v = flops ? r.gflops : r.gbps;
    if (r.best.empty() || !v) continue;
    const double x = plot_x(r.size);
    ours.points.emplace_back(x, *v);
    const std::optional<double>& fraction = flops ? r.peak_fraction : r.copy_fraction;
    if (fraction && *fraction > 0) roof.points.emplace_back(x, *v / *fraction);
    if (r.library_ratio && *r.library_ratio > 0) {
      lib.name = library_name(r.library);
      lib.points.emplace_back(x, *v / *r.library_ratio);
    }
  }
  return {ours, roof, lib};
}

// Every library ceiling measured beside the kernel, per size (where there are several): its
// GFLOP/s and its time over ours; with cuBLAS's TF32 GEMM also the 3xTF32 bound at its rate (three
// TF32 tensor-core products per FP32-accurate one) and our fraction of it.
std::string library_section(const std::vector<query::TableRow>& rows) {
  std::vector<std::string> names;
  for (const auto& r : rows)
    for (const auto& l : r.libraries)
      if (std::find(names.begin(), names.end(), l.name) == names.end()) names.push_back(l.name);
  if (names.size() < 2) return "";
  const bool tf32 = std::find(names.begin(), names.end(), "cublas_gemm_tf32") != names.end();
  std::ostringstream o;
  o << "<h3>Libraries</h3>\n<p class=\"note\">Each library measured at the size in the same run: its GFLOP/s "
       "and its time over ours (above 1: ours is faster).";
  if (tf32)
    o << " The 3xTF32 bound is cuBLAS's TF32 rate over 3: a kernel that keeps FP32 accuracy with three TF32 "
         "products reaches it at the library's TF32 efficiency.";
  o << "</p>\n<table><tr><th>size</th><th>ours GFLOP/s</th>";
  for (const auto& n : names) o << "<th>" << esc(library_name(n)) << "</th>";
  if (tf32) o << "<th>3xTF32 bound GFLOP/s</th><th>ours of it</th>";
  o << "</tr>\n";
  for (const auto& r : rows) {
    if (r.best.empty() || r.libraries.empty()) continue;
    o << "<tr><td>" << esc(r.size) << "</td><td>" << (r.gflops ? fmt("%.0f", *r.gflops) : "-") << "</td>";
    std::optional<double> bound;
    for (const auto& n : names) {
      const auto it = std::find_if(r.libraries.begin(), r.libraries.end(), [&](const auto& l) { return l.name == n; });
      if (it == r.libraries.end()) {
        o << "<td>-</td>";
        continue;
      }
      o << "<td>" << (it->gflops ? fmt("%.0f", *it->gflops) + " " : "") << fmt("(%.3fx)", it->ratio) << "</td>";
      if (n == "cublas_gemm_tf32" && it->gflops) bound = *it->gflops / 3;
    }
    if (tf32)
      o << "<td>" << (bound ? fmt("%.0f", *bound) : "-") << "</td><td>"
        << (bound && r.gflops ? fmt("%.3f", *r.gflops / *bound) : "-") << "</td>";
    o << "</tr>\n";
  }
  o << "</table>\n";
  return o.str();
}

}  // namespace

std::string html(store::Store& db, const std::string& kernel_in) {
  const std::string kernel = query::resolve_kernel(db, kernel_in.empty() ? std::nullopt : std::optional(kernel_in));
  std::ostringstream o;
  o << "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>tune report: " << esc(kernel)
    << "</"
       "title>\n<style>body{font-family:sans-serif;margin:24px;color:#222}table{border-collapse:collapse;font-size:"
       "13px}"
       "td,th{border:1px solid #ccc;padding:3px "
       "8px;text-align:right}td.cfg{text-align:left;font-family:monospace;font-size:12px}"
       "tr.flag{background:#fde8e8}h2{margin-top:32px}.note{color:#555;font-size:13px}</style></head><body>\n"
    << "<h1>Kernel <code>" << esc(kernel) << "</code></h1>\n";
  bool any = false;
  for (const auto& device : db.devices(kernel)) {
    auto sizes = db.sizes(kernel, device);
    const query::Table table = query::run_table(db, kernel, device, sizes);
    const auto& rows = table.rows;
    bool any_gbps = false, any_gflops = false, any_copy = false, three_d = false;
    for (const auto& r : rows) {
      if (r.best.empty()) continue;
      any = true;
      any_gbps = any_gbps || r.gbps.has_value();
      any_gflops = any_gflops || r.gflops.has_value();
      any_copy = any_copy || r.copy_fraction.has_value();
      three_d = three_d || sizes::Size::parse_label(r.size).z() > 1;
    }
    // GB/s for bytes-only kernels; for GFLOP/s kernels only with a copy ceiling to compare with.
    const bool bytes_cols = any_copy || !any_gflops;
    const std::string xlabel =
        three_d ? "problem size n (sqrt of ProblemSize[0] x ProblemSize[1])" : "problem size n (sqrt of elements)";
    std::vector<std::pair<double, std::string>> marks;
    for (const auto& r : rows)
      if (!r.best.empty() && !r.flags.empty()) marks.emplace_back(plot_x(r.size), r.size + ": " + r.flags);
    bool any_ceiling = false;  // a ratio to a ceiling in some row
    for (const auto& r : rows) any_ceiling = any_ceiling || r.copy_fraction || r.peak_fraction || r.library_ratio;
    // Say where the ceilings come from only when there are some: replayed and imported data hold none.
    const char* ceilings = !any_ceiling     ? " No ceilings were measured for these sizes (replayed or imported data "
                                              "holds none): the ceiling columns are empty."
                           : table.replayed ? " Ceilings come from tune's GPU runs on this device."
                                            : " Ceilings were measured in the same runs as the kernels, with the "
                                              "same timing method.";
    o << "<h2>" << esc(device) << "</h2>\n<p class=\"note\">" << sizes.size() << " problem sizes." << ceilings
      << " Dashed red lines mark flagged sizes: the configuration used changes beyond the noise, or the best "
         "throughput dips below both neighbouring sizes.</p>\n<ul class=\"note\">";
    for (const auto& line : table.timing) o << "<li>Timing: " << esc(line) << "</li>";
    if (table.replayed) o << "<li>Data: replayed or imported measurements, not measured by tune on this device.</li>";
    o << "<li>Decision: " << esc(table.rule) << ". Noise is the winner's relative 95% half-width.</li>";
    if (!table.single_best.empty())
      o << "<li>Best single configuration over these sizes: <code>" << esc(compact(table.single_best))
        << "</code>; the column \"single\" is its time over the configuration used.</li>";
    o << "</ul>\n";
    // One plot per unit: GB/s against the copy, GFLOP/s against the FP32 peak; the library in both.
    if (bytes_cols) o << plot(throughput_series(rows, false), marks, "GB/s", xlabel);
    if (any_gflops) o << plot(throughput_series(rows, true), marks, "GFLOP/s", xlabel);
    o << "<table><tr><th>size</th><th>" << esc(table.statistic) << " ms</th><th>noise</th>";
    if (bytes_cols) o << "<th>GB/s</th><th>of copy</th>";
    if (any_gflops) o << "<th>GFLOP/s</th><th>of peak</th>";
    o << "<th>vs library</th><th>single</th><th>tied</th><th>flags</th><th>configuration used</th></tr>\n";
    auto cell = [](const char* f, const std::optional<double>& v) { return "<td>" + (v ? fmt(f, *v) : "-") + "</td>"; };
    for (const auto& r : rows) {
      o << "<tr" << (r.flags.empty() ? "" : " class=\"flag\"") << "><td>" << esc(r.size) << "</td><td>"
        << fmt("%.4f", r.time_ms) << "</td><td>" << fmt("%.1f%%", 100.0 * r.noise) << "</td>";
      const std::string suspect = r.ceiling_suspect ? " (ceiling disagrees with its neighbours)" : "";
      if (bytes_cols) o << cell("%.0f", r.gbps) << cell(("%.3f" + suspect).c_str(), r.copy_fraction);
      if (any_gflops) o << cell("%.0f", r.gflops) << cell(("%.3f" + suspect).c_str(), r.peak_fraction);
      o << cell("%.3fx", r.library_ratio) << cell("%.3fx", r.single_loss) << "<td>" << r.tied << "</td><td>"
        << esc(r.flags) << "</td><td class=\"cfg\">" << esc(compact(r.best)) << "</td></tr>\n";
    }
    o << "</table>\n" << library_section(rows) << energy_section(db, kernel, device);
    auto flags = db.flags(kernel, device);
    if (!flags.empty()) {
      o << "<h3>Flags</h3><ul>\n";
      for (const auto& f : flags)
        o << "<li><b>" << esc(f.size) << "</b> " << esc(std::string(store::to_string(f.kind))) << ": " << esc(f.text)
          << "</li>\n";
      o << "</ul>\n";
    }
  }
  if (!any) throw InputError("no verified results for kernel '" + kernel + "' in " + db.path());
  o << "<p class=\"note\">Generated by <code>tune report</code> from " << esc(db.path()) << ".</p>\n</body></html>\n";
  return o.str();
}

}  // namespace tune::report

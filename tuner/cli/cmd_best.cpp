// tune best: the best stored configuration per device and problem size.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "output/output.h"
#include "query/labels.h"
#include "query/query.h"
#include "sizes/sizes.h"

namespace tune::cli {

namespace {

// The measured sizes' range on a device, in elements.
std::pair<double, double> measured_range(store::Store& db, const std::string& kernel, const std::string& device) {
  double lo = INFINITY, hi = 0;
  for (const auto& s : db.sizes(kernel, device)) {
    const double e = sizes::Size::parse_label(s).elements();
    lo = std::min(lo, e), hi = std::max(hi, e);
  }
  return {lo, hi};
}

// A throughput of the size asked: none when the answer was measured at another size (its GB/s
// would be borrowed from there).
std::optional<double> own(const query::Best& b, const std::optional<double>& v) { return b.nearest ? std::nullopt : v; }

nlohmann::ordered_json or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

}  // namespace

int cmd_best(const Args& args) {
  po::options_description opts = options_for("tune best options");
  opts.add_options()("kernel", po::value<std::string>()->value_name("NAME"),
                     "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>()->value_name("NAME"), "device name (default: every device)")(
      "size", po::value<std::string>()->value_name("SIZE"),
      "problem size, e.g. 4096 or 4096x2048 (default: every measured size)")("json", po::bool_switch(),
                                                                             "print one JSON object")(
      "wide", po::bool_switch(), "print each configuration in the table (default: short labels and a legend)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("best", "tune best [--kernel NAME] [--device NAME] [--size SIZE] [--json] [--wide] [--db FILE]", args,
             opts, vm))
    return 0;

  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  query::BestQuery q;
  if (vm.count("kernel")) q.kernel = vm["kernel"].as<std::string>();
  if (vm.count("device")) q.device = vm["device"].as<std::string>();
  if (vm.count("size")) q.size = vm["size"].as<std::string>();
  auto rows = query::best(db, q);

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json out;
    out["kernel"] = rows.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(rows[0].kernel);
    out["statistic"] = rows.empty() ? std::string("mean") : rows[0].statistic;
    auto& arr = out["sizes"] = nlohmann::ordered_json::array();
    for (const auto& b : rows) {
      nlohmann::ordered_json j;
      j["kernel"] = b.kernel;
      j["device"] = b.device;
      j["size"] = b.size;
      j["measured_size"] = b.measured_size;
      j["nearest"] = b.nearest;
      j["params"] = nlohmann::ordered_json::parse(b.params);
      j["statistic"] = b.statistic;
      j["time_ms"] = b.time_ms;
      j["half_width_ms"] = b.half_width_ms;
      j["noise"] = b.noise;
      auto& tied = j["tied"] = nlohmann::ordered_json::array();
      for (const auto& t : b.tied) tied.push_back(nlohmann::ordered_json::parse(t));
      j["winner"] = b.winner.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json::parse(b.winner);
      j["remeasured"] = b.remeasured;
      j["gbps"] = or_null(own(b, b.gbps));
      j["gflops"] = or_null(own(b, b.gflops));
      j["candidates"] = b.candidates;
      arr.push_back(j);
    }
    std::cout << out.dump() << "\n";
    return 0;
  }
  if (rows.empty()) {
    std::printf("no verified results\n");
    return 0;
  }
  const bool wide = vm["wide"].as<bool>();
  query::ConfigLabels labels;
  std::vector<double> times;
  bool any_nearest = false, any_gflops = false;
  for (const auto& b : rows) {
    times.push_back(b.time_ms);
    any_nearest = any_nearest || b.nearest;
    any_gflops = any_gflops || (b.gflops && !b.gbps);
  }
  const output::TimeUnit unit = output::time_unit(times);
  std::vector<output::Column> cols = {{"device", output::Align::left}, {"size", output::Align::left}};
  if (any_nearest) cols.push_back({"measured at", output::Align::left});
  cols.insert(cols.end(), {{rows[0].statistic + " " + unit.name},
                           {"noise"},
                           {any_gflops ? "GFLOP/s" : "GB/s"},
                           {"tied"},
                           {"configuration", output::Align::left}});
  output::Table table(cols);
  std::vector<std::string> warnings;
  for (const auto& b : rows) {
    const auto rate = any_gflops ? own(b, b.gflops) : own(b, b.gbps);
    std::vector<std::string> cells = {b.device, b.size};
    if (any_nearest) cells.push_back(b.nearest ? b.measured_size : "");
    char noise[32];
    std::snprintf(noise, sizeof noise, "%.1f%%", 100.0 * b.noise);
    cells.insert(cells.end(),
                 {output::format_time(b.time_ms, unit), noise, rate ? std::to_string(std::llround(*rate)) : "-",
                  std::to_string(b.tied.size()), wide ? b.params : labels.label(b.params)});
    table.add(std::move(cells));
    if (b.nearest) {
      const auto [lo, hi] = measured_range(db, b.kernel, b.device);
      const double e = sizes::Size::parse_label(b.size).elements();
      if (e > hi || e < lo)
        warnings.push_back("warning: " + b.size + " is beyond the sizes measured on " + b.device + " (" +
                           (e > hi ? "largest " : "smallest ") + b.measured_size + "): the time shown is " +
                           b.measured_size + "'s, a guess; tune it with --sizes " + b.size);
      else
        warnings.push_back("note: " + b.size + " was not measured on " + b.device + ": the nearest measured size, " +
                           b.measured_size + ", answers (no throughput shown for it)");
    }
  }
  const auto print = [](const std::vector<std::string>& lines) {
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
  };
  print(wide ? table.lines(SIZE_MAX) : table.lines());
  for (const auto& w : warnings) print(output::wrap(w));
  if (!wide) {
    std::printf("configurations (--wide prints them in the table):\n");
    for (const auto& l : labels.legend()) print(output::wrap("  " + output::breakable(l), output::width(), 7));
  }
  const std::string rule = "best: the lowest " + rows[0].statistic +
                           " time; tied: configurations indistinguishable from it (95% interval or 1%), broken "
                           "towards the neighbouring sizes' choice";
  if (wide)
    std::printf("%s\n", rule.c_str());
  else
    print(output::wrap(rule));
  return 0;
}

}  // namespace tune::cli

// tune best: the best stored configuration per device and problem size.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "query/labels.h"
#include "query/query.h"

namespace tune::cli {

int cmd_best(const Args& args) {
  po::options_description opts("tune best options");
  opts.add_options()("kernel", po::value<std::string>(), "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>(), "device name (default: every device)")(
      "size", po::value<std::string>(), "problem size, e.g. 4096 or 4096x2048 (default: every measured size)")(
      "json", po::bool_switch(), "print a JSON array")(
      "wide", po::bool_switch(), "print each configuration in the table (default: short labels and a legend)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("best", "tune best [--kernel K] [--device D] [--size N] [--json] [--wide] [--db FILE]", args, opts, vm))
    return 0;

  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  query::BestQuery q;
  if (vm.count("kernel")) q.kernel = vm["kernel"].as<std::string>();
  if (vm.count("device")) q.device = vm["device"].as<std::string>();
  if (vm.count("size")) q.size = vm["size"].as<std::string>();
  auto rows = query::best(db, q);

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
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
      j["gbps"] = b.gbps ? nlohmann::ordered_json(*b.gbps) : nlohmann::ordered_json();
      j["gflops"] = b.gflops ? nlohmann::ordered_json(*b.gflops) : nlohmann::ordered_json();
      j["candidates"] = b.candidates;
      out.push_back(j);
    }
    std::cout << out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (rows.empty()) {
    std::printf("no verified results\n");
    return 0;
  }
  const bool wide = vm["wide"].as<bool>();
  query::ConfigLabels labels;
  std::printf("%-24s %-14s %10s %6s %8s %4s  %s\n", "device", "size", (rows[0].statistic + " ms").c_str(), "noise",
              "GB/s", "tied", "configuration");
  for (const auto& b : rows) {
    std::string size = b.nearest ? b.size + " (nearest measured: " + b.measured_size + ")" : b.size;
    std::string gbps = b.gbps ? std::to_string(std::llround(*b.gbps)) : "-";
    std::printf("%-24s %-14s %10.4f %5.1f%% %8s %4zu  %s\n", b.device.c_str(), size.c_str(), b.time_ms, 100.0 * b.noise,
                gbps.c_str(), b.tied.size(), (wide ? b.params : labels.label(b.params)).c_str());
  }
  if (!wide) {
    std::printf("configurations (--wide prints them in the table):\n");
    for (const auto& l : labels.legend()) std::printf("  %s\n", l.c_str());
  }
  const std::string rule = "best: the lowest " + rows[0].statistic +
                           " time; tied: configurations indistinguishable from it (95% interval or 1%), broken "
                           "towards the neighbouring sizes' choice";
  if (wide)
    std::printf("%s\n", rule.c_str());
  else
    for (const auto& line : query::wrap(rule)) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace tune::cli

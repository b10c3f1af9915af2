// tune best: the best stored configuration per device and problem size.
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "header/model.h"
#include "query/labels.h"
#include "query/query.h"
#include "spec/spec.h"

namespace tune::cli {

int cmd_best(const Args& args) {
  po::options_description opts("tune best options");
  opts.add_options()("kernel", po::value<std::string>(), "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>(), "device name (default: every device)")(
      "size", po::value<std::string>(),
      "problem size, e.g. 4096 or 4096x2048, or a comma list of them (default: every measured size)")(
      "space", po::value<std::string>(),
      "the kernel's spec, for its Tune.alignment (default: the one its runs recorded, when unchanged)")(
      "json", po::bool_switch(), "print a JSON array")(
      "wide", po::bool_switch(), "print each configuration in the table (default: short labels and a legend)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("best", "tune best [--kernel K] [--device D] [--size N] [--space FILE] [--json] [--wide] [--db FILE]",
             args, opts, vm))
    return 0;

  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  query::BestQuery q;
  if (vm.count("kernel")) q.kernel = vm["kernel"].as<std::string>();
  if (vm.count("device")) q.device = vm["device"].as<std::string>();
  if (vm.count("size")) q.size = vm["size"].as<std::string>();
  // At a size never measured the model reads each configuration's alignment from the spec.
  std::optional<spec::Spec> spec;
  if (q.size) {
    const std::string kernel = query::resolve_kernel(db, q.kernel);
    const std::string space = vm.count("space") ? vm["space"].as<std::string>() : header::recorded_spec(db, kernel);
    if (!space.empty()) spec = spec::load(space);
    if (spec) q.alignment = header::alignment_of(*spec);
  }
  auto rows = query::best(db, q);

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json out = nlohmann::ordered_json::array();
    for (const auto& b : rows) {
      nlohmann::ordered_json j;
      j["kernel"] = b.kernel;
      j["device"] = b.device;
      j["size"] = b.size;
      j["measured_size"] = b.measured_size;
      j["match"] = tune_select::how_name(b.match);
      j["regret"] = b.regret;
      j["applies"] = b.applies;
      auto& evidence = j["evidence"] = nlohmann::ordered_json::array();
      for (const auto& e : b.evidence)
        evidence.push_back({{"size", e.size}, {"regret", e.regret}, {"time_ms", e.time_ms}});
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
    std::string size = b.size;
    if (b.match != tune_select::How::exact) {
      size += std::string(" (") + tune_select::how_name(b.match) + " from";
      for (const auto& e : b.evidence)
        size += " " + e.size + std::string(1, '@') + std::to_string(e.regret).substr(0, 5);
      size += ")";
    }
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
  bool predicted = false;
  for (const auto& b : rows) predicted = predicted || b.match != tune_select::How::exact;
  const std::string model =
      predicted ? "; predicted/extrapolated: never measured at this size, chosen by the selection model from the "
                  "measured sizes listed (size@regret: the configuration's time there / the best time there), the "
                  "figures are from the first"
                : "";
  if (wide)
    std::printf("%s%s\n", rule.c_str(), model.c_str());
  else
    for (const auto& line : query::wrap(rule + model)) std::printf("%s\n", line.c_str());
  return 0;
}

}  // namespace tune::cli

// tune best: the best stored configuration per device and problem size; at a size never measured,
// the selection model's choice (select/select.h), saying how it matched and from which sizes.
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.h"
#include "common/error.h"
#include "decision/objective.h"
#include "header/model.h"
#include "output/output.h"
#include "query/energy.h"
#include "query/labels.h"
#include "query/query.h"
#include "spec/spec.h"

namespace tune::cli {

namespace {

bool measured_here(const query::Best& b) { return b.match == tune_select::How::exact; }

// A throughput of the size asked: none when the answer was measured at another size (its GB/s
// would be borrowed from there).
std::optional<double> own(const query::Best& b, const std::optional<double>& v) {
  return measured_here(b) ? v : std::nullopt;
}

nlohmann::ordered_json or_null(const std::optional<double>& v) {
  return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json();
}

// "1000x1000: predicted from 1024x1024, 896x896" (the measured sizes the choice rests on, nearest
// first), for the note under the table.
// "15.1 mJ" / "2.51 uJ": three significant digits.
std::string joules(const std::optional<double>& j) {
  if (!j) return "-";
  char buf[32];
  if (*j >= 1)
    std::snprintf(buf, sizeof buf, "%.3g J", *j);
  else if (*j >= 1e-3)
    std::snprintf(buf, sizeof buf, "%.3g mJ", *j * 1e3);
  else
    std::snprintf(buf, sizeof buf, "%.3g uJ", *j * 1e6);
  return buf;
}

std::string evidence_note(const query::Best& b) {
  std::string s = b.size + " on " + b.device + ": " + tune_select::how_name(b.match) + " from";
  for (std::size_t i = 0; i < b.evidence.size(); ++i) s += (i ? ", " : " ") + b.evidence[i].size;
  return s;
}

nlohmann::ordered_json row_json(const query::Best& b) {
  nlohmann::ordered_json j;
  j["kernel"] = b.kernel;
  j["device"] = b.device;
  j["size"] = b.size;
  j["measured_size"] = b.measured_size;
  j["match"] = tune_select::how_name(b.match);
  j["regret"] = b.regret;
  j["applies"] = b.applies;
  auto& evidence = j["evidence"] = nlohmann::ordered_json::array();
  for (const auto& e : b.evidence) evidence.push_back({{"size", e.size}, {"regret", e.regret}, {"time_ms", e.time_ms}});
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
  j["objective"] = decision::to_string(b.objective);
  j["energy_j"] = or_null(b.energy_j);
  j["energy_hw_j"] = or_null(b.energy_hw_j);
  j["power_w"] = or_null(b.power_w);
  return j;
}

}  // namespace

int cmd_best(const Args& args) {
  po::options_description opts = options_for("tune best options");
  opts.add_options()("kernel", po::value<std::string>()->value_name("NAME"),
                     "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>()->value_name("NAME"), "device name (default: every device)")(
      "size", po::value<std::string>()->value_name("SIZE"),
      "problem size, e.g. 4096 or 4096x2048, or a comma list of them (default: every measured size)")(
      "space", po::value<std::string>()->value_name("SPEC"),
      "the kernel's spec, for its Tune.alignment (default: the one its runs recorded)")("json", po::bool_switch(),
                                                                                        "print one JSON object")(
      "wide", po::bool_switch(), "print each configuration in the table (default: short labels and a legend)")(
      "objective", po::value<std::string>()->default_value("time")->value_name("time|energy|edp"),
      "what the choice minimises: time, energy per launch, or their product (from measured energy only)")(
      "pareto", po::bool_switch(), "per size, the time-energy Pareto front and what the energy-optimal choice saves");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("best",
             "tune best [--kernel NAME] [--device NAME] [--size SIZE] [--space SPEC] [--objective time|energy|edp] "
             "[--pareto] [--json] [--wide] [--db FILE]",
             args, opts, vm))
    return 0;

  const decision::Objective objective = decision::parse_objective(vm["objective"].as<std::string>());
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  if (vm["pareto"].as<bool>()) {
    if (vm.count("size")) throw InputError("tune best: --pareto shows every measured size; it takes no --size");
    const std::string kernel =
        query::resolve_kernel(db, vm.count("kernel") ? vm["kernel"].as<std::string>() : std::optional<std::string>());
    const std::vector<std::string> devices =
        vm.count("device") ? std::vector<std::string>{vm["device"].as<std::string>()} : db.devices(kernel);
    bool any = false;
    for (const auto& d : devices) any = any || !query::pareto(db, kernel, d).empty();
    if (!any)
      throw InputError("tune best --pareto: no energy measured for " + kernel + " in " + db.path() +
                       ": run `tune --objective energy ...` on a GPU, or import a Kernel Tuner cache with "
                       "NVMLObserver fields (nvml_energy)");
    std::cout << (vm["json"].as<bool>() ? query::pareto_json(db, kernel, devices)
                                        : query::pareto_text(db, kernel, devices, vm["wide"].as<bool>()));
    return 0;
  }
  query::BestQuery q;
  q.objective = objective;
  if (vm.count("kernel")) q.kernel = vm["kernel"].as<std::string>();
  if (vm.count("device")) q.device = vm["device"].as<std::string>();
  if (vm.count("size")) q.size = vm["size"].as<std::string>();
  // At a size never measured the model reads each configuration's alignment from the spec.
  std::optional<spec::Spec> spec;
  if (q.size) {
    const std::string kernel = query::resolve_kernel(db, q.kernel);
    const std::string space =
        vm.count("space") ? vm["space"].as<std::string>() : header::recorded_spec(db, kernel, db_path(vm));
    if (!space.empty()) spec = spec::load(space);
    if (spec) q.alignment = header::alignment_of(*spec);
  }
  auto rows = query::best(db, q);
  if (rows.empty() && decision::needs_energy(objective))
    throw InputError("tune best --objective " + std::string(decision::to_string(objective)) +
                     ": no energy measured for " + query::resolve_kernel(db, q.kernel) + " in " + db.path() +
                     ": run `tune --objective energy ...` on a GPU, or import a Kernel Tuner cache with "
                     "NVMLObserver fields (nvml_energy)");
  const bool energy = decision::needs_energy(objective);

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json out;
    out["kernel"] = rows.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(rows[0].kernel);
    out["statistic"] = rows.empty() ? std::string("mean") : rows[0].statistic;
    out["objective"] = decision::to_string(objective);
    auto& arr = out["sizes"] = nlohmann::ordered_json::array();
    for (const auto& b : rows) arr.push_back(row_json(b));
    std::cout << out.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  if (rows.empty()) {
    std::printf("no verified results\n");
    return 0;
  }
  const bool wide = vm["wide"].as<bool>();
  query::ConfigLabels labels;
  std::vector<double> times;
  bool any_model = false, any_gflops = false;
  for (const auto& b : rows) {
    times.push_back(b.time_ms);
    any_model = any_model || !measured_here(b);
    any_gflops = any_gflops || (b.gflops && !b.gbps);
  }
  const output::TimeUnit unit = output::time_unit(times);
  std::vector<output::Column> cols = {{"device", output::Align::left}, {"size", output::Align::left}};
  if (any_model) cols.push_back({"matched", output::Align::left});
  cols.insert(cols.end(), {{rows[0].statistic + " " + unit.name}, {"noise"}, {any_gflops ? "GFLOP/s" : "GB/s"}});
  if (energy) cols.insert(cols.end(), {{"energy"}, {"power W"}});
  cols.insert(cols.end(), {{"tied"}, {"configuration", output::Align::left}});
  output::Table table(cols);
  std::vector<std::string> warnings, notes;
  for (const auto& b : rows) {
    const auto rate = any_gflops ? own(b, b.gflops) : own(b, b.gbps);
    std::vector<std::string> cells = {b.device, b.size};
    if (any_model) cells.push_back(measured_here(b) ? "exact" : tune_select::how_name(b.match));
    char noise[32];
    std::snprintf(noise, sizeof noise, "%.1f%%", 100.0 * b.noise);
    cells.insert(cells.end(),
                 {output::format_time(b.time_ms, unit), noise, rate ? std::to_string(std::llround(*rate)) : "-"});
    if (energy)
      cells.insert(cells.end(), {joules(b.energy_j), b.power_w ? std::to_string(std::llround(*b.power_w)) : "-"});
    cells.insert(cells.end(), {std::to_string(b.tied.size()), wide ? b.params : labels.label(b.params)});
    table.add(std::move(cells));
    if (!measured_here(b)) notes.push_back(evidence_note(b));
    if (b.match == tune_select::How::extrapolated)
      warnings.push_back("warning: " + b.size + " is beyond the sizes measured on " + b.device +
                         ": the configuration is extrapolated and the time shown is " + b.measured_size +
                         "'s, a guess; tune it with --sizes " + b.size);
  }
  const auto print = [](const std::vector<std::string>& lines) {
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
  };
  print(wide ? table.lines(SIZE_MAX) : table.lines());
  for (const auto& n : notes) print(output::wrap(n));
  for (const auto& w : warnings) print(output::wrap(w));
  if (!wide) {
    std::printf("configurations (--wide prints them in the table):\n");
    for (const auto& l : labels.legend()) print(output::wrap("  " + output::breakable(l), output::width(), 7));
  }
  const std::string what = objective == decision::Objective::time     ? rows[0].statistic + " time"
                           : objective == decision::Objective::energy ? "energy per launch (measured through NVML)"
                                                                      : "energy-delay product (energy x time)";
  std::string rule = "best: the lowest " + what +
                     "; tied: configurations indistinguishable from it (95% interval or 1%), broken "
                     "towards the neighbouring sizes' choice";
  if (energy) rule += "; only configurations with a resolved energy take part";
  if (any_model)
    rule +=
        "; predicted/extrapolated: never measured at this size, chosen by the selection model from the "
        "measured sizes named (each configuration's time there relative to the best there); the time shown "
        "is the nearest measured size's, and no throughput is shown for it";
  if (wide)
    std::printf("%s\n", rule.c_str());
  else
    print(output::wrap(rule));
  return 0;
}

}  // namespace tune::cli

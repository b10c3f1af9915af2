// tune space: construct a spec's search space and show what it holds; --program prints the kernel's
// program as tune compiles it (its shared headers written in): one self-contained file, also for a
// tool that compiles the kernel file alone (Kernel Tuner).
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "compile/source.h"
#include "output/output.h"
#include "space/space.h"

namespace tune::cli {

namespace {

std::string fmt_counts(const space::Space& space) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "cartesian %llu, valid %zu (%.2f%%), %zu independent groups, built in %.3f s",
                static_cast<unsigned long long>(space.cartesian()), space.size(),
                100.0 * static_cast<double>(space.size()) / static_cast<double>(space.cartesian()), space.groups(),
                space.seconds());
  return buf;
}

}  // namespace

int cmd_space(const Args& args) {
  po::options_description opts = options_for("tune space options");
  opts.add_options()("space", po::value<std::string>()->required()->value_name("SPEC"),
                     "T1 search-space file (or the first argument)")("json", po::bool_switch(),
                                                                     "print one JSON object")(
      "program", po::bool_switch(), "print the kernel's program as tune compiles it (shared headers written in)");
  po::positional_options_description pos;
  pos.add("space", 1);
  po::variables_map vm;
  if (!parse("space", "tune space [--space] SPEC [--json | --program]", args, opts, vm, &pos)) return 0;

  auto spec = spec::load(vm["space"].as<std::string>());
  if (vm["program"].as<bool>()) {
    if (vm["json"].as<bool>()) throw InputError("tune space: --json and --program exclude each other");
    compile::SourceOptions options;
    options.name = spec.kernel.file;
    std::cout << compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile", options).text;
    return 0;
  }
  auto space = space::Space::build(spec);
  space::check_config_rules(spec, space);  // what a run or an import would refuse, refused here

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json j;
    j["space"] = spec.path.string();
    j["kernel"] = spec.kernel.name;
    j["parameters"] = nlohmann::ordered_json::array();  // in the spec's order, names as values
    for (const auto& p : spec.parameters) {
      nlohmann::json vals = nlohmann::json::array();
      for (const auto& v : p.values) vals.push_back(spec::to_json(v));
      j["parameters"].push_back({{"name", p.name}, {"values", nlohmann::ordered_json::parse(vals.dump())}});
    }
    j["conditions"] = spec.conditions.size();
    j["groups"] = space.groups();
    j["cartesian"] = space.cartesian();
    j["valid"] = space.size();
    j["build_s"] = space.seconds();
    std::cout << j.dump() << "\n";
    return 0;
  }
  const auto print = [](const std::vector<std::string>& lines) {
    for (const auto& l : lines) std::printf("%s\n", l.c_str());
  };
  print(output::wrap("space " + spec.path.string() + " (kernel " + spec.kernel.name + ")"));
  std::size_t name_width = 0;
  for (const auto& p : spec.parameters) name_width = std::max(name_width, output::columns(p.name));
  for (const auto& p : spec.parameters) {
    std::vector<std::string> vals;
    for (const auto& v : p.values) vals.push_back(v.repr());
    const std::string lead = "  " + p.name + std::string(name_width - output::columns(p.name), ' ') + " " +
                             std::to_string(p.values.size()) + (p.values.size() == 1 ? " value: " : " values: ");
    print(output::list(lead, vals, output::width(), name_width + 4));
  }
  for (const auto& c : spec.conditions) print(output::wrap("  condition: " + c.program.source(), output::width(), 4));
  print(output::wrap(fmt_counts(space)));
  return 0;
}

}  // namespace tune::cli

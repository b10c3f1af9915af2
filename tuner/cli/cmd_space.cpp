// tune space: construct a spec's search space and show what it holds; --program prints the kernel's
// program as tune compiles it (its shared headers written in): one self-contained file, also for a
// tool that compiles the kernel file alone (Kernel Tuner).
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "common/error.h"
#include "compile/source.h"
#include "space/space.h"

namespace tune::cli {

int cmd_space(const Args& args) {
  po::options_description opts("tune space options");
  opts.add_options()("space", po::value<std::string>()->required(), "T1 search-space file")("json", po::bool_switch(),
                                                                                            "print one JSON object")(
      "program", po::bool_switch(), "print the kernel's program as tune compiles it (shared headers written in)");
  po::variables_map vm;
  if (!parse("space", "tune space --space FILE [--json | --program]", args, opts, vm)) return 0;

  auto spec = spec::load(vm["space"].as<std::string>());
  if (vm["program"].as<bool>()) {
    if (vm["json"].as<bool>()) throw InputError("tune space: --json and --program exclude each other");
    compile::SourceOptions options;
    options.name = spec.kernel.file;
    std::cout << compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile", options).text;
    return 0;
  }
  auto space = space::Space::build(spec);

  if (vm["json"].as<bool>()) {
    nlohmann::ordered_json j;
    j["space"] = spec.path.string();
    j["kernel"] = spec.kernel.name;
    j["parameters"] = nlohmann::ordered_json::object();
    for (const auto& p : spec.parameters) {
      nlohmann::json vals = nlohmann::json::array();
      for (const auto& v : p.values) vals.push_back(spec::to_json(v));
      j["parameters"][p.name] = nlohmann::ordered_json::parse(vals.dump());
    }
    j["conditions"] = spec.conditions.size();
    j["groups"] = space.groups();
    j["cartesian"] = space.cartesian();
    j["valid"] = space.size();
    j["seconds"] = space.seconds();
    std::cout << j.dump() << "\n";
    return 0;
  }
  std::printf("space %s (kernel %s)\n", spec.path.c_str(), spec.kernel.name.c_str());
  for (const auto& p : spec.parameters) {
    std::string vals;
    for (const auto& v : p.values) vals += (vals.empty() ? "" : ", ") + v.repr();
    std::printf("  %-24s %4zu values: %s\n", p.name.c_str(), p.values.size(), vals.c_str());
  }
  for (const auto& c : spec.conditions) std::printf("  condition: %s\n", c.program.source().c_str());
  std::printf("cartesian %llu, valid %zu (%.2f%%), %zu independent groups, built in %.3f s\n",
              static_cast<unsigned long long>(space.cartesian()), space.size(),
              100.0 * space.size() / space.cartesian(), space.groups(), space.seconds());
  return 0;
}

}  // namespace tune::cli

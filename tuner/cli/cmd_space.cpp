// tune space: construct a spec's search space and show what it holds.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "space/space.h"

namespace tune::cli {

int cmd_space(const Args& args) {
  po::options_description opts("tune space options");
  opts.add_options()("space", po::value<std::string>()->required(), "T1 search-space file")("json", po::bool_switch(),
                                                                                            "print one JSON object");
  po::variables_map vm;
  if (!parse("space", "tune space --space FILE [--json]", args, opts, vm)) return 0;

  auto spec = spec::load(vm["space"].as<std::string>());
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

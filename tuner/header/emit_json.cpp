// The runtime library's table: the same tables as the generated headers, as JSON data.
//   {"format": "tune-table", "version": 1, "kernel": K, "kernel_name": entry point,
//    "space_hash": spec::space_hash of the spec, "parameters": [names],
//    "variants": [[value per parameter], ...], "default": variant of the spec's Defaults,
//    "devices": [{"name": N, "compute_capability": [major, minor], "fallback": variant,
//                 "entries": [[x, y, z, variant, time_ms], ...]}]}   (entries ascending by size)
#include <nlohmann/json.hpp>

#include "header/header.h"
#include "spec/spec.h"

namespace tune::header {

std::string generate_table(const Model& m, const std::string& source) {
  using ojson = nlohmann::ordered_json;
  ojson t;
  t["format"] = "tune-table";
  t["version"] = 1;
  t["generated_by"] = "tune header --kernel " + m.kernel + " --table";
  t["source"] = source;
  t["kernel"] = m.kernel;
  t["kernel_name"] = m.spec->kernel.name;
  t["space_hash"] = spec::space_hash(*m.spec);
  t["parameters"] = m.params;
  ojson variants = ojson::array();
  for (const auto& v : m.variants) {
    ojson values = ojson::array();
    for (const auto& x : v.values) values.push_back(ojson::parse(spec::to_json(x).dump()));
    variants.push_back(values);
  }
  t["variants"] = variants;
  t["default"] = m.default_variant;
  ojson devices = ojson::array();
  for (const auto& d : m.devices) {
    ojson entries = ojson::array();
    for (const auto& e : d.entries) entries.push_back({e.size[0], e.size[1], e.size[2], e.variant, e.time_ms});
    devices.push_back({{"name", d.name},
                       {"compute_capability", {d.cc_major, d.cc_minor}},
                       {"fallback", d.fallback},
                       {"entries", entries}});
  }
  t["devices"] = devices;
  // Names are data: ensure_ascii escapes every non-ASCII byte, error_handler replaces invalid UTF-8.
  return t.dump(1, ' ', true, ojson::error_handler_t::replace) + "\n";
}

}  // namespace tune::header

// The runtime library's table: the same tables as the generated headers, as JSON data.
//   {"format": "tune-table", "version": 2, "kernel": K, "kernel_name": entry point,
//    "space_hash": spec::space_hash of the spec, "parameters": [names],
//    "variants": [[value per parameter], ...], "default": variant of the spec's Defaults,
//    "devices": [{"name": N, "compute_capability": [major, minor], "fallback": variant,
//                 "entries": [[x, y, z, variant decided, its time_ms, best_ms], ...],  (ascending by size)
//                 "candidates": [[variant, align_x, align_y, align_z], ...],
//                 "regret": [[regret x 10000 per candidate (0: not measured)] per entry]}]}
// (the selection model of select/select.h).
#include <nlohmann/json.hpp>

#include "header/header.h"
#include "spec/spec.h"

namespace tune::header {

std::string generate_table(const Model& m, const std::string& source) {
  using ojson = nlohmann::ordered_json;
  ojson t;
  t["format"] = "tune-table";
  t["version"] = 2;
  t["generated_by"] = "tune header --kernel " + m.kernel + " --table";
  t["source"] = source;
  t["kernel"] = m.kernel;
  if (m.objective != decision::Objective::time) t["objective"] = decision::to_string(m.objective);
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
    ojson entries = ojson::array(), candidates = ojson::array(), regret = ojson::array();
    for (const auto& e : d.entries) entries.push_back({e.x, e.y, e.z, e.decision, e.time_ms, e.best_ms});
    for (const auto& c : d.candidates) candidates.push_back({c.variant, c.align[0], c.align[1], c.align[2]});
    for (std::size_t s = 0; s < d.entries.size(); ++s)
      regret.push_back(
          ojson(std::vector<unsigned>(d.regret.begin() + static_cast<std::ptrdiff_t>(s * d.candidates.size()),
                                      d.regret.begin() + static_cast<std::ptrdiff_t>((s + 1) * d.candidates.size()))));
    devices.push_back({{"name", d.name},
                       {"compute_capability", {d.cc_major, d.cc_minor}},
                       {"fallback", d.fallback},
                       {"entries", entries},
                       {"candidates", candidates},
                       {"regret", regret}});
  }
  t["devices"] = devices;
  // Names are data: ensure_ascii escapes every non-ASCII byte, error_handler replaces invalid UTF-8.
  return t.dump(1, ' ', true, ojson::error_handler_t::replace) + "\n";
}

}  // namespace tune::header

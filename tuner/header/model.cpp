#include "header/model.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "common/hash.h"
#include "header/text.h"
#include "query/query.h"
#include "spec/bind.h"

namespace tune::header {

namespace {

using json = nlohmann::json;

std::string where(const spec::Spec& spec) { return spec.path.string(); }

// The stored configuration `params` (JSON text) as values in the spec's parameter order; throws
// InputError unless it names exactly the spec's parameters, each with one of its Values.
std::vector<expr::Value> bind_params(const spec::Spec& spec, const std::string& kernel, const std::string& params) {
  const auto fail = [&](const std::string& why) {
    throw InputError("kernel '" + comment(kernel) + "': a stored configuration " + comment(params) +
                     " is not in the space of " + where(spec) + ": " + why);
  };
  json p = json::parse(params, nullptr, false);
  if (!p.is_object()) fail("not a JSON object");
  if (p.size() != spec.parameters.size())
    fail("it has " + std::to_string(p.size()) + " parameters, the spec " + std::to_string(spec.parameters.size()));
  std::vector<expr::Value> out;
  for (const auto& param : spec.parameters) {
    auto it = p.find(param.name);
    if (it == p.end()) fail("parameter '" + param.name + "' is missing");
    const expr::Value v = spec::to_value(*it).value_or(expr::Value());
    auto known = std::find(param.values.begin(), param.values.end(), v);
    if (known == param.values.end() || v.is_none())
      fail("parameter '" + param.name + "' = " + comment(it->dump(), 60) + " is not one of its Values");
    out.push_back(*known);  // the spec's own value (and type)
  }
  return out;
}

// Checks what the generated code spells as names, and that the launch shape is constant.
void check_spec(const spec::Spec& spec) {
  for (const auto& p : spec.parameters)
    if (!is_identifier(p.name))
      throw InputError(where(spec) + ": parameter name '" + comment(p.name, 60) +
                       "' is not a C identifier: it cannot become a macro or a field of a generated header");
  if (!is_identifier(spec.kernel.name))
    throw InputError(where(spec) + ": KernelSpecification.KernelName '" + comment(spec.kernel.name, 60) +
                     "' is not a C identifier (a template instance cannot be dispatched by a generated header)");
  for (const auto& a : spec.kernel.arguments)
    if (!is_identifier(a.name))
      throw InputError(where(spec) + ": argument name '" + comment(a.name, 60) + "' is not a C identifier");
  if (spec.parameters.empty()) throw InputError(where(spec) + ": the spec has no tuning parameters");
  if (spec::shape_reads_problem_size(spec))
    throw InputError(where(spec) +
                     ": LocalSize or a GridDiv expression reads ProblemSize: the generated header "
                     "holds one block and one grid divisor per configuration (use the runtime library)");
  const auto probe = spec::bind_config(spec, spec::default_values(spec), sizes::parse_one("1"));
  if (!spec::grid_divisors(spec, probe))
    throw InputError(where(spec) +
                     ": the grid is given by GlobalSize, not GridDivX/Y/Z: the generated header "
                     "supports Kernel Tuner's GridDiv rule (use the runtime library)");
}

Variant make_variant(const spec::Spec& spec, std::vector<expr::Value> values) {
  Variant v;
  const auto bound = spec::bind_config(spec, values, sizes::parse_one("1"));
  const spec::Geometry g = spec::geometry(spec, bound);
  v.block = g.block;
  v.grid_div = *spec::grid_divisors(spec, bound);
  v.defines = spec::defines(spec, values);
  v.values = std::move(values);
  return v;
}

int number_before(const std::string& cc, char sep, bool after) {
  const auto dot = cc.find(sep);
  const std::string part = after ? (dot == std::string::npos ? "" : cc.substr(dot + 1)) : cc.substr(0, dot);
  if (part.empty() || part.size() > 3 || !std::all_of(part.begin(), part.end(), ::isdigit)) return 0;
  return std::stoi(part);
}

}  // namespace

select::Alignment alignment_of(const spec::Spec& spec) {
  return [&spec](const std::string& params) -> select::Extents {
    const json p = json::parse(params, nullptr, false);
    if (!p.is_object()) return {1, 1, 1};
    std::vector<expr::Value> values;
    for (const auto& param : spec.parameters) {
      const auto it = p.find(param.name);
      if (it == p.end()) return {1, 1, 1};
      const expr::Value v = spec::to_value(*it).value_or(expr::Value());
      if (v.is_none() || std::find(param.values.begin(), param.values.end(), v) == param.values.end())
        return {1, 1, 1};  // not in the space: refused where it is bound (bind_params)
      values.push_back(v);
    }
    const auto a = spec::alignment(spec, spec::bind_config(spec, values, sizes::parse_one("1")));
    return {a[0], a[1], a[2]};
  };
}

Model build(store::Store& db, const std::string& kernel, const spec::Spec& spec, decision::Objective objective) {
  check_spec(spec);
  (void)query::resolve_kernel(db, kernel);

  Model m;
  m.kernel = kernel;
  m.ns = identifier(kernel);
  // The namespace and the file name come from identifier(kernel): another kernel of the database
  // that becomes the same would share (and overwrite) them.
  for (const auto& other : db.kernels())
    if (other != kernel && identifier(other) == m.ns)
      throw InputError("kernels '" + comment(kernel, 60) + "' and '" + comment(other, 60) + "' of " + db.path() +
                       " both become " + m.ns +
                       " in generated code and file names: they cannot be told apart there (import one under "
                       "another --kernel name)");
  m.spec = &spec;
  m.objective = objective;
  for (const auto& p : spec.parameters) m.params.push_back(p.name);

  std::map<std::string, std::size_t> variant_of;  // configuration values -> variant
  auto variant = [&](std::vector<expr::Value> values) {
    std::string key;
    for (const auto& v : values) key += v.repr() + ",";
    auto [it, fresh] = variant_of.emplace(key, m.variants.size());
    if (fresh) m.variants.push_back(make_variant(spec, std::move(values)));
    return it->second;
  };
  const auto runs = db.runs(kernel);
  const select::Alignment alignment = alignment_of(spec);
  auto names = db.devices(kernel);
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    const select::Data data = query::model(db, kernel, name, alignment, objective);
    if (data.points.empty()) continue;  // only failures on this device
    Device d;
    d.name = name;
    std::vector<unsigned> to;  // the model's variant -> ours
    for (const auto& params : data.variants)
      to.push_back(static_cast<unsigned>(variant(bind_params(spec, kernel, params))));
    for (auto p : data.points) {
      p.decision = to.at(p.decision);
      d.entries.push_back(p);
    }
    for (auto c : data.candidates) {
      c.variant = to.at(c.variant);
      d.candidates.push_back(c);
    }
    d.regret = data.regret;
    d.fallback = to.at(data.fallback);
    for (const auto& run : runs)  // the newest run of the device names its compute capability
      if (run.device == name && !run.compute_capability.empty()) {
        d.cc_major = number_before(run.compute_capability, '.', false);
        d.cc_minor = number_before(run.compute_capability, '.', true);
      }
    m.devices.push_back(std::move(d));
  }
  if (m.devices.empty()) throw InputError("no verified results for kernel '" + comment(kernel) + "' in " + db.path());
  m.default_variant = variant(spec::default_values(spec));
  return m;
}

std::string recorded_spec(store::Store& db, const std::string& kernel, const std::string& db_path) {
  namespace fs = std::filesystem;
  const auto runs = db.runs(kernel);
  std::error_code ec;
  const fs::path db_dir = db_path.empty() ? fs::path() : fs::absolute(db_path, ec).parent_path();
  for (auto it = runs.rbegin(); it != runs.rend(); ++it) {
    if (it->spec_path.empty() || it->spec_hash.empty()) continue;
    std::vector<fs::path> candidates = {it->spec_path};
    if (fs::path(it->spec_path).is_relative() && !db_dir.empty())
      candidates.insert(candidates.end(), {db_dir / it->spec_path, db_dir.parent_path() / it->spec_path});
    for (const auto& path : candidates) {
      if (!fs::is_regular_file(path, ec) || fs::file_size(path, ec) > (std::uintmax_t{16} << 20)) continue;
      std::ifstream f(path, std::ios::binary);
      std::stringstream text;
      text << f.rdbuf();
      if (f && content_hash(text.str()) == it->spec_hash) return path.lexically_normal().string();
    }
  }
  return {};
}

}  // namespace tune::header

#include "tuning/extension.h"

namespace tune::tuning {

using nlohmann::json;

namespace {

spec::Expression compile_expr(const spec::Spec& spec, const json& v, const std::string& where) {
  std::string src;
  if (v.is_string()) src = v.get<std::string>();
  else if (v.is_number()) src = v.dump();
  else throw InputError(spec.path.string() + ": " + where + ": expected an expression string or a number");
  return spec::Expression{where, expr::Program::compile(src, spec.expression_names(), expr::Location{spec.path.string(), where})};
}

}  // namespace

Extension parse_extension(const spec::Spec& spec) {
  Extension ext;
  const json& t = spec.tune;
  if (t.is_null()) return ext;
  const std::string file = spec.path.string();
  if (t.contains("bytes")) ext.bytes = compile_expr(spec, t["bytes"], "Tune.bytes");
  if (t.contains("flops")) ext.flops = compile_expr(spec, t["flops"], "Tune.flops");
  if (t.contains("ceilings")) {
    if (!t["ceilings"].is_array()) throw InputError(file + ": Tune.ceilings: expected a list");
    for (const auto& c : t["ceilings"]) {
      std::string name = c.is_string() ? c.get<std::string>() : "";
      if (name != "d2d_copy" && name != "cublas_sgeam" && name != "cublas_sgemm")
        throw InputError(file + ": Tune.ceilings: unknown ceiling " + c.dump() + " (known: d2d_copy, cublas_sgeam, cublas_sgemm)");
      if (name == "d2d_copy" && !ext.bytes) throw InputError(file + ": Tune.ceilings: d2d_copy needs Tune.bytes");
      ext.ceilings.push_back(name);
    }
  }
  if (t.contains("reference")) {
    const json& r = t["reference"];
    if (!r.is_object() || !r.contains("KernelName") || !r["KernelName"].is_string())
      throw InputError(file + ": Tune.reference: expected an object with \"KernelName\", \"LocalSize\", \"GlobalSize\"");
    Reference ref;
    ref.kernel_name = r["KernelName"].get<std::string>();
    static const char* axes[3] = {"X", "Y", "Z"};
    for (const char* key : {"LocalSize", "GlobalSize"}) {
      if (!r.contains(key) || !r[key].is_object()) throw InputError(file + ": Tune.reference." + key + ": expected an object with X, Y, Z");
      auto& dst = std::string(key) == "LocalSize" ? ref.block : ref.grid;
      for (int d = 0; d < 3; ++d)
        if (r[key].contains(axes[d])) dst[d] = compile_expr(spec, r[key][axes[d]], std::string("Tune.reference.") + key + "." + axes[d]);
    }
    ext.reference = std::move(ref);
  }
  if (t.contains("tolerance")) {
    const json& tol = t["tolerance"];
    ext.relative_tolerance = tol.value("relative", 0.0);
    ext.absolute_tolerance = tol.value("absolute", 0.0);
  }
  return ext;
}

std::vector<std::pair<std::string, std::string>> defines(const spec::Spec& spec, std::span<const expr::Value> values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    const expr::Value& v = values[p];
    std::string text = v.type() == expr::Type::Bool ? (v.truthy() ? "1" : "0") : v.str();
    out.emplace_back(spec.parameters[p].name, text);
  }
  return out;
}

std::vector<expr::Value> default_values(const spec::Spec& spec) {
  std::vector<expr::Value> out;
  for (const auto& p : spec.parameters) out.push_back(p.default_value ? *p.default_value : p.values.front());
  return out;
}

}  // namespace tune::tuning

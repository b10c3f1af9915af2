#include "spec/extension.h"

#include "common/error.h"
#include "spec/bind.h"
#include "spec/ceilings.h"

namespace tune::spec {

using nlohmann::json;

namespace {

Expression compile_expr(const Spec& spec, const json& v, const std::string& where) {
  std::string src;
  if (v.is_string())
    src = v.get<std::string>();
  else if (v.is_number())
    src = v.dump();
  else
    throw InputError(spec.path.string() + ": " + where + ": expected an expression string or a number");
  return Expression{where,
                    expr::Program::compile(src, spec.expression_names(), expr::Location{spec.path.string(), where})};
}

// {"KernelName", "LocalSize": {X,Y,Z}, "GlobalSize": {X,Y,Z}} under `key` ("Tune.reference").
Reference parse_kernel_ref(const Spec& spec, const json& r, const std::string& key) {
  const std::string file = spec.path.string();
  if (!r.is_object() || !r.contains("KernelName") || !r["KernelName"].is_string() ||
      r["KernelName"].get<std::string>().empty())
    throw InputError(file + ": " + key + ": expected an object with \"KernelName\", \"LocalSize\", \"GlobalSize\"");
  Reference ref;
  ref.kernel_name = r["KernelName"].get<std::string>();
  static const char* axes[3] = {"X", "Y", "Z"};
  for (const char* part : {"LocalSize", "GlobalSize"}) {
    if (!r.contains(part) || !r[part].is_object())
      throw InputError(file + ": " + key + "." + part + ": expected an object with X, Y, Z");
    auto& dst = std::string(part) == "LocalSize" ? ref.block : ref.grid;
    for (int d = 0; d < 3; ++d)
      if (r[part].contains(axes[d])) dst[d] = compile_expr(spec, r[part][axes[d]], key + "." + part + "." + axes[d]);
  }
  return ref;
}

}  // namespace

Extension parse_extension(const Spec& spec) {
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
      const CeilingKind* kind = find_ceiling(name);
      if (kind == nullptr) {
        std::string known;
        for (const auto& k : ceiling_kinds()) known += (known.empty() ? "" : ", ") + std::string(k.name);
        throw InputError(file + ": Tune.ceilings: unknown ceiling " + c.dump() + " (known: " + known + ")");
      }
      if (kind->needs_bytes && !ext.bytes) throw InputError(file + ": Tune.ceilings: " + name + " needs Tune.bytes");
      if (kind->needs_rank > 0 && problem_rank(spec) != kind->needs_rank)
        throw InputError(file + ": Tune.ceilings: " + name + " needs a ProblemSize of " +
                         std::to_string(kind->needs_rank) + " entries (" + std::string(kind->shape) +
                         "), the spec's has " + std::to_string(problem_rank(spec)));
      ext.ceilings.push_back(name);
    }
  }
  if (t.contains("reference")) ext.reference = parse_kernel_ref(spec, t["reference"], "Tune.reference");
  if (t.contains("check")) {
    if (!ext.reference)
      throw InputError(file +
                       ": Tune.check: needs Tune.reference (the check kernel judges outputs against the reference's)");
    ext.check = parse_kernel_ref(spec, t["check"], "Tune.check");
  }
  if (t.contains("tolerance")) {
    const json& tol = t["tolerance"];
    ext.relative_tolerance = tol.value("relative", 0.0);
    ext.absolute_tolerance = tol.value("absolute", 0.0);
  }
  if (t.contains("statistic")) {
    if (!t["statistic"].is_string()) throw InputError(file + ": Tune.statistic: expected \"mean\" or \"median\"");
    try {
      ext.policy.statistic = decision::parse_statistic(t["statistic"].get<std::string>());
    } catch (const InputError& e) {
      throw InputError(file + ": Tune.statistic: " + e.what());
    }
  }
  if (t.contains("policy")) {
    const json& p = t["policy"];
    if (!p.is_object()) throw InputError(file + ": Tune.policy: expected an object of policy keys and values");
    for (const auto& [key, value] : p.items()) {
      try {
        ext.policy.set(key, value);
      } catch (const InputError& e) {
        throw InputError(file + ": Tune.policy." + std::string(e.what()));
      }
    }
    try {
      ext.policy.check();
    } catch (const InputError& e) {
      throw InputError(file + ": Tune.policy: " + e.what());
    }
  }
  return ext;
}

}  // namespace tune::spec

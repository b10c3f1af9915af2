#include "spec/launch.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "common/error.h"
#include "spec/bind.h"

namespace tune::spec {

using nlohmann::json;

namespace {

// A tensor map has at most five dimensions (cuTensorMapEncodeTiled).
constexpr std::size_t kMaxTensorRank = 5;

struct Ctx {
  const Spec& spec;
  [[noreturn]] void fail(const std::string& where, const std::string& cause) const {
    throw InputError(spec.path.string() + ": " + where + ": " + cause);
  }
  Expression expression(const json& v, const std::string& where) const {
    if (!v.is_string() && !v.is_number_integer()) fail(where, "expected an expression string or a whole number");
    return Expression{where,
                      expr::Program::compile(v.is_string() ? v.get<std::string>() : v.dump(), spec.expression_names(),
                                             expr::Location{spec.path.string(), where})};
  }
  std::vector<Expression> list(const json& v, const std::string& where) const {
    if (!v.is_array() || v.empty() || v.size() > kMaxTensorRank)
      fail(where, "expected a list of 1 to " + std::to_string(kMaxTensorRank) + " expressions, innermost first");
    std::vector<Expression> out;
    for (std::size_t i = 0; i < v.size(); ++i) out.push_back(expression(v[i], where + "[" + std::to_string(i) + "]"));
    return out;
  }
  std::size_t argument(const std::string& name, const std::string& where) const {
    const auto& args = spec.kernel.arguments;
    for (std::size_t i = 0; i < args.size(); ++i)
      if (args[i].name == name) return i;
    fail(where, "no kernel argument named '" + name + "'");
  }
};

TensorMapRule parse_tensor_map(const Ctx& ctx, const std::string& name, const json& m) {
  const std::string where = "Tune.tensor_maps." + name;
  if (!m.is_object()) ctx.fail(where, "expected an object {\"buffer\", \"dims\", \"box\", \"swizzle\"}");
  for (const auto& [key, value] : m.items())
    if (key != "buffer" && key != "dims" && key != "box" && key != "swizzle")
      ctx.fail(where + "." + key, "unknown key (known: buffer, dims, box, swizzle)");
  TensorMapRule r;
  r.argument = ctx.argument(name, where);
  const Argument& a = ctx.spec.kernel.arguments[r.argument];
  if (a.type != kTensorMapType || !a.scalar())
    ctx.fail(where, "argument '" + name + "' must be a Scalar of Type \"" + std::string(kTensorMapType) + "\"");
  if (!m.contains("buffer") || !m["buffer"].is_string()) ctx.fail(where + ".buffer", "expected an argument's name");
  r.buffer = ctx.argument(m["buffer"].get<std::string>(), where + ".buffer");
  if (ctx.spec.kernel.arguments[r.buffer].memory != Memory::vector)
    ctx.fail(where + ".buffer",
             "argument '" + m["buffer"].get<std::string>() + "' is not a buffer (MemoryType Vector)");
  if (!m.contains("dims")) ctx.fail(where, "missing required key \"dims\"");
  if (!m.contains("box")) ctx.fail(where, "missing required key \"box\"");
  r.dims = ctx.list(m["dims"], where + ".dims");
  r.box = ctx.list(m["box"], where + ".box");
  if (r.dims.size() != r.box.size())
    ctx.fail(where + ".box",
             "has " + std::to_string(r.box.size()) + " entries, dims has " + std::to_string(r.dims.size()));
  if (m.contains("swizzle")) r.swizzle = ctx.expression(m["swizzle"], where + ".swizzle");
  return r;
}

}  // namespace

bool valid_arch(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_") return false;
  std::size_t i = 3;
  while (i < arch.size() && std::isdigit(static_cast<unsigned char>(arch[i])) != 0) ++i;
  if (i < 5 || i > 6) return false;
  const std::string_view suffix = arch.substr(i);
  return suffix.empty() || suffix == "a" || suffix == "f";
}

LaunchRules parse_launch_rules(const Spec& spec) {
  const Ctx ctx{spec};
  LaunchRules rules;
  const json& t = spec.tune;
  if (t.is_object() && t.contains("arch")) {
    const json& a = t["arch"];
    if (!a.is_string() || !valid_arch(a.get<std::string>()))
      ctx.fail("Tune.arch", a.dump() + " is not an NVRTC GPU target (sm_XY, sm_XYa or sm_XYf, e.g. \"sm_90a\")");
    rules.arch = a.get<std::string>();
  }
  if (t.is_object() && t.contains("cluster")) {
    const json& c = t["cluster"];
    if (!c.is_object()) ctx.fail("Tune.cluster", "expected an object {\"X\": expression, \"Y\": ..., \"Z\": ...}");
    static const std::array<std::string_view, 3> axes = {"X", "Y", "Z"};
    for (const auto& item : c.items()) {
      const std::string& axis = item.key();
      const auto d = std::find(axes.begin(), axes.end(), axis);
      if (d == axes.end()) ctx.fail("Tune.cluster." + axis, "unknown axis (known: X, Y, Z)");
      rules.cluster[static_cast<std::size_t>(d - axes.begin())] = ctx.expression(item.value(), "Tune.cluster." + axis);
    }
  }
  if (t.is_object() && t.contains("dynamic_shared_memory"))
    rules.dynamic_shared = ctx.expression(t["dynamic_shared_memory"], "Tune.dynamic_shared_memory");
  if (t.is_object() && t.contains("tensor_maps")) {
    const json& m = t["tensor_maps"];
    if (!m.is_object()) ctx.fail("Tune.tensor_maps", "expected an object {\"<argument>\": {...}}");
    for (const auto& [name, value] : m.items()) rules.tensor_maps.push_back(parse_tensor_map(ctx, name, value));
  }
  const auto& args = spec.kernel.arguments;
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i].type != kTensorMapType) continue;
    const bool described = std::any_of(rules.tensor_maps.begin(), rules.tensor_maps.end(),
                                       [&](const TensorMapRule& r) { return r.argument == i; });
    if (!described || !args[i].scalar())
      ctx.fail("KernelSpecification.Arguments[" + std::to_string(i) + "]",
               "a \"" + std::string(kTensorMapType) + "\" argument must be a Scalar described in Tune.tensor_maps." +
                   args[i].name);
  }
  return rules;
}

std::string target_arch(const Spec& spec, const std::string& device_arch) {
  const std::string& want = spec.launch.arch;
  if (want.empty()) return device_arch;
  auto number = [](const std::string& a) {
    std::size_t i = 3;
    while (i < a.size() && std::isdigit(static_cast<unsigned char>(a[i])) != 0) ++i;
    return std::pair<int, std::string>(std::stoi(a.substr(3, i - 3)), a.substr(i));
  };
  const auto [w, suffix] = number(want);
  const auto [d, dev_suffix] = number(device_arch);
  const bool ok = w / 10 == d / 10 && (suffix == "a" ? w == d : w <= d);
  if (!ok)
    throw InputError(spec.path.string() + ": Tune.arch: " + want + " does not run on this device (" + device_arch +
                     (suffix == "a" ? "): an arch-specific target needs exactly that compute capability"
                                    : "): a cubin needs the same major version and no higher minor"));
  return want;
}

std::vector<TensorMapBinding> tensor_maps(const Spec& spec, std::span<const expr::Value> bound) {
  std::vector<TensorMapBinding> out;
  for (const TensorMapRule& r : spec.launch.tensor_maps) {
    TensorMapBinding b;
    b.argument = r.argument;
    b.buffer = r.buffer;
    for (const auto& e : r.dims) b.dims.push_back(static_cast<std::uint64_t>(positive_int(spec, e, bound)));
    for (const auto& e : r.box) {
      const std::int64_t v = positive_int(spec, e, bound);
      b.box.push_back(v > 0xFFFFFFFF ? 0xFFFFFFFFu : static_cast<std::uint32_t>(v));
    }
    if (r.swizzle) {
      const std::int64_t s = whole_number(spec, *r.swizzle, bound);
      b.swizzle =
          s < 0 || s > 1024 ? 1u : static_cast<unsigned>(s);  // run/tensor_map.h refuses what is not 0/32/64/128
    }
    out.push_back(std::move(b));
  }
  return out;
}

}  // namespace tune::spec

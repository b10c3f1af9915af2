#include "spec/spec.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <set>
#include <sstream>

#include "common/bounded_read.h"
#include "common/hash.h"
#include "common/suggest.h"
#include "spec/launch.h"

namespace tune::spec {

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// The keys of the "Tune" object (spec/extension.h reads them; spec/bind.cpp fill_values).
constexpr std::array<std::string_view, 14> kTuneKeys = {
    "bytes",  "flops",       "ceilings",  "reference", "check",   "tolerance",   "statistic",
    "policy", "fill_values", "alignment", "arch",      "cluster", "tensor_maps", "dynamic_shared_memory"};

// A bare name (block_size_y), as opposed to an expression or a number ("2147483647").
bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char ch : s)
    if (!(std::isalnum(static_cast<unsigned char>(ch)) || ch == '_')) return false;
  return true;
}

// Parsing context: the file name for every message.
struct Ctx {
  std::string file;

  [[noreturn]] void fail(const std::string& where, const std::string& cause) const {
    throw InputError(file + ": " + where + ": " + cause);
  }

  const json& need(const json& obj, const char* key, const std::string& where) const {
    if (!obj.is_object()) fail(where, "expected an object");
    auto it = obj.find(key);
    if (it == obj.end()) fail(where, std::string("missing required key \"") + key + "\"");
    return *it;
  }

  std::string text(const json& v, const std::string& where) const {
    if (v.is_string()) return v.get<std::string>();
    if (v.is_number_integer()) return std::to_string(v.get<long long>());
    if (v.is_number_float()) return v.dump();
    if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
    fail(where, "expected a string or a number, got " + std::string(v.type_name()));
  }

  // A name (kernel, parameter, argument): a bounded string, as names reach code, headers and files.
  std::string name(const json& v, const std::string& where) const {
    std::string n = text(v, where);
    if (n.size() > kMaxNameLength)
      fail(where,
           "a name of " + std::to_string(n.size()) + " characters (at most " + std::to_string(kMaxNameLength) + ")");
    return n;
  }

  std::string opt_text(const json& obj, const char* key, const std::string& where) const {
    auto it = obj.find(key);
    return it == obj.end() || it->is_null() ? std::string() : text(*it, where + "." + key);
  }

  // A JSON scalar or an expression string compiled over `names`.
  Expression expression(const json& v, const std::string& where, const std::vector<std::string>& names) const {
    std::string src;
    if (v.is_string())
      src = v.get<std::string>();
    else if (v.is_number() || v.is_boolean())
      src = text(v, where);
    else
      fail(where, "expected an expression string or a number, got " + std::string(v.type_name()));
    return Expression{where, expr::Program::compile(src, names, expr::Location{file, where})};
  }
};

expr::Value from_json(const json& v, const Ctx& ctx, const std::string& where) {
  if (auto value = to_value(v)) return std::move(*value);
  if (v.is_array())
    ctx.fail(where, "holds an object, or lists nested more than " + std::to_string(kMaxValueNesting) + " levels deep");
  ctx.fail(where, "unsupported JSON value of type " + std::string(v.type_name()));
}

Parameter parse_parameter(const json& p, const Ctx& ctx, const std::string& where) {
  Parameter out;
  const json& name = ctx.need(p, "Name", where);
  if (!name.is_string() || name.get<std::string>().empty()) ctx.fail(where + ".Name", "expected a non-empty string");
  out.name = ctx.name(name, where + ".Name");
  out.type = ctx.opt_text(p, "Type", where);
  const json& values = ctx.need(p, "Values", where);
  std::string vwhere = where + ".Values";
  expr::Value list;
  if (values.is_string()) {
    out.values_source = values.get<std::string>();
    list = expr::evaluate(out.values_source, expr::Location{ctx.file, vwhere});
  } else if (values.is_array()) {  // tolerated: a literal JSON list
    out.values_source = values.dump();
    list = from_json(values, ctx, vwhere);
  } else {
    ctx.fail(vwhere, "expected a string holding a Python list expression");
  }
  if (!list.is_sequence())
    ctx.fail(vwhere, "parameter '" + out.name + "': \"" + out.values_source + "\" evaluates to " + list.repr() +
                         ", not a list");
  out.values = list.items();
  if (out.values.empty()) ctx.fail(vwhere, "parameter '" + out.name + "' has no values (the space would be empty)");
  if (out.values.size() > 65535)
    ctx.fail(vwhere, "parameter '" + out.name + "' has " + std::to_string(out.values.size()) +
                         " values; at most 65535 are supported");
  if (auto it = p.find("Default"); it != p.end() && !it->is_null())
    out.default_value = from_json(*it, ctx, where + ".Default");
  return out;
}

std::optional<Expression> size_expr(const json& obj, const char* key, const Ctx& ctx, const std::string& where,
                                    const std::vector<std::string>& names) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return std::nullopt;
  return ctx.expression(*it, where + "." + key, names);
}

// The enumerations' names in the order of their enum (the first entries of Access and Fill are
// "absent": never matched by a name).
constexpr std::array<std::string_view, 4> kMemoryNames = {"Scalar", "Vector", "Local", "Symbol"};
constexpr std::array<std::string_view, 4> kAccessNames = {"", "ReadOnly", "WriteOnly", "ReadWrite"};
constexpr std::array<std::string_view, 7> kFillNames = {"",       "Constant",  "Random",   "Generator",
                                                        "Script", "BinaryRaw", "BinaryHDF"};

template <class E, std::size_t N>
E one_of(const Ctx& ctx, const std::string& text, const std::array<std::string_view, N>& names,
         const std::string& where) {
  for (std::size_t i = 0; i < N; ++i)
    if (!names[i].empty() && names[i] == text) return static_cast<E>(i);
  std::string known;
  for (std::string_view n : names)
    if (!n.empty()) known += (known.empty() ? "" : ", ") + std::string(n);
  ctx.fail(where, "'" + text + "' is not one of " + known + did_you_mean(text, names));
}

Argument parse_argument(const json& a, const Ctx& ctx, const std::string& where,
                        const std::vector<std::string>& names) {
  Argument out;
  if (auto n = a.find("Name"); n != a.end() && !n->is_null()) out.name = ctx.name(*n, where + ".Name");
  out.type = ctx.text(ctx.need(a, "Type", where), where + ".Type");
  out.memory = one_of<Memory>(ctx, ctx.text(ctx.need(a, "MemoryType", where), where + ".MemoryType"), kMemoryNames,
                              where + ".MemoryType");
  if (const std::string t = ctx.opt_text(a, "AccessType", where); !t.empty())
    out.access = one_of<Access>(ctx, t, kAccessNames, where + ".AccessType");
  if (const std::string t = ctx.opt_text(a, "FillType", where); !t.empty())
    out.fill = one_of<Fill>(ctx, t, kFillNames, where + ".FillType");
  out.mem_type = ctx.opt_text(a, "MemType", where);
  out.size = size_expr(a, "Size", ctx, where, names);
  out.fill_value = size_expr(a, "FillValue", ctx, where, names);
  if (auto it = a.find("Output"); it != a.end() && !it->is_null())
    out.output = it->is_boolean() ? it->get<bool>() : (it->is_number() && it->get<double>() != 0);
  if (out.memory == Memory::vector && !out.size) ctx.fail(where, "vector argument '" + out.name + "' has no \"Size\"");
  return out;
}

Kernel parse_kernel(const json& k, const Ctx& ctx, const fs::path& dir, const std::vector<std::string>& names) {
  const std::string w = "KernelSpecification";
  Kernel out;
  out.language = ctx.text(ctx.need(k, "Language", w), w + ".Language");
  out.name = ctx.name(ctx.need(k, "KernelName", w), w + ".KernelName");
  out.file = ctx.text(ctx.need(k, "KernelFile", w), w + ".KernelFile");
  out.file_path = (dir / out.file).lexically_normal();
  out.global_size_type = ctx.opt_text(k, "GlobalSizeType", w);
  if (out.global_size_type.empty()) out.global_size_type = "CUDA";
  if (auto it = k.find("CompilerOptions"); it != k.end() && it->is_array())
    for (std::size_t i = 0; i < it->size(); ++i)
      out.compiler_options.push_back(ctx.text((*it)[i], w + ".CompilerOptions[" + std::to_string(i) + "]"));
  static const char* axes[3] = {"X", "Y", "Z"};
  for (const char* key : {"LocalSize", "GlobalSize"}) {
    const json& dims = ctx.need(k, key, w);
    if (!dims.is_object()) ctx.fail(w + "." + key, "expected an object with X, Y, Z");
    auto& target = std::string(key) == "LocalSize" ? out.local_size : out.global_size;
    for (int d = 0; d < 3; ++d) target[d] = size_expr(dims, axes[d], ctx, w + "." + key, names);
    if (!target[0]) ctx.fail(w + "." + key, "missing required key \"X\"");
  }
  for (int d = 0; d < 3; ++d) {
    std::string key = std::string("GridDiv") + axes[d];
    auto it = k.find(key);
    if (it == k.end() || it->is_null()) continue;
    if (!it->is_array()) ctx.fail(w + "." + key, "expected a list of parameter names or expressions");
    for (std::size_t i = 0; i < it->size(); ++i) {
      std::string where = w + "." + key + "[" + std::to_string(i) + "]";
      const json& item = (*it)[i];
      // A GridDiv name that is no parameter (block_size_y in Kernel Tuner's own 1-D vector_add
      // test file) counts as a divisor of 1 here; Kernel Tuner 1.5.0 fails on it with a NameError.
      if (item.is_string() && std::find(names.begin(), names.end(), item.get<std::string>()) == names.end() &&
          is_identifier(item.get<std::string>()))
        continue;
      out.grid_div[d].push_back(ctx.expression(item, where, names));
    }
  }
  if (auto it = k.find("ProblemSize"); it != k.end()) out.problem_size = from_json(*it, ctx, w + ".ProblemSize");
  if (auto it = k.find("SharedMemory"); it != k.end() && it->is_number()) out.shared_memory = it->get<long long>();
  if (auto it = k.find("Arguments"); it != k.end()) {
    if (!it->is_array()) ctx.fail(w + ".Arguments", "expected a list");
    for (std::size_t i = 0; i < it->size(); ++i)
      out.arguments.push_back(parse_argument((*it)[i], ctx, w + ".Arguments[" + std::to_string(i) + "]", names));
  }
  return out;
}

json normalise_budget(const json& b, const Ctx& ctx) {
  if (b.is_null()) return json::array();
  json arr = b.is_array() ? b : json::array({b});
  for (std::size_t i = 0; i < arr.size(); ++i) {
    std::string where = "Budget[" + std::to_string(i) + "]";
    ctx.need(arr[i], "Type", where);
    if (!ctx.need(arr[i], "BudgetValue", where).is_number()) ctx.fail(where + ".BudgetValue", "expected a number");
  }
  return arr;
}

}  // namespace

std::vector<std::string> Spec::expression_names() const {
  std::vector<std::string> names;
  for (const auto& p : parameters) names.push_back(p.name);
  names.push_back("ProblemSize");
  return names;
}

std::size_t Spec::param_index(const std::string& name) const {
  for (std::size_t i = 0; i < parameters.size(); ++i)
    if (parameters[i].name == name) return i;
  throw InputError(path.string() + ": unknown parameter '" + name + "'");
}

Spec parse(const std::string& text, const fs::path& path) {
  Ctx ctx{path.string()};
  Spec spec;
  spec.path = path;
  spec.content_hash = content_hash(text);
  check_json_depth(text, ctx.file);  // before the parser and every copy or dump of the document
  try {
    spec.raw = json::parse(text);
  } catch (const json::parse_error& e) {
    ctx.fail("JSON", std::string("malformed JSON: ") + e.what());
  } catch (const json::exception& e) {  // e.g. a number beyond double's range (found by spec_fuzz)
    ctx.fail("JSON", std::string("unreadable JSON: ") + e.what());
  }
  const json& doc = spec.raw;
  if (!doc.is_object()) ctx.fail("JSON", "expected a T1 object at the top level");

  if (auto g = doc.find("General"); g != doc.end() && g->is_object()) {
    spec.benchmark_name = ctx.opt_text(*g, "BenchmarkName", "General");
    if (auto o = g->find("Objective"); o != g->end() && o->is_string()) spec.objective = o->get<std::string>();
    if (auto m = g->find("Minimize"); m != g->end() && m->is_boolean()) spec.minimize = m->get<bool>();
  }

  const json& cs = ctx.need(doc, "ConfigurationSpace", "top level");
  const json& tps = ctx.need(cs, "TuningParameters", "ConfigurationSpace");
  if (!tps.is_array()) ctx.fail("ConfigurationSpace.TuningParameters", "expected a list");
  if (tps.size() > kMaxParameters)
    ctx.fail("ConfigurationSpace.TuningParameters",
             std::to_string(tps.size()) + " parameters; at most " + std::to_string(kMaxParameters) + " are supported");
  std::set<std::string> seen;
  for (std::size_t i = 0; i < tps.size(); ++i) {
    std::string where = "ConfigurationSpace.TuningParameters[" + std::to_string(i) + "]";
    Parameter p = parse_parameter(tps[i], ctx, where);
    if (!seen.insert(p.name).second) ctx.fail(where + ".Name", "duplicate parameter '" + p.name + "'");
    if (p.name == "ProblemSize") ctx.fail(where + ".Name", "'ProblemSize' is reserved");
    spec.parameters.push_back(std::move(p));
  }
  if (spec.parameters.empty()) ctx.fail("ConfigurationSpace.TuningParameters", "no parameters (empty space)");

  std::vector<std::string> pnames;
  for (const auto& p : spec.parameters) pnames.push_back(p.name);
  if (auto conds = cs.find("Conditions"); conds != cs.end() && !conds->is_null()) {
    if (!conds->is_array()) ctx.fail("ConfigurationSpace.Conditions", "expected a list");
    if (conds->size() > kMaxConditions)
      ctx.fail("ConfigurationSpace.Conditions", std::to_string(conds->size()) + " conditions; at most " +
                                                    std::to_string(kMaxConditions) + " are supported");
    for (std::size_t i = 0; i < conds->size(); ++i) {
      std::string where = "ConfigurationSpace.Conditions[" + std::to_string(i) + "]";
      const json& c = (*conds)[i];
      const json& e = ctx.need(c, "Expression", where);
      if (!e.is_string()) ctx.fail(where + ".Expression", "expected a string");
      if (auto ps = c.find("Parameters"); ps != c.end() && ps->is_array())
        for (std::size_t j = 0; j < ps->size(); ++j) {
          std::string n = ctx.text((*ps)[j], where + ".Parameters");
          if (!seen.count(n))
            ctx.fail(where + ".Parameters[" + std::to_string(j) + "]", "unknown parameter '" + n + "'");
        }
      Condition cond{
          where + ".Expression",
          expr::Program::compile(e.get<std::string>(), pnames, expr::Location{ctx.file, where + ".Expression"}),
          {}};
      cond.params = cond.program.used();
      spec.conditions.push_back(std::move(cond));
    }
  }

  spec.kernel =
      parse_kernel(ctx.need(doc, "KernelSpecification", "top level"), ctx, path.parent_path(), spec.expression_names());
  if (auto b = doc.find("Budget"); b != doc.end()) spec.budget = normalise_budget(*b, ctx);
  if (auto s = doc.find("Search"); s != doc.end() && s->is_object())
    if (auto n = s->find("Name"); n != s->end() && n->is_string()) spec.search = n->get<std::string>();
  if (auto t = doc.find("Tune"); t != doc.end()) {
    if (!t->is_object()) ctx.fail("Tune", "expected an object (tune's extensions)");
    for (const auto& [key, value] : t->items())
      if (std::find(kTuneKeys.begin(), kTuneKeys.end(), key) == kTuneKeys.end()) {
        std::string known;
        for (std::string_view k : kTuneKeys) known += (known.empty() ? "" : ", ") + std::string(k);
        ctx.fail("Tune." + key, "unknown key" + did_you_mean(key, kTuneKeys) + " (known: " + known + ")");
      }
    spec.tune = *t;
    if (auto a = t->find("alignment"); a != t->end()) {
      if (!a->is_object()) ctx.fail("Tune.alignment", "expected an object {\"x\": expression, \"y\": ..., \"z\": ...}");
      for (const auto& [axis, e] : a->items()) {
        const std::string where = "Tune.alignment." + axis;
        const auto d = axis == "x" ? 0 : axis == "y" ? 1 : axis == "z" ? 2 : -1;
        if (d < 0) ctx.fail(where, "unknown axis (known: x, y, z)");
        if (!e.is_string() && !e.is_number_integer()) ctx.fail(where, "expected an expression");
        spec.alignment[static_cast<std::size_t>(d)] =
            Expression{where, expr::Program::compile(e.is_string() ? e.get<std::string>() : e.dump(),
                                                     spec.expression_names(), expr::Location{ctx.file, where})};
      }
    }
  }
  spec.launch = parse_launch_rules(spec);
  return spec;
}

Spec load(const fs::path& path) {
  // A regular file of bounded size: /dev/zero or a FIFO would be read forever, a directory reads
  // as an empty document.
  constexpr std::uintmax_t kMaxSpecBytes = std::uintmax_t{64} << 20;
  return parse(read_regular_file(path, kMaxSpecBytes, ""), path);
}

std::string space_hash(const Spec& spec) {
  Hasher h;
  for (const auto& p : spec.parameters) {
    h.field(p.name);
    for (const auto& v : p.values) h.field(v.repr());
  }
  for (const auto& c : spec.conditions) h.field(c.program.source());
  return h.hex();
}

json to_json(const expr::Value& v) {
  switch (v.type()) {
    case expr::Type::None:
      return nullptr;
    case expr::Type::Bool:
      return v.truthy();
    case expr::Type::Int:
      return v.as_int();
    case expr::Type::Float:
      return v.as_float();
    case expr::Type::Str:
      return v.as_str();
    case expr::Type::List:
    case expr::Type::Tuple: {
      json arr = json::array();
      for (const auto& item : v.items()) arr.push_back(to_json(item));
      return arr;
    }
  }
  return nullptr;
}

}  // namespace tune::spec

#include "spec/bind.h"

#include "spec/launch.h"

#include <algorithm>
#include <limits>

namespace tune::spec {

namespace {

std::string describe(const Spec& spec, std::span<const expr::Value> bound) {
  std::string s;
  for (std::size_t p = 0; p < spec.parameters.size() && p < bound.size(); ++p)
    s += (s.empty() ? "" : ", ") + spec.parameters[p].name + "=" + bound[p].repr();
  return s;
}

std::uint32_t dim(std::int64_t v, const Spec& spec, const char* what) {
  if (v > std::numeric_limits<std::uint32_t>::max())
    throw InputError(spec.path.string() + ": " + what + " of " + std::to_string(v) + " is too large");
  return static_cast<std::uint32_t>(v);
}

}  // namespace

std::int64_t whole_number(const Spec& spec, const Expression& e, std::span<const expr::Value> bound) {
  expr::Value v = e.program.eval(bound);
  if (v.is_integral()) return v.as_int();
  if (v.type() == expr::Type::Float && v.as_float() == static_cast<double>(static_cast<std::int64_t>(v.as_float())))
    return static_cast<std::int64_t>(v.as_float());
  throw InputError(spec.path.string() + ": " + e.json_path + ": `" + e.program.source() + "` gives " + v.repr() +
                   ", not a whole number (with " + describe(spec, bound) + ")");
}

std::int64_t positive_int(const Spec& spec, const Expression& e, std::span<const expr::Value> bound) {
  const std::int64_t n = whole_number(spec, e, bound);
  if (n <= 0)
    throw InputError(spec.path.string() + ": " + e.json_path + ": `" + e.program.source() + "` gives " +
                     std::to_string(n) + ", not a positive size (with " + describe(spec, bound) + ")");
  return n;
}

int problem_rank(const Spec& spec) {
  const auto& ps = spec.kernel.problem_size;
  if (ps.is_sequence()) return static_cast<int>(std::min<std::size_t>(3, std::max<std::size_t>(1, ps.items().size())));
  return 1;
}

expr::Value problem_size_value(const Spec& spec, const sizes::Size& size) {
  const int rank = problem_rank(spec);
  if (!spec.kernel.problem_size.is_sequence() && size.rank == 1) return expr::Value::integer(size.dims[0]);
  auto dims = size.as_rank(rank);
  std::vector<expr::Value> items;
  items.reserve(static_cast<std::size_t>(std::max(rank, size.rank)));
  for (int d = 0; d < std::max(rank, size.rank); ++d) items.push_back(expr::Value::integer(dims[d]));
  return expr::Value::list(std::move(items));
}

std::vector<expr::Value> bind_config(const Spec& spec, std::span<const expr::Value> config, const sizes::Size& size) {
  std::vector<expr::Value> bound(config.begin(), config.end());
  bound.resize(spec.parameters.size());
  bound.push_back(problem_size_value(spec, size));
  return bound;
}

std::optional<std::array<std::int64_t, 3>> grid_divisors(const Spec& spec, std::span<const expr::Value> bound) {
  const auto& k = spec.kernel;
  bool kt_grid = false;
  for (int d = 0; d < 3; ++d) kt_grid = kt_grid || !k.grid_div[d].empty();
  if (!kt_grid) return std::nullopt;
  static const char* kBlock[3] = {"block_size_x", "block_size_y", "block_size_z"};
  std::array<std::int64_t, 3> out{1, 1, 1};
  for (int d = 0; d < 3; ++d) {
    std::int64_t div = 1;
    if (k.grid_div[d].empty()) {
      for (std::size_t p = 0; p < spec.parameters.size(); ++p)
        if (spec.parameters[p].name == kBlock[d]) div = bound[p].as_int();
    }
    for (const auto& e : k.grid_div[d]) div *= positive_int(spec, e, bound);
    out[d] = div;
  }
  return out;
}

bool shape_reads_problem_size(const Spec& spec) {
  const std::size_t ps = spec.parameters.size();  // ProblemSize's slot
  auto reads = [&](const Expression& e) {
    const auto& used = e.program.used();
    return std::find(used.begin(), used.end(), ps) != used.end();
  };
  for (int d = 0; d < 3; ++d) {
    if (spec.kernel.local_size[d] && reads(*spec.kernel.local_size[d])) return true;
    for (const auto& e : spec.kernel.grid_div[d])
      if (reads(e)) return true;
  }
  return false;
}

namespace {

// Tune.cluster and Tune.dynamic_shared_memory of a bound configuration, within launch.h's bounds:
// the one rule of geometry() and check_launch_bounds().
struct LaunchShape {
  std::array<std::uint32_t, 3> cluster{1, 1, 1};
  std::uint32_t dynamic_smem = 0;
};
LaunchShape launch_shape(const Spec& spec, std::span<const expr::Value> bound) {
  LaunchShape out;
  std::int64_t blocks = 1;
  for (int d = 0; d < 3; ++d) {
    const auto& axis = spec.launch.cluster[d];
    if (!axis) continue;
    const std::int64_t n = positive_int(spec, *axis, bound);
    blocks = n > kMaxClusterBlocks ? n : blocks * n;
    if (blocks > kMaxClusterBlocks)
      throw InputError(spec.path.string() + ": " + axis->json_path + ": `" + axis->program.source() +
                       "` makes a cluster of more than " + std::to_string(kMaxClusterBlocks) +
                       " blocks, more than any GPU launches (with " + describe(spec, bound) + ")");
    out.cluster[d] = static_cast<std::uint32_t>(n);
  }
  if (const auto& e = spec.launch.dynamic_shared) {
    const std::int64_t bytes = whole_number(spec, *e, bound);
    if (bytes < 0 || bytes > kMaxDynamicSharedBytes)
      throw InputError(spec.path.string() + ": " + e->json_path + ": `" + e->program.source() + "` gives " +
                       std::to_string(bytes) + " bytes; dynamic shared memory is 0 to " +
                       std::to_string(kMaxDynamicSharedBytes) + " bytes (16 MiB) (with " + describe(spec, bound) + ")");
    out.dynamic_smem = static_cast<std::uint32_t>(bytes);
  }
  return out;
}

}  // namespace

Geometry geometry(const Spec& spec, std::span<const expr::Value> bound) {
  const auto& k = spec.kernel;
  Geometry g;
  for (int d = 0; d < 3; ++d)
    if (k.local_size[d]) g.block[d] = dim(positive_int(spec, *k.local_size[d], bound), spec, "block size");
  const LaunchShape shape = launch_shape(spec, bound);
  g.cluster = shape.cluster;
  g.dynamic_smem = shape.dynamic_smem;
  g.tensor_maps = tensor_maps(spec, bound);

  const expr::Value& ps = bound.back();
  if (auto div = grid_divisors(spec, bound)) {  // Kernel Tuner: grid = ceil(problem / prod(grid_div))
    for (int d = 0; d < 3; ++d) {
      std::int64_t extent = 1;
      if (ps.is_sequence())
        extent = d < static_cast<int>(ps.items().size()) ? ps.items()[d].as_int() : 1;
      else if (d == 0)
        extent = ps.as_int();
      g.grid[d] = dim((extent + (*div)[d] - 1) / (*div)[d], spec, "grid size");
    }
    return g;
  }
  for (int d = 0; d < 3; ++d) {
    if (!k.global_size[d]) continue;
    std::int64_t v = positive_int(spec, *k.global_size[d], bound);
    if (k.global_size_type == "OpenCL") v = (v + g.block[d] - 1) / g.block[d];
    g.grid[d] = dim(v, spec, "grid size");
  }
  return g;
}

std::vector<ArgumentPlan> arguments(const Spec& spec, const sizes::Size& size) {
  std::vector<expr::Value> lists;
  for (const auto& p : spec.parameters) lists.push_back(expr::Value::list(p.values));
  lists.push_back(problem_size_value(spec, size));
  std::vector<ArgumentPlan> out;
  for (const auto& a : spec.kernel.arguments) {
    ArgumentPlan plan;
    plan.name = a.name;
    plan.type = a.type;
    plan.scalar = a.scalar();
    plan.fill = a.fill;
    plan.output = a.written();
    plan.read = a.read_and_written();
    if (a.fill_value) plan.fill_value = a.fill_value->program.eval(lists);
    // Tune.fill_values: a size-dependent value for a scalar whose T1 FillValue is a plain number
    // (so that Kernel Tuner can still read the file).
    if (auto t = spec.tune.find("fill_values"); t != spec.tune.end() && t->is_object() && t->contains(a.name)) {
      std::string where = "Tune.fill_values." + a.name;
      const auto& src = (*t)[a.name];
      if (!src.is_string() && !src.is_number())
        throw InputError(spec.path.string() + ": " + where + ": expected an expression");
      auto prog = expr::Program::compile(src.is_string() ? src.get<std::string>() : src.dump(), spec.expression_names(),
                                         expr::Location{spec.path.string(), where});
      plan.fill_value = prog.eval(lists);
    }
    if (!plan.scalar) plan.count = static_cast<std::uint64_t>(positive_int(spec, *a.size, lists));
    out.push_back(std::move(plan));
  }
  return out;
}

double evaluate_number(const Spec& spec, const Expression& e, std::span<const expr::Value> bound) {
  expr::Value v = e.program.eval(bound);
  if (!v.is_number())
    throw InputError(spec.path.string() + ": " + e.json_path + ": `" + e.program.source() + "` gives " + v.repr() +
                     ", not a number");
  return v.as_float();
}

std::array<std::int64_t, 3> alignment(const Spec& spec, std::span<const expr::Value> bound) {
  std::array<std::int64_t, 3> out{1, 1, 1};
  for (std::size_t d = 0; d < 3; ++d)
    if (spec.alignment[d]) out[d] = positive_int(spec, *spec.alignment[d], bound);
  return out;
}

void check_launch_bounds(const Spec& spec, std::span<const expr::Value> bound) { (void)launch_shape(spec, bound); }

std::vector<std::pair<std::string, std::string>> defines(const Spec& spec, std::span<const expr::Value> values) {
  std::vector<std::pair<std::string, std::string>> out;
  for (std::size_t p = 0; p < spec.parameters.size(); ++p) {
    const expr::Value& v = values[p];
    std::string text = v.type() == expr::Type::Bool ? (v.truthy() ? "1" : "0") : v.str();
    out.emplace_back(spec.parameters[p].name, text);
  }
  return out;
}

std::vector<expr::Value> default_values(const Spec& spec) {
  std::vector<expr::Value> out;
  for (const auto& p : spec.parameters) out.push_back(p.default_value ? *p.default_value : p.values.front());
  return out;
}

}  // namespace tune::spec

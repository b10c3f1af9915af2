// Binds a spec to one configuration and one problem size: the launch geometry (grid and block)
// and the kernel arguments (element counts, fill), following Kernel Tuner's conventions.
//
// Binding rules (spaces/README.md has the user-facing version):
// - The swept size replaces the spec's ProblemSize: a size "N" fills every dimension of the
//   spec's ProblemSize (N x N for a 2-D problem), "MxN" gives them one by one.
// - Grid: if the spec has GridDivX/Y/Z (or a ProblemSize and no GlobalSize rule applies), the
//   grid in dimension d is ceil(ProblemSize[d] / product(GridDiv_d)), with Kernel Tuner's defaults
//   GridDivX = [block_size_x], GridDivY = [block_size_y], GridDivZ = [block_size_z]; otherwise
//   GlobalSize is the grid (GlobalSizeType CUDA) or the total threads (OpenCL).
// - Block: LocalSize X/Y/Z evaluated with the configuration's parameter values.
// - Arguments: Size and FillValue are evaluated with ProblemSize bound to the size and every
//   parameter bound to the LIST of its values (as real files use it: `max(filter_width)`), so
//   one allocation per size serves every configuration. Tune.fill_values.<name> (an expression)
//   overrides a scalar's FillValue, e.g. {"rows": "ProblemSize[1]"}.
// Shared by the tuner (tuning/), the generated headers (header/) and the runtime library
// (runtime/), so that all three launch a configuration the same way.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "sizes/sizes.h"
#include "spec/launch.h"
#include "spec/spec.h"

namespace tune::spec {

struct Geometry {
  std::array<std::uint32_t, 3> grid{1, 1, 1};
  std::array<std::uint32_t, 3> block{1, 1, 1};
  std::array<std::uint32_t, 3> cluster{1, 1, 1};  // Tune.cluster (spec/launch.h)
  std::uint32_t dynamic_smem = 0;                 // bytes, Tune.dynamic_shared_memory
  std::vector<TensorMapBinding> tensor_maps;      // Tune.tensor_maps
  bool clustered() const { return cluster[0] * cluster[1] * cluster[2] > 1; }
  std::uint64_t threads_per_block() const { return std::uint64_t(block[0]) * block[1] * block[2]; }
};

struct ArgumentPlan {
  std::string name;
  std::string type;  // T1 type: float, int32, ...
  bool scalar = false;
  std::uint64_t count = 0;        // elements (vectors)
  Fill fill = Fill::unspecified;  // the spec's FillType
  expr::Value fill_value;         // scalar value, or the constant / random scale
  bool output = false;
  bool read = false;  // ReadWrite: the kernel reads it too (restored, not poisoned, before verification)
};

// ProblemSize as the spec's expressions see it: an int for a 1-D spec, else a list.
expr::Value problem_size_value(const Spec& spec, const sizes::Size& size);
int problem_rank(const Spec& spec);

// Slot values for launch expressions: the configuration's values, then ProblemSize.
std::vector<expr::Value> bind_config(const Spec& spec, std::span<const expr::Value> config, const sizes::Size& size);

// An expression's value over a bound configuration as a whole number, or a positive one. Throw
// InputError (naming the spec, the JSON location and the configuration) otherwise.
std::int64_t whole_number(const Spec& spec, const Expression& e, std::span<const expr::Value> bound);
std::int64_t positive_int(const Spec& spec, const Expression& e, std::span<const expr::Value> bound);

// Throws InputError (naming the spec, the JSON location and the configuration) when an expression
// does not give a positive integer (block, grid, cluster) or a whole number of bytes (dynamic
// shared memory).
Geometry geometry(const Spec& spec, std::span<const expr::Value> bound);

// The divisors of Kernel Tuner's grid rule (grid[d] = ceil(extent[d] / divisor[d])) for a bound
// configuration, or nullopt when the spec has no GridDivX/Y/Z and its grid is GlobalSize.
std::optional<std::array<std::int64_t, 3>> grid_divisors(const Spec& spec, std::span<const expr::Value> bound);

// True when LocalSize or a GridDiv expression reads ProblemSize: then a configuration's block and
// grid divisors are not constants (the generated headers need them to be).
bool shape_reads_problem_size(const Spec& spec);

std::vector<ArgumentPlan> arguments(const Spec& spec, const sizes::Size& size);

// Evaluates one of our extension expressions (e.g. Tune.bytes) over a bound configuration.
double evaluate_number(const Spec& spec, const Expression& e, std::span<const expr::Value> bound);

// Tune.alignment for a bound configuration: per axis, the divisor of the problem's extent that its
// fast path needs (1 for an axis the spec does not name). Throws InputError (naming the spec and
// the key) when an expression does not give a positive whole number.
std::array<std::int64_t, 3> alignment(const Spec& spec, std::span<const expr::Value> bound);

// Tune.cluster and Tune.dynamic_shared_memory of a bound configuration within the bounds of
// launch.h (each cluster axis a positive whole number, kMaxClusterBlocks blocks at most; 0 to
// kMaxDynamicSharedBytes bytes), else InputError naming the spec, the key and the configuration.
void check_launch_bounds(const Spec& spec, std::span<const expr::Value> bound);

// The defines every configuration gets: each parameter as -D name=value (strings unquoted, bools 0/1).
std::vector<std::pair<std::string, std::string>> defines(const Spec& spec, std::span<const expr::Value> values);
// The parameters' Default values (first value when a parameter has none).
std::vector<expr::Value> default_values(const Spec& spec);

}  // namespace tune::spec

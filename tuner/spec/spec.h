// A search-space specification in Kernel Tuner's T1 JSON format, tolerant of what real files do
// (Budget as object or array, FormatVersion as string, Kernel Tuner's extra keys). Every
// expression is compiled once here; errors name the file, the JSON location and the cause.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "expr/expr.h"

namespace tune::spec {

// Bounds of a T1 file (each refusal is one InputError naming the key): parameters, conditions.
inline constexpr std::size_t kMaxParameters = 1000;
inline constexpr std::size_t kMaxConditions = 10000;
inline constexpr std::size_t kMaxNameLength = 256;  // kernel, parameter and argument names

struct Parameter {
  std::string name;
  std::string type;                 // T1 "Type": int, uint, float, bool, string
  std::vector<expr::Value> values;  // evaluated "Values", in file order
  std::optional<expr::Value> default_value;
  std::string values_source;  // the "Values" text as written
};

struct Condition {
  std::string json_path;            // e.g. "ConfigurationSpace.Conditions[2].Expression"
  expr::Program program;            // names = the parameters, in declaration order
  std::vector<std::size_t> params;  // parameters the expression reads (program.used())
};

// An expression over the parameters and ProblemSize (LocalSize, GlobalSize, GridDiv, Size, ...).
// Slots: parameters in declaration order, then "ProblemSize".
struct Expression {
  std::string json_path;
  expr::Program program;
};

// Tune.tensor_maps.<argument>, its expressions compiled (spec/launch.h).
struct TensorMapRule {
  std::size_t argument = 0;  // the CUtensorMap parameter (index into Kernel::arguments)
  std::size_t buffer = 0;    // the buffer argument it describes
  std::vector<Expression> dims, box;
  std::optional<Expression> swizzle;  // bytes; absent: no swizzle
};

// Tune.arch, Tune.cluster, Tune.dynamic_shared_memory, Tune.tensor_maps (spec/launch.h).
struct LaunchRules {
  std::string arch;  // empty: the device's own target
  std::array<std::optional<Expression>, 3> cluster;
  std::optional<Expression> dynamic_shared;
  std::vector<TensorMapRule> tensor_maps;
};

// The T1 schema's enumerations of an argument (kernel_tuner/schema/T1/input-schema.json); any
// other value is refused when the file is loaded.
enum class Memory { scalar, vector, local, symbol };                                           // "MemoryType"
enum class Access { unspecified, read_only, write_only, read_write };                          // "AccessType", absent
enum class Fill { unspecified, constant, random, generator, script, binary_raw, binary_hdf };  // "FillType"

struct Argument {
  std::string name;
  std::string type;  // T1 "Type": float, int32, double, ...
  Memory memory = Memory::vector;
  Access access = Access::unspecified;
  Fill fill = Fill::unspecified;
  std::optional<Expression> size;        // element count (vectors)
  std::optional<Expression> fill_value;  // a number, or an expression in our files
  bool output = false;                   // "Output": 1 (true), as Kernel Tuner's files mark outputs
  std::string mem_type;                  // Kernel Tuner's "MemType" (e.g. Constant), kept as written

  bool scalar() const { return memory == Memory::scalar; }
  // Written by the kernel: "Output", or AccessType WriteOnly / ReadWrite.
  bool written() const { return output || access == Access::write_only || access == Access::read_write; }
  bool read_and_written() const { return access == Access::read_write; }
};

struct Kernel {
  std::string language;             // CUDA, OpenCL, ...
  std::string name;                 // KernelName
  std::string file;                 // KernelFile as written
  std::filesystem::path file_path;  // resolved against the spec's folder
  std::vector<std::string> compiler_options;
  std::string global_size_type;  // "CUDA" (grid in blocks) or "OpenCL" (grid in threads)
  std::array<std::optional<Expression>, 3> local_size;
  std::array<std::optional<Expression>, 3> global_size;
  std::array<std::vector<Expression>, 3> grid_div;  // GridDivX/Y/Z (Kernel Tuner)
  expr::Value problem_size;                         // as in the file: int, list, or None
  long long shared_memory = 0;
  std::vector<Argument> arguments;
};

struct Spec {
  std::filesystem::path path;
  std::string content_hash;  // of the file's bytes
  std::string benchmark_name;
  std::vector<Parameter> parameters;
  std::vector<Condition> conditions;
  Kernel kernel;
  nlohmann::json budget = nlohmann::json::array();  // normalised to the schema's array form
  std::string objective = "time";                   // General.Objective (Kernel Tuner)
  bool minimize = true;                             // General.Minimize
  std::string search;   // Search.Name: the strategy the file asks for ("" when it names none)
  nlohmann::json tune;  // our extensions: the top-level "Tune" object (see spaces/README.md)
  // Tune.alignment: per axis, the divisor of the extent a configuration's fast path needs (absent: 1)
  std::array<std::optional<Expression>, 3> alignment;
  LaunchRules launch;  // the Hopper launch extensions
  nlohmann::json raw;  // the whole document

  // Slot names for Expression programs: parameters, then "ProblemSize".
  std::vector<std::string> expression_names() const;
  std::size_t param_index(const std::string& name) const;  // throws InputError if unknown
};

// Reads and validates a T1 file. Throws tune::InputError (missing file, malformed JSON, a missing
// required key, a bad value) or expr::Error (bad expression), each naming the file and location.
Spec load(const std::filesystem::path& path);
Spec parse(const std::string& text, const std::filesystem::path& path);

// The hash of a space's identity (parameter names and value lists, conditions), used to key stored
// configurations: equal for two files that define the same space.
std::string space_hash(const Spec& spec);

// A parameter value as JSON (int, float, bool or string).
nlohmann::json to_json(const expr::Value& v);

// A literal value nests at most this deep (real ones: 1 or 2).
inline constexpr int kMaxValueNesting = 32;

// The one conversion of a JSON value to what the spec's expressions see, for every place a
// configuration's values come from JSON (the spec's Values, stored configurations, Kernel Tuner
// caches, tune tables): null None, true/false Bool, integers Int, other numbers Float, strings
// Str, arrays List. An object, or arrays nested deeper than kMaxValueNesting, is no value.
template <class Json>
std::optional<expr::Value> to_value(const Json& v, int depth = 0) {
  if (v.is_null()) return expr::Value();
  if (v.is_boolean()) return expr::Value::boolean(v.template get<bool>());
  if (v.is_number_integer()) return expr::Value::integer(v.template get<std::int64_t>());
  if (v.is_number()) return expr::Value::real(v.template get<double>());
  if (v.is_string()) return expr::Value::string(v.template get<std::string>());
  if (!v.is_array() || depth >= kMaxValueNesting) return std::nullopt;
  std::vector<expr::Value> items;
  items.reserve(v.size());
  for (const auto& item : v) {
    auto x = to_value(item, depth + 1);
    if (!x) return std::nullopt;
    items.push_back(std::move(*x));
  }
  return expr::Value::list(std::move(items));
}

}  // namespace tune::spec

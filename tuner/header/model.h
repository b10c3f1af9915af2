// What every generated file of a kernel is made from: the best configuration per device and
// measured size (query::best), bound to the kernel's spec. Every stored configuration must lie in
// the spec's space (each value one of its parameter's Values), so a value that reaches a
// generated file is one the spec's author wrote; names are checked to be C identifiers.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>
#include "decision/objective.h"

#include "select/build.h"
#include "spec/spec.h"
#include "store/store.h"

namespace tune::header {

// One distinct configuration and how to launch it.
struct Variant {
  std::vector<expr::Value> values;                           // in the spec's parameter order
  std::vector<std::pair<std::string, std::string>> defines;  // -D name=value, as the tuner compiles
  std::array<std::uint32_t, 3> block{1, 1, 1};               // threads per block (LocalSize)
  std::array<std::int64_t, 3> grid_div{1, 1, 1};             // grid[d] = ceil(extent[d] / grid_div[d])
};

// One device's selection model (select/select.h), its variants indexing Model::variants.
struct Device {
  std::string name;                                // as stored: data, never code
  int cc_major = 0, cc_minor = 0;                  // 0.0 when no run recorded it
  std::vector<tune_select::Point> entries;         // the measured sizes, ascending by size
  std::vector<tune_select::Candidate> candidates;  // with their alignment divisors
  std::vector<unsigned> regret;                    // entries x candidates (select.h)
  std::size_t fallback = 0;                        // the variant decided at the most sizes (ties: the largest size)
};

struct Model {
  std::string kernel;  // as stored (data)
  std::string ns;      // identifier(kernel): the generated namespace
  const spec::Spec* spec = nullptr;
  std::vector<std::string> params;  // the spec's parameter names (C identifiers)
  std::vector<Variant> variants;    // distinct configurations: every table's, then the default
  std::vector<Device> devices;      // ordered by name
  std::size_t default_variant = 0;  // the spec's Default values
  decision::Objective objective = decision::Objective::time;  // what the tables chose for
};

// Throws InputError (exit 2, nothing written): no verified results; a parameter or argument name
// that is not a C identifier; a stored configuration outside the spec's space; a launch shape
// that reads ProblemSize or a grid given by GlobalSize (the generated tables hold constants).
// `objective`: the tables choose for time (the default), energy per launch or EDP (query::model).
Model build(store::Store& db, const std::string& kernel, const spec::Spec& spec,
            decision::Objective objective = decision::Objective::time);

// Tune.alignment of a stored configuration (canonical JSON) under `spec`; {1, 1, 1} for one that
// is not in the spec's space.
select::Alignment alignment_of(const spec::Spec& spec);

// The spec the kernel's runs recorded (runs.spec_path) when that file is still there with the
// recorded content hash (newest run first); empty when none is.
// A recorded path that is relative (runs of an older tune recorded the path as given) is looked
// for from the working directory, then from the database's folder and the folder above it (the
// repository root for results/tuning.db), so that `tune header` works from anywhere.
std::string recorded_spec(store::Store& db, const std::string& kernel, const std::string& db_path = "");

}  // namespace tune::header

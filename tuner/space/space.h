// The valid configurations of a spec, constructed without walking the whole Cartesian product:
// parameters are grouped by the conditions that connect them, each group is enumerated on its own
// with every condition checked as soon as its parameters are fixed (ATF's chain of trees), and the
// valid set is the product of the groups. Configurations are stored as one value index per
// parameter, in lexicographic order of the declaration order (the order itertools.product gives).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "spec/spec.h"

namespace tune::space {

using Index = std::uint16_t;  // index of a value in its parameter's value list

class Space {
 public:
  // Throws InputError when no configuration is valid, expr::Error when a condition fails to
  // evaluate (naming the configuration).
  static Space build(const spec::Spec& spec);

  std::size_t size() const { return count_; }             // valid configurations
  std::uint64_t cartesian() const { return cartesian_; }  // product of the value counts
  std::size_t num_params() const { return names_.size(); }
  double seconds() const { return seconds_; }     // construction wall time
  std::size_t groups() const { return groups_; }  // independent parameter groups

  const std::vector<std::string>& names() const { return names_; }
  const std::vector<expr::Value>& values(std::size_t param) const { return values_[param]; }

  // Value indices of configuration `config` (num_params() entries).
  std::span<const Index> indices(std::size_t config) const {
    return {rows_.data() + config * names_.size(), names_.size()};
  }
  const expr::Value& value(std::size_t config, std::size_t param) const {
    return values_[param][rows_[config * names_.size() + param]];
  }

  // The configuration with these value indices, if valid (binary search over the sorted rows).
  std::optional<std::size_t> find(std::span<const Index> indices) const;
  // Whether arbitrary values satisfy every condition (for configurations outside the space).
  bool satisfies(std::span<const expr::Value> values) const;

  // {"name": value, ...} in declaration order: the canonical text stored in the database.
  std::string params_json(std::size_t config) const;
  std::vector<expr::Value> config_values(std::size_t config) const;

 private:
  std::vector<std::string> names_;
  std::vector<std::vector<expr::Value>> values_;
  std::vector<expr::Program> conditions_;
  std::string file_;
  std::vector<Index> rows_;  // count_ x num_params()
  std::size_t count_ = 0;
  std::uint64_t cartesian_ = 1;
  double seconds_ = 0;
  std::size_t groups_ = 0;
};

// The per-configuration rules of the Tune extensions hold for every configuration of `space` (bound
// at size 1, as the selection model binds it): Tune.alignment gives a positive whole number, and
// Tune.cluster and Tune.dynamic_shared_memory stay within what any GPU launches
// (spec::check_launch_bounds). Else InputError naming the configuration: checked by `tune space`,
// before a run and before an import, so that nothing is stored that `best`, `header` or a launch
// would then refuse.
void check_config_rules(const spec::Spec& spec, const Space& space);

}  // namespace tune::space

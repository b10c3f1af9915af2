// A Kernel Tuner cache against a T1 spec: the same parameters and values, and the cache's keys
// against the valid configurations of the space (what a replay of the cache needs).
#include <sstream>

#include "interop/entry.h"

namespace tune::interop {

namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) detail::append(s, ", ", x);
  return "[" + s + "]";
}

bool contains(const std::vector<expr::Value>& values, const expr::Value& v) {
  for (const auto& x : values)
    if (x == v) return true;
  return false;
}

std::optional<std::size_t> index_of(const std::vector<expr::Value>& values, const expr::Value& v) {
  for (std::size_t i = 0; i < values.size(); ++i)
    if (values[i] == v) return i;
  return std::nullopt;
}

}  // namespace

SpecCheck check_parameters(const ojson& keys, const ojson& tune_params, const spec::Spec& spec) {
  SpecCheck c;
  std::vector<std::string> cache_names, spec_names;
  for (const auto& k : keys) cache_names.push_back(k.get<std::string>());
  for (const auto& p : spec.parameters) spec_names.push_back(p.name);
  if (cache_names != spec_names) {
    c.problems.push_back("parameter names differ: the cache has " + join(cache_names) + ", the spec " +
                         join(spec_names) + " (Kernel Tuner keys need the same names in the same order)");
  }
  for (const auto& p : spec.parameters) {
    if (!tune_params.is_object() || !tune_params.contains(p.name) || !tune_params[p.name].is_array()) continue;
    std::vector<expr::Value> cache_values;
    for (const auto& v : tune_params[p.name]) cache_values.push_back(detail::to_value(v));
    std::vector<std::string> only_cache, only_spec;
    for (const auto& v : cache_values)
      if (!contains(p.values, v)) only_cache.push_back(v.repr());
    for (const auto& v : p.values)
      if (!contains(cache_values, v)) only_spec.push_back(v.repr());
    if (!only_cache.empty() || !only_spec.empty()) {
      c.problems.push_back("values of " + p.name + " differ: only in the cache " + join(only_cache) +
                           ", only in the spec " + join(only_spec));
      if (only_cache.empty()) c.narrower.push_back(c.problems.back());
    }
  }
  return c;
}

SpecCheck check_against_spec(const CacheFile& cache, const spec::Spec& spec, const space::Space& space) {
  const ojson tune_params = cache.header.contains("tune_params") ? cache.header["tune_params"] : ojson::object();
  SpecCheck c = check_parameters(cache.header["tune_params_keys"], tune_params, spec);
  c.cache_entries = cache.entries.size();
  c.space_size = space.size();
  std::vector<bool> seen(space.size(), false);
  std::vector<space::Index> indices(space.num_params());
  for (const auto& e : cache.entries) {
    bool known = e.value.is_object();
    for (std::size_t p = 0; known && p < space.num_params(); ++p) {
      const std::string& name = space.names()[p];
      auto i = e.value.contains(name) ? index_of(space.values(p), detail::to_value(e.value[name])) : std::nullopt;
      known = i.has_value();
      if (known) indices[p] = static_cast<space::Index>(*i);
    }
    auto config = known ? space.find(indices) : std::nullopt;
    if (!config) {
      ++c.extra;
      if (c.extra_examples.size() < 3) c.extra_examples.push_back(e.key);
    } else if (!seen[*config]) {
      seen[*config] = true;
      ++c.matched;
    }
  }
  for (std::size_t i = 0; i < seen.size(); ++i) {
    if (seen[i]) continue;
    ++c.missing;
    if (c.missing_examples.size() < 3) {
      std::string key;
      for (std::size_t p = 0; p < space.num_params(); ++p) {
        if (p > 0) key += ',';
        key += space.value(i, p).str();
      }
      c.missing_examples.push_back(key);
    }
  }
  // Values the cache does not list but every valid configuration is in it: the spec's extra
  // values are used by no valid configuration, so the cache is a whole sweep of this space.
  if (c.missing == 0 && c.matched > 0 && c.narrower.size() == c.problems.size()) c.problems.clear();
  return c;
}

std::string SpecCheck::report() const {
  std::ostringstream out;
  for (const auto& p : problems) out << p << "; ";
  out << cache_entries << " cache entries, " << space_size << " valid configurations, " << matched << " in both";
  if (missing > 0)
    out << "; " << missing << " valid configurations missing from the cache (e.g. " << join(missing_examples) << ")";
  if (extra > 0) out << "; " << extra << " cache keys outside the space (e.g. " << join(extra_examples) << ")";
  if (keys_equal()) out << ": the key sets are equal";
  return out.str();
}

}  // namespace tune::interop

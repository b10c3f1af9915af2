// tune import: a Kernel Tuner cache or T4 results file into the database, one transaction per
// file, adding nothing when the same data is imported again.

#include <algorithm>
#include <chrono>
#include <map>

#include "common/error.h"
#include "common/hash.h"
#include "interop/entry.h"
#include "interop/online.h"
#include "log/log.h"

namespace tune::interop {

namespace {

using detail::Imported;
using store::MeasurementStatus;

struct Plan {
  std::string format, kernel, device, space_hash;
  sizes::Size size;
  bool device_defaulted = false;
  ojson notes;
  std::vector<Imported> items;
};

}  // namespace

sizes::Size problem_size_of(const ojson& header) {
  if (!header.contains("problem_size") || header["problem_size"].is_null()) return sizes::Size::of(1);
  const ojson& ps = header["problem_size"];
  // A number or list that is no size is refused: stored as size 1 it would pose as another size's
  // results.
  auto refuse = [&]() -> sizes::Size {
    throw InputError("problem_size " + ps.dump(-1, ' ', false, ojson::error_handler_t::replace) +
                     " is not a problem size (a positive whole number, or a list of 1 to 3 of them)");
  };
  if (ps.is_number()) {
    if (!ps.is_number_integer() || ps.get<std::int64_t>() <= 0) return refuse();
    return sizes::Size::of(ps.get<std::int64_t>());
  }
  if (ps.is_array()) {
    if (ps.empty() || ps.size() > 3) return refuse();
    std::string text;
    for (const auto& d : ps) {
      if (!d.is_number_integer() || d.get<std::int64_t>() <= 0) return refuse();
      detail::append(text, "x", std::to_string(d.get<std::int64_t>()));
    }
    try {
      return sizes::Size::parse_label(text);
    } catch (const Error&) {
      return refuse();
    }
  }
  if (ps.is_string()) return sizes::Size::of(1);  // Kernel Tuner's "callable": the notes keep it
  return refuse();
}

namespace {

// Python's ==: numbers and booleans by value (1 == 1.0 == True), everything else exactly.
bool py_equal(const ojson& a, const ojson& b) {
  auto numeric = [](const ojson& v) { return v.is_number() || v.is_boolean(); };
  if (numeric(a) && numeric(b)) {
    auto d = [](const ojson& v) { return v.is_boolean() ? (v.get<bool>() ? 1.0 : 0.0) : v.get<double>(); };
    return d(a) == d(b);
  }
  return a == b;
}

std::string text_field(const ojson& obj, const char* key) {
  return obj.contains(key) && obj[key].is_string() ? obj[key].get<std::string>() : "";
}

void resolve_names(Plan& plan, const std::string& file, const std::string& file_kernel, const std::string& file_device,
                   const ImportOptions& opt) {
  plan.kernel = opt.kernel ? *opt.kernel : file_kernel;
  if (plan.kernel.empty()) throw InputError(file + ": the file names no kernel: give --kernel NAME");
  plan.device = opt.device ? *opt.device : file_device;
  if (plan.device.empty()) {
    plan.device = "unknown";
    plan.device_defaulted = true;
  }
}

std::string space_hash_for(const ojson& keys, const ojson& tune_params, const ImportOptions& opt,
                           const std::string& file) {
  if (opt.spec == nullptr) return cache_space_hash(keys, tune_params);
  SpecCheck c = check_parameters(keys, tune_params, *opt.spec);
  if (!c.parameters_match()) {
    throw InputError(file + ": does not match spec " + opt.spec->path.string() + ": " + c.problems.front());
  }
  return spec::space_hash(*opt.spec);
}

Plan plan_cache(const CacheFile& c, const ImportOptions& opt) {
  const std::string file = c.path.string();
  Plan plan;
  plan.format = "kernel_tuner cache";
  resolve_names(plan, file, text_field(c.header, "kernel_name"), text_field(c.header, "device_name"), opt);
  try {
    plan.size = problem_size_of(c.header);
  } catch (const InputError& e) {
    throw InputError(file + ": " + e.what());
  }
  const std::vector<std::string> names = c.param_names();
  ojson tune_params = c.header.contains("tune_params") ? c.header["tune_params"] : ojson::object();
  plan.space_hash = space_hash_for(c.header["tune_params_keys"], tune_params, opt, file);
  // Each parameter's allowed values, compared with Python's == (so 1 == 1.0 == True).
  std::vector<std::vector<ojson>> allowed(names.size());
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (tune_params.contains(names[i]) && tune_params[names[i]].is_array()) {
      for (const auto& v : tune_params[names[i]]) allowed[i].push_back(v);
    }
  }
  std::map<std::string, std::string> seen;  // canonical params -> key
  plan.items.reserve(c.entries.size());
  for (const auto& e : c.entries) {
    const std::string at = file + ": entry \"" + e.key + "\": ";
    try {
      plan.items.push_back(detail::from_kt_entry(e.key, e.value, names));
    } catch (const InputError& err) {
      throw InputError(at + err.what());
    }
    const ojson& params = plan.items.back().params;
    for (std::size_t i = 0; i < names.size(); ++i) {
      if (allowed[i].empty()) continue;
      const ojson& v = params[names[i]];
      bool found = false;
      for (const auto& a : allowed[i]) found = found || py_equal(v, a);
      if (!found)
        throw InputError(at + "parameter " + names[i] + " = " + v.dump() + " is not among its tune_params values");
    }
    auto [it, fresh] = seen.emplace(store::canonical_params(params), e.key);
    if (!fresh) throw InputError(at + "same parameters as entry \"" + it->second + "\"");
  }
  plan.notes["format"] = plan.format;
  plan.notes["file"] = file;
  plan.notes["header"] = c.header;
  plan.notes["repaired"] = c.repaired;
  if (c.repaired) plan.notes["dropped_bytes"] = c.dropped_bytes;
  return plan;
}

Plan plan_t4(const T4File& t, const ImportOptions& opt) {
  const std::string file = t.path.string();
  Plan plan;
  plan.format = "T4";
  const ojson meta =
      t.header.contains("metadata") && t.header["metadata"].is_object() ? t.header["metadata"] : ojson::object();
  resolve_names(plan, file, text_field(meta, "kernel_name"), text_field(meta, "device_name"), opt);
  try {
    plan.size = problem_size_of(meta);
  } catch (const InputError& e) {
    throw InputError(file + ": metadata: " + e.what());
  }
  const double to_ms = detail::t4_time_unit_ms(meta, file);
  std::vector<std::string> names;
  ojson keys = ojson::array();
  if (!t.results.empty()) {
    for (const auto& [k, v] : t.results[0]["configuration"].items()) {
      names.push_back(k);
      keys.push_back(k);
    }
  }
  ojson tune_params = meta.contains("tune_params") ? meta["tune_params"] : ojson();
  if (!tune_params.is_object()) {  // the values seen, in order of appearance
    tune_params = ojson::object();
    for (const auto& n : names) tune_params[n] = ojson::array();
    for (const auto& r : t.results)
      for (const auto& n : names)
        if (r["configuration"].contains(n) &&
            std::find(tune_params[n].begin(), tune_params[n].end(), r["configuration"][n]) == tune_params[n].end())
          tune_params[n].push_back(r["configuration"][n]);
  }
  plan.space_hash = space_hash_for(keys, tune_params, opt, file);
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < t.results.size(); ++i) {
    try {
      plan.items.push_back(detail::from_t4_result(i, t.results[i], names, to_ms));
    } catch (const InputError& err) {
      throw InputError(file + ": results[" + std::to_string(i) + "]: " + err.what());
    }
    auto [it, fresh] = seen.emplace(store::canonical_params(plan.items.back().params), i);
    if (!fresh) {
      throw InputError(file + ": results[" + std::to_string(i) + "]: same configuration as results[" +
                       std::to_string(it->second) + "]");
    }
  }
  plan.notes["format"] = plan.format;
  plan.notes["file"] = file;
  plan.notes["header"] = t.header;
  return plan;
}

bool same_measurement(const store::StoredMeasurement& s, const store::Measurement& m) {
  return s.status == m.status && s.error == m.error && s.samples_ms == m.samples_ms && s.objective == m.objective &&
         s.gbps == m.gbps && s.gflops == m.gflops && s.compile_ms == m.compile_ms &&
         s.verification_ms == m.verification_ms && s.benchmark_ms == m.benchmark_ms &&
         s.strategy_time_ms == m.strategy_time_ms && s.extra == m.extra && s.eval_order == m.eval_order &&
         s.simulated_time_ms == m.simulated_time_ms && s.replayed == m.replayed;
}

ImportResult write(store::Store& db, Plan& plan, const ImportOptions& opt) {
  ImportResult r;
  r.format = plan.format;
  r.kernel = plan.kernel;
  r.device = plan.device;
  r.size = plan.size.label();
  r.space_hash = plan.space_hash;
  r.device_defaulted = plan.device_defaulted;
  r.entries = plan.items.size();
  auto batch = db.batch();
  std::map<std::string, store::StoredMeasurement> existing;
  for (auto& s : db.measurements({.kernel = plan.kernel,
                 .device = plan.device,
                 .size = plan.size.label(),
                 .space_hash = plan.space_hash,
                 .ok_only = false,
                 .with_samples = true})) {
    existing.emplace(s.params, std::move(s));
  }
  for (auto& item : plan.items) {
    store::Measurement& m = item.m;
    ++r.statuses[m.status];
    const std::string params = store::canonical_params(item.params);
    auto it = existing.find(params);
    if (it != existing.end() && same_measurement(it->second, detail::settled(m))) {
      ++r.unchanged;
      continue;
    }
    if (!r.run_id) {
      store::RunInfo info;
      info.kind = store::RunKind::import;
      info.kernel = plan.kernel;
      info.device = plan.device;
      info.strategy = "import";
      info.command_line = opt.command_line;
      if (opt.spec != nullptr) {
        info.spec_path = opt.spec->path.string();
        info.spec_hash = opt.spec->content_hash;
      }
      info.notes = plan.notes.dump();
      r.run_id = db.begin_run(info);
    }
    m.config_id = db.upsert_configuration(plan.kernel, plan.space_hash, item.params);
    m.run_id = *r.run_id;
    m.device = plan.device;
    m.size = plan.size;
    db.record(m);
    ++(it == existing.end() ? r.added : r.replaced);
  }
  if (r.run_id) db.finish_run(*r.run_id, store::RunStatus::completed);
  batch.commit();
  return r;
}

}  // namespace

std::string cache_space_hash(const ojson& keys, const ojson& tune_params) {
  Hasher h;
  for (const auto& k : keys) {
    const std::string name = k.get<std::string>();
    h.field(name);
    if (tune_params.is_object() && tune_params.contains(name) && tune_params[name].is_array()) {
      for (const auto& v : tune_params[name]) h.field(detail::python_repr(v));
    }
  }
  return h.hex();
}

ImportResult import_file(store::Store& db, const std::filesystem::path& path, const ImportOptions& opt) {
  using clock = std::chrono::steady_clock;
  auto seconds = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double>(b - a).count(); };
  const auto t0 = clock::now();
  if (auto online = detail::read_online(path)) {  // tune::runtime's online tuning result
    Plan plan = plan_cache(online->cache, opt);
    if (opt.spec != nullptr && plan.space_hash != online->space_hash)
      throw InputError(path.string() + ": the online result was tuned in another search space than " +
                       opt.spec->path.string() + " (its space_hash differs)");
    plan.space_hash = online->space_hash;
    plan.format = plan.notes["format"] = "tune online";
    ImportResult r = write(db, plan, opt);
    r.file = path;
    return r;
  }
  auto file = read_file(path);
  const auto t1 = clock::now();
  Plan plan = std::holds_alternative<CacheFile>(file) ? plan_cache(std::get<CacheFile>(file), opt)
                                                      : plan_t4(std::get<T4File>(file), opt);
  const auto t2 = clock::now();
  ImportResult r = write(db, plan, opt);
  log::debug("import {}: read {:.3f} s, map {:.3f} s, store {:.3f} s", path.string(), seconds(t0, t1), seconds(t1, t2),
             seconds(t2, clock::now()));
  r.file = path;
  r.repaired = std::holds_alternative<CacheFile>(file) && std::get<CacheFile>(file).repaired;
  return r;
}

}  // namespace tune::interop

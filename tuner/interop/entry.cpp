// A Kernel Tuner cache entry <-> a store::Measurement, exactly: import rebuilds every entry from
// what it is about to store and keeps whatever the columns cannot say (see interop.h).
#include "interop/entry.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>

#include "common/error.h"
#include "expr/expr.h"
#include "spec/spec.h"

namespace tune::interop::detail {

namespace {

using store::MeasurementStatus;

// Fields with a column of their own, in the order Kernel Tuner writes them (its NVMLObserver's
// nvml_energy, J per launch, and nvml_power, W, after the time fields).
const char* const kMapped[] = {"time", "times",   "compile_time", "verification_time", "benchmark_time",
                               "GB/s", "GFLOP/s", "nvml_energy",  "nvml_power",        "strategy_time"};

std::optional<double>* column(store::Measurement& m, std::string_view name) {
  if (name == "compile_time") return &m.compile_ms;
  if (name == "verification_time") return &m.verification_ms;
  if (name == "benchmark_time") return &m.benchmark_ms;
  if (name == "strategy_time") return &m.strategy_time_ms;
  if (name == "GB/s") return &m.gbps;
  if (name == "GFLOP/s") return &m.gflops;
  if (name == "nvml_energy") return &m.energy_j;
  if (name == "nvml_power") return &m.power_w;
  return nullptr;
}

std::optional<double> column_value(const store::Measurement& m, std::string_view name) {
  if (name == "compile_time") return m.compile_ms;
  if (name == "verification_time") return m.verification_ms;
  if (name == "benchmark_time") return m.benchmark_ms;
  if (name == "strategy_time") return m.strategy_time_ms;
  if (name == "GB/s") return m.gbps;
  if (name == "GFLOP/s") return m.gflops;
  if (name == "nvml_energy") return m.energy_j;
  if (name == "nvml_power") return m.power_w;
  return std::nullopt;
}

expr::Value value_of(const ojson& v) { return spec::to_value(v).value_or(expr::Value()); }

ojson number(double v, bool as_int) {
  if (as_int && std::nearbyint(v) == v && std::fabs(v) < 9.2e18) return static_cast<std::int64_t>(v);
  return v;
}

bool float32_exact(const ojson& v) {
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && static_cast<double>(static_cast<float>(d)) == d;
}

}  // namespace

MeasurementStatus failure_status(std::string_view t) {
  auto has = [&](std::string_view s) { return t.find(s) != std::string_view::npos; };
  if (has("Compil") || has("compil")) return MeasurementStatus::compile_failed;
  if (has("Invalid") || has("invalid") || has("estrict") || has("onstraint")) return MeasurementStatus::restricted;
  if (has("Timeout") || has("timeout") || has("TimedOut")) return MeasurementStatus::timeout;
  return MeasurementStatus::runtime_error;
}

bool is_failure_name(std::string_view t) {
  return t == "CompilationFailedConfig" || t == "RuntimeFailedConfig" || t == "InvalidConfig" || t == "ErrorConfig";
}

const char* failure_name(MeasurementStatus s) {
  switch (s) {
    case MeasurementStatus::compile_failed:
      return "CompilationFailedConfig";
    case MeasurementStatus::restricted:
      return "InvalidConfig";
    default:
      return "RuntimeFailedConfig";
  }
}

expr::Value to_value(const ojson& v) { return value_of(v); }

std::string python_str(const ojson& v) {
  if (v.is_null()) return "None";
  if (v.is_object()) return v.dump();
  return value_of(v).str();
}

std::string python_repr(const ojson& v) {
  if (v.is_null()) return "None";
  if (v.is_object()) return v.dump();
  return value_of(v).repr();
}

std::string cache_key(const ojson& params) {
  std::string key;
  bool first = true;
  for (const auto& [name, v] : params.items()) {
    if (!first) key += ',';
    first = false;
    key += python_str(v);
  }
  return key;
}

std::string measured_at_of(const std::string& ts) {
  // YYYY-MM-DD HH:MM:SS[.ffffff][+00:00|Z]
  if (ts.size() < 19 || ts[4] != '-' || ts[7] != '-' || (ts[10] != ' ' && ts[10] != 'T') || ts[13] != ':' ||
      ts[16] != ':')
    return "";
  std::size_t i = 19;
  std::string frac;
  if (i < ts.size() && ts[i] == '.') {
    for (++i; i < ts.size() && std::isdigit(static_cast<unsigned char>(ts[i])); ++i) frac += ts[i];
  }
  std::string zone = ts.substr(i);
  if (zone != "+00:00" && zone != "Z") return "";
  frac = (frac + "000").substr(0, 3);
  return ts.substr(0, 10) + "T" + ts.substr(11, 8) + "." + frac + "Z";
}

std::string kt_timestamp_of(const std::string& at) {
  if (at.size() < 19) return at;
  std::string frac;
  if (at.size() > 19 && at[19] == '.')
    for (std::size_t i = 20; i < at.size() && std::isdigit(static_cast<unsigned char>(at[i])); ++i) frac += at[i];
  frac = (frac + "000000").substr(0, 6);
  return at.substr(0, 10) + " " + at.substr(11, 8) + "." + frac + "+00:00";
}

store::Measurement settled(store::Measurement m) {
  store::settle(m);
  return m;
}

bool same_json(const ojson& a, const ojson& b) {
  auto kind = [](const ojson& v) { return v.is_number_unsigned() ? ojson::value_t::number_integer : v.type(); };
  if (kind(a) != kind(b)) return false;
  if (a.is_object()) {
    if (a.size() != b.size()) return false;
    for (auto ia = a.begin(), ib = b.begin(); ia != a.end(); ++ia, ++ib) {
      if (ia.key() != ib.key() || !same_json(ia.value(), ib.value())) return false;
    }
    return true;
  }
  if (a.is_array()) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_json(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

ojson to_kt_entry(const store::Measurement& m, const ojson& params, std::string& key) {
  ojson extra = ojson::parse(m.extra, nullptr, false);
  return to_kt_entry(m, params, extra.is_object() ? extra : ojson::object(), key);
}

ojson to_kt_entry(const store::Measurement& m, const ojson& params, const ojson& extra, std::string& key) {
  const ojson meta = extra.contains(kKtMeta) ? extra[kKtMeta] : ojson();
  key = meta.is_object() && meta.contains("key") ? meta["key"].get<std::string>() : cache_key(params);
  if (meta.is_object() && meta.contains("raw")) return meta["raw"];
  const bool imported = meta.is_object();
  std::set<std::string> ints;
  if (imported && meta.contains("int"))
    for (const auto& n : meta["int"]) ints.insert(n.get<std::string>());
  ojson fields = ojson::object();  // Kernel Tuner fields kept in extra, in order
  for (const auto& [k, v] : extra.items())
    if (k != kKtMeta && k != kT4Meta) fields[k] = v;

  // The value of a mapped field from the columns (null: absent).
  auto mapped = [&](const std::string& name) -> ojson {
    if (name == "time") {
      if (m.objective && (imported || m.status == MeasurementStatus::ok))
        return number(*m.objective, ints.count(name) > 0);
      if (m.status == MeasurementStatus::ok) return nullptr;
      if (!imported) return failure_name(m.status);
      return fields.contains("__error__") ? ojson() : ojson(m.error);  // >= 1.4 writes no failed "time"
    }
    if (name == "times") {
      if (m.samples_ms.empty()) return nullptr;
      ojson a = ojson::array();
      for (float s : m.samples_ms) a.push_back(static_cast<double>(s));
      return a;
    }
    if (auto col = column_value(m, name)) return number(*col, ints.count(name) > 0);
    // Kernel Tuner writes these for every configuration; its simulation mode needs the first three.
    if (!imported && (name == "compile_time" || name == "verification_time" || name == "benchmark_time" ||
                      name == "strategy_time")) {
      return 0;
    }
    return nullptr;
  };
  auto value = [&](const std::string& name) -> ojson {
    if (params.contains(name)) return params[name];
    if (fields.contains(name)) return fields[name];
    return mapped(name);
  };

  ojson e = ojson::object();
  if (imported && meta.contains("order")) {
    for (const auto& n : meta["order"]) e[n.get<std::string>()] = value(n.get<std::string>());
    return e;
  }
  for (const auto& [k, v] : params.items()) e[k] = v;
  for (const char* name : kMapped) {
    ojson v = value(name);
    if (!v.is_null() || fields.contains(name)) e[name] = v;
  }
  for (const auto& [k, v] : fields.items())
    if (!e.contains(k)) e[k] = v;
  if (!imported) {
    if (!e.contains("framework_time")) e["framework_time"] = 0;
    if (!e.contains("timestamp")) e["timestamp"] = kt_timestamp_of(m.measured_at);
  }
  return e;
}

Imported from_kt_entry(const std::string& key, const ojson& entry, const std::vector<std::string>& names) {
  if (!entry.is_object()) throw InputError("entry is not an object but " + entry.dump().substr(0, 60));
  Imported out;
  out.key = key;
  out.params = ojson::object();
  for (const auto& n : names) {
    if (!entry.contains(n)) throw InputError("entry lacks parameter \"" + n + "\" of tune_params_keys");
    out.params[n] = entry[n];
  }
  if (entry.contains(kKtMeta))
    throw InputError(std::string("entry has a field named \"") + kKtMeta + "\", which this importer reserves");
  store::Measurement& m = out.m;
  ojson extra = ojson::object();
  ojson ints = ojson::array();
  std::string failure;
  for (const auto& [k, v] : entry.items()) {
    if (out.params.contains(k)) continue;
    if (k == "time" && v.is_number()) {
      m.objective = v.get<double>();
      if (!v.is_number_float()) ints.push_back(k);
    } else if (k == "time" && v.is_string() && is_failure_name(v.get<std::string>())) {
      failure = v.get<std::string>();
    } else if (k == "times" && v.is_array() && !v.empty() && std::all_of(v.begin(), v.end(), float32_exact)) {
      for (const auto& s : v) m.samples_ms.push_back(static_cast<float>(s.get<double>()));
    } else if (auto* col = column(m, k);
               col != nullptr && v.is_number() &&
               ((col != &m.energy_j && col != &m.power_w) || (std::isfinite(v.get<double>()) && v.get<double>() > 0))) {
      *col = v.get<double>();
      if (!v.is_number_float()) ints.push_back(k);
    } else {
      extra[k] = v;  // verbatim; "extra wins" when the entry is written back
      if ((k == "time" || k == "__error__") && v.is_string() && failure.empty()) failure = v.get<std::string>();
      if (k == "times" && v.is_array() && std::all_of(v.begin(), v.end(), [](const ojson& s) {
            return s.is_number() && std::isfinite(s.get<double>());
          })) {
        for (const auto& s : v) m.samples_ms.push_back(static_cast<float>(s.get<double>()));  // for queries
      }
    }
  }
  if (!failure.empty()) {
    m.status = failure_status(failure);
    m.error = failure;
    if (failure == "NaN" || failure == "Infinity" || failure == "-Infinity")
      m.error = "time is " + failure + ", not a finite time: stored, never ranked";
  } else if (!m.objective && m.samples_ms.empty()) {
    m.status = MeasurementStatus::runtime_error;  // nothing measured: no time, no samples
    m.error = "no time in the Kernel Tuner cache entry";
  } else if (m.samples_ms.empty()) {
    m.summary = store::TimingSummary{*m.objective, *m.objective, *m.objective, *m.objective, 0, 0};
  }
  // What record() would compute from the samples, computed once: the round trip below needs it.
  if (!m.summary && !m.samples_ms.empty()) m.summary = store::TimingSummary::of(m.samples_ms);
  if (extra.contains("timestamp") && extra["timestamp"].is_string()) {
    m.measured_at = measured_at_of(extra["timestamp"].get<std::string>());
    store::check_not_future(m.measured_at, "the entry's timestamp");
  }
  ojson meta = ojson::object();
  meta["key"] = key;
  if (!ints.empty()) meta["int"] = ints;
  // Rebuild the entry from what will be stored; keep the order, or the whole entry, if needed.
  const store::Measurement stored = settled(m);
  for (int attempt = 0; attempt < 3; ++attempt) {
    if (attempt == 1) {
      meta["order"] = ojson::array();
      for (const auto& [k, v] : entry.items()) meta["order"].push_back(k);
    } else if (attempt == 2) {
      meta.erase("order");
      meta["raw"] = entry;
    }
    extra[kKtMeta] = meta;
    std::string rebuilt_key;
    if (same_json(to_kt_entry(stored, out.params, extra, rebuilt_key), entry)) break;
  }
  m.extra = extra.dump();
  return out;
}

}  // namespace tune::interop::detail

// A T4 result <-> a store::Measurement. Import keeps the result itself (less its configuration
// and runtimes, which the columns hold) so that a T4 file exports back exactly; a measurement from
// elsewhere is written the way Kernel Tuner's T4 writer converts its results (file_utils.py).
#include <algorithm>
#include <cmath>
#include <string_view>
#include <utility>

#include "common/error.h"
#include "interop/entry.h"

namespace tune::interop::detail {

namespace {

using store::MeasurementStatus;

struct Invalidity {
  const char* name;
  MeasurementStatus status;
};
const Invalidity kInvalidity[] = {
    {"correct", MeasurementStatus::ok},
    {"compile", MeasurementStatus::compile_failed},
    {"runtime", MeasurementStatus::runtime_error},
    {"constraints", MeasurementStatus::restricted},
    {"timeout", MeasurementStatus::timeout},
    {"correctness", MeasurementStatus::verification_failed},
};

const char* invalidity_of(MeasurementStatus s) {
  if (s == MeasurementStatus::launch_failed) return "runtime";
  for (const auto& i : kInvalidity)
    if (i.status == s) return i.name;
  return "runtime";
}

bool float32_exact(const ojson& v) {
  if (!v.is_number_float()) return false;
  double d = v.get<double>();
  return std::isfinite(d) && static_cast<double>(static_cast<float>(d)) == d;
}

std::string names_of(const ojson& obj) {
  std::string s;
  for (const auto& [k, v] : obj.items()) append(s, ", ", k);
  return "{" + s + "}";
}

}  // namespace

double t4_time_unit_ms(const ojson& metadata, const std::string& file) {
  if (!metadata.is_object() || !metadata.contains("timeunit")) return 1.0;
  const ojson& u = metadata["timeunit"];
  static const std::pair<std::string_view, double> kUnits[] = {
      {"seconds", 1e3},      {"second", 1e3},        {"s", 1e3},
      {"milliseconds", 1.0}, {"miliseconds", 1.0},   {"millisecond", 1.0},
      {"ms", 1.0},           {"microseconds", 1e-3}, {"microsecond", 1e-3},
      {"us", 1e-3},          {"nanoseconds", 1e-6},  {"nanosecond", 1e-6},
      {"ns", 1e-6}};
  if (u.is_string())
    for (const auto& [name, ms] : kUnits)
      if (u.get_ref<const std::string&>() == name) return ms;
  throw InputError(file + ": metadata.timeunit " + u.dump(-1, ' ', false, ojson::error_handler_t::replace) +
                   " is not a time unit (seconds, milliseconds, microseconds or nanoseconds)");
}

Imported from_t4_result(std::size_t index, const ojson& r, const std::vector<std::string>& names, double to_ms) {
  Imported out;
  out.key = "results[" + std::to_string(index) + "]";
  const ojson& cfg = r.at("configuration");
  out.params = ojson::object();
  bool same = cfg.size() == names.size();
  for (const auto& n : names) {
    if (!cfg.contains(n)) {
      same = false;
      break;
    }
    out.params[n] = cfg[n];
  }
  if (!same) throw InputError("configuration has parameters " + names_of(cfg) + " unlike results[0]");
  store::Measurement& m = out.m;
  for (const auto& i : kInvalidity)
    if (r.at("invalidity") == i.name) m.status = i.status;
  ojson extra = ojson::object();
  if (r.contains("timestamp")) {
    extra["timestamp"] = r["timestamp"];
    m.measured_at = measured_at_of(r["timestamp"].get<std::string>());
    store::check_not_future(m.measured_at, "the result's timestamp");
  }
  ojson raw = r;
  raw["configuration"] = nullptr;  // keeps its place; filled from the configuration on export
  const ojson& times = r.at("times");
  auto set = [&](const char* key, std::optional<double>& col) {
    if (times.contains(key) && times[key].is_number()) col = times[key].get<double>() * to_ms;
  };
  set("compilation", m.compile_ms);
  set("benchmark", m.benchmark_ms);
  set("validation", m.verification_ms);
  set("search_algorithm", m.strategy_time_ms);
  if (times.contains("framework"))
    extra["framework_time"] =
        times["framework"].is_number() ? ojson(times["framework"].get<double>() * to_ms) : times["framework"];
  if (times.contains("runtimes")) {
    const ojson& rt = times["runtimes"];
    bool finite = std::all_of(rt.begin(), rt.end(),
                              [](const ojson& s) { return s.is_number() && std::isfinite(s.get<double>()); });
    if (finite) {
      for (const auto& s : rt) m.samples_ms.push_back(static_cast<float>(s.get<double>() * to_ms));
      // rebuilt from the samples on export, when they hold the file's values exactly
      if (to_ms == 1.0 && std::all_of(rt.begin(), rt.end(), float32_exact)) raw["times"]["runtimes"] = nullptr;
    }
  }
  if (r.contains("measurements")) {
    for (const auto& ms : r["measurements"]) {
      if (!ms.contains("name") || !ms.contains("value")) continue;
      const std::string name = ms["name"].get<std::string>();
      const ojson& v = ms["value"];
      if (name == "time" && v.is_number()) {
        m.objective = v.get<double>() * to_ms;
      } else if (name == "time" && v.is_string() && m.status != MeasurementStatus::ok) {
        m.error = v.get<std::string>();
      } else if (name == "GB/s" && v.is_number()) {
        m.gbps = v.get<double>();
      } else if (name == "GFLOP/s" && v.is_number()) {
        m.gflops = v.get<double>();
      } else if (name != kKtMeta && name != kT4Meta) {
        extra[name] = v;
      }
    }
  }
  if (m.status != MeasurementStatus::ok && m.error.empty()) m.error = r["invalidity"].get<std::string>();
  if (m.status == MeasurementStatus::ok && m.samples_ms.empty()) {
    if (m.objective) {
      m.summary = store::TimingSummary{*m.objective, *m.objective, *m.objective, *m.objective, 0, 0};
    } else {
      m.status = MeasurementStatus::runtime_error;
      m.error = "no runtimes and no time in the T4 result";
    }
  }
  extra[kT4Meta] = ojson{{"raw", raw}};
  m.extra = extra.dump();
  return out;
}

ojson to_t4_result(const store::Measurement& m, const ojson& params, const std::string& objective) {
  ojson extra = ojson::parse(m.extra, nullptr, false);
  if (extra.is_object() && extra.contains(kT4Meta) && extra[kT4Meta].contains("raw")) {
    ojson r = extra[kT4Meta]["raw"];
    r["configuration"] = params;
    if (r.contains("times") && r["times"].contains("runtimes") && r["times"]["runtimes"].is_null()) {
      ojson a = ojson::array();
      for (float s : m.samples_ms) a.push_back(static_cast<double>(s));
      r["times"]["runtimes"] = a;
    }
    return r;
  }
  std::string key;
  const ojson e = to_kt_entry(m, params, key);
  ojson r = ojson::object();
  if (e.contains("timestamp")) r["timestamp"] = e["timestamp"];
  r["configuration"] = params;
  ojson times = ojson::object();
  const std::pair<const char*, const char*> timing[] = {{"compilation", "compile_time"},
                                                        {"benchmark", "benchmark_time"},
                                                        {"framework", "framework_time"},
                                                        {"search_algorithm", "strategy_time"},
                                                        {"validation", "verification_time"}};
  for (const auto& [t4, kt] : timing)
    if (e.contains(kt) && e[kt].is_number()) times[t4] = e[kt];
  if (e.contains("times")) times["runtimes"] = e["times"];
  r["times"] = times;
  r["invalidity"] = invalidity_of(m.status);
  r["correctness"] = m.status == MeasurementStatus::ok ? 1 : 0;
  ojson ms = ojson::array();
  for (const auto& [k, v] : e.items()) {
    if (params.contains(k) || k == "timestamp" || k == "times") continue;
    bool timing_key = false;
    for (const auto& [t4, kt] : timing) timing_key = timing_key || k == kt;
    if (timing_key) continue;
    ojson value = v.is_number() || v.is_string() || v.is_array() ? v : ojson(v.dump());
    ms.push_back(ojson{{"name", k}, {"value", value}, {"unit", k.rfind("time", 0) == 0 ? "ms" : ""}});
  }
  r["measurements"] = ms;
  r["objectives"] = ojson::array({objective});
  return r;
}

}  // namespace tune::interop::detail

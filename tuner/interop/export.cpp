// tune export: stored measurements as a Kernel Tuner cache (byte layout of Kernel Tuner's own
// writer: util.process_cache/store_cache/close_cache), T4 results (file_utils.get_t4_results) or CSV.

#include <algorithm>
#include <fstream>
#include <map>
#include <set>

#include "common/error.h"
#include "common/output_file.h"
#include "expr/expr.h"
#include "interop/entry.h"
#include "log/log.h"

namespace tune::interop {

namespace {

using store::StoredMeasurement;

// ---- Python's json.dumps, as Kernel Tuner calls it ----

std::string py_scalar(const ojson& v) {
  if (v.is_number_float()) {
    double d = v.get<double>();
    if (std::isnan(d)) return "NaN";
    if (std::isinf(d)) return d > 0 ? "Infinity" : "-Infinity";
    return expr::Value::real(d).repr();
  }
  return v.dump(-1, ' ', true);  // ensure_ascii, as Python's default
}

// json.dumps(v): separators ", " and ": ".
void py_compact(const ojson& v, std::string& out) {
  if (v.is_array()) {
    out += '[';
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      py_compact(v[i], out);
    }
    out += ']';
  } else if (v.is_object()) {
    out += '{';
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      if (!first) out += ", ";
      first = false;
      out += py_scalar(k);
      out += ": ";
      py_compact(x, out);
    }
    out += '}';
  } else {
    out += py_scalar(v);
  }
}

// json.dumps(v, indent=""): one item per line, no indentation.
void py_indent0(const ojson& v, std::string& out) {
  if ((v.is_array() || v.is_object()) && v.empty()) {
    out += v.is_array() ? "[]" : "{}";
  } else if (v.is_array()) {
    out += "[\n";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ",\n";
      py_indent0(v[i], out);
    }
    out += "\n]";
  } else if (v.is_object()) {
    out += "{\n";
    bool first = true;
    for (const auto& [k, x] : v.items()) {
      if (!first) out += ",\n";
      first = false;
      out += py_scalar(k) + ": ";
      py_indent0(x, out);
    }
    out += "\n}";
  } else {
    out += py_scalar(v);
  }
}

// ---- selecting what to export ----

struct Selection {
  std::string kernel, device, size;
  std::vector<StoredMeasurement> rows;  // one (device, size) for kt-cache and T4
  std::vector<std::string> names;       // parameter names, in order
  std::vector<ojson> params;            // per row
};

ojson parse_params(const std::string& text) { return ojson::parse(text); }

Selection select(store::Store& db, const ExportOptions& o) {
  Selection s;
  if (o.kernel) {
    s.kernel = *o.kernel;
  } else {
    auto kernels = db.kernels();
    if (kernels.size() != 1) {
      std::string list;
      for (const auto& k : kernels) detail::append(list, ", ", k);
      throw InputError("tune export: give --kernel (the database holds " +
                       (kernels.empty() ? std::string("no kernels") : list) + ")");
    }
    s.kernel = kernels[0];
  }
  auto rows =
      db.measurements({.kernel = s.kernel, .device = o.device, .size = o.size, .ok_only = false, .with_samples = true});
  if (rows.empty()) {
    throw InputError("tune export: no measurements of kernel " + s.kernel + (o.device ? " on " + *o.device : "") +
                     (o.size ? " at size " + *o.size : "") + " in " + db.path());
  }
  std::set<std::pair<std::string, std::string>> groups;
  for (const auto& r : rows) groups.emplace(r.device, r.size.label());
  if (o.format != ExportFormat::csv && groups.size() > 1) {
    std::string list;
    for (const auto& [d, z] : groups) detail::append(list, "; ", d + " at " + z);
    throw InputError("tune export: a " + std::string(o.format == ExportFormat::t4 ? "T4 file" : "Kernel Tuner cache") +
                     " holds one device and problem size, and " + std::to_string(groups.size()) + " match (" + list +
                     "): choose with --device and --size");
  }
  if (groups.size() == 1) {
    s.device = rows[0].device;
    s.size = rows[0].size.label();
  }
  if (o.format != ExportFormat::csv) {
    std::sort(rows.begin(), rows.end(), [](const auto& a, const auto& b) { return a.id < b.id; });
    // The same parameters stored under two spaces: the later measurement stands.
    std::map<std::string, std::size_t> at;
    std::vector<StoredMeasurement> kept;
    for (auto& r : rows) {
      auto [it, fresh] = at.emplace(r.params, kept.size());
      if (fresh) {
        kept.push_back(std::move(r));
      } else {
        log::warn("export: configuration {} is stored twice for {} at {}; writing the later one", r.params, s.device,
                  s.size);
        if (r.run_id >= kept[it->second].run_id) kept[it->second] = std::move(r);
      }
    }
    rows = std::move(kept);
  }
  for (const auto& r : rows) {
    ojson p = parse_params(r.params);
    std::vector<std::string> names;
    for (const auto& [k, v] : p.items()) names.push_back(k);
    if (o.format == ExportFormat::csv) {
      for (const auto& n : names)
        if (std::find(s.names.begin(), s.names.end(), n) == s.names.end()) s.names.push_back(n);
    } else if (s.params.empty()) {
      s.names = names;
    } else if (names != s.names) {
      throw InputError("tune export: the measurements of " + s.kernel + " on " + s.device + " at " + s.size +
                       " have different parameter names (" + r.params + " vs " + s.params[0].dump() +
                       "): one file cannot hold both");
    }
    s.params.push_back(std::move(p));
  }
  s.rows = std::move(rows);
  return s;
}

// The header of the latest import (by run) among the rows, of the given format, if its
// parameter names are the rows' names.
ojson stored_header(store::Store& db, const Selection& s, const std::string& format) {
  std::set<std::int64_t, std::greater<>> runs;
  for (const auto& r : s.rows) runs.insert(r.run_id);
  for (auto id : runs) {
    auto run = db.run(id);
    if (!run || run->kind != store::RunKind::import) continue;
    ojson notes = ojson::parse(run->notes, nullptr, false);
    if (!notes.is_object() || notes.value("format", "") != format || !notes.contains("header")) continue;
    const ojson& h = notes["header"];
    if (format == "T4") return h;
    if (h.contains("tune_params_keys") && h["tune_params_keys"] == ojson(s.names)) return h;
  }
  return nullptr;
}

ojson problem_size_json(const std::string& text) {
  const auto ps = sizes::Size::parse_label(text);
  if (ps.rank == 1) return ps.x();
  ojson a = ojson::array({ps.x(), ps.y()});
  if (ps.rank == 3) a.push_back(ps.z());
  return a;
}

ojson synthesized_header(const Selection& s) {
  ojson h = ojson::object();
  h["device_name"] = s.device;
  h["kernel_name"] = s.kernel;
  h["problem_size"] = problem_size_json(s.size);
  h["tune_params_keys"] = s.names;
  ojson tp = ojson::object();
  for (const auto& n : s.names) {
    std::vector<ojson> values;
    for (const auto& p : s.params)
      if (std::find(values.begin(), values.end(), p[n]) == values.end()) values.push_back(p[n]);
    std::stable_sort(values.begin(), values.end(), [](const ojson& a, const ojson& b) {
      if (a.is_number() && b.is_number()) return a.get<double>() < b.get<double>();
      return a.type() < b.type();
    });
    tp[n] = values;
  }
  h["tune_params"] = tp;
  h["objective"] = "time";
  return h;
}

std::string kt_cache_text(store::Store& db, const Selection& s) {
  ojson header = stored_header(db, s, "kernel_tuner cache");
  if (header.is_null()) header = synthesized_header(s);
  std::string out = "{";
  bool first = true;
  for (const auto& [k, v] : header.items()) {
    if (k == "cache") continue;
    out += first ? "\n" : ",\n";
    first = false;
    out += py_scalar(k) + ": ";
    py_indent0(v, out);
  }
  out += first ? "\n\"cache\": {" : ",\n\"cache\": {";
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    std::string key;
    ojson e = detail::to_kt_entry(s.rows[i], s.params[i], key);
    out += i ? ",\n" : "\n";
    out += py_scalar(key) + ": ";
    py_compact(e, out);
  }
  out += "}\n}";
  return out;
}

std::string t4_text(store::Store& db, const Selection& s) {
  ojson header = stored_header(db, s, "T4");
  std::string objective = "time";
  if (header.is_null()) {
    ojson kt = stored_header(db, s, "kernel_tuner cache");
    if (kt.is_null()) kt = synthesized_header(s);
    ojson meta = ojson::object();
    meta["timeunit"] = "milliseconds";
    for (const char* k : {"kernel_name", "device_name", "problem_size", "tune_params_keys", "tune_params", "objective"})
      if (kt.contains(k)) meta[k] = kt[k];
    if (kt.contains("objective") && kt["objective"].is_string()) objective = kt["objective"];
    header = ojson{{"schema_version", "1.0.0"}, {"metadata", meta}};
  }
  ojson doc = header;
  ojson results = ojson::array();
  for (std::size_t i = 0; i < s.rows.size(); ++i)
    results.push_back(detail::to_t4_result(s.rows[i], s.params[i], objective));
  doc["results"] = std::move(results);
  return doc.dump(1) + "\n";
}

std::string csv_field(const std::string& f) {
  if (f.find_first_of(",\"\n\r") == std::string::npos) return f;
  std::string q = "\"";
  for (char c : f) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string csv_number(const std::optional<double>& v) { return v ? ojson(*v).dump() : ""; }

std::string csv_text(const Selection& s) {
  std::vector<std::string> head = {"kernel", "device", "size"};
  for (const auto& n : s.names) head.push_back(n);
  for (const char* c : {"status",          "error",        "objective",        "median_ms",   "mean_ms", "min_ms",
                        "max_ms",          "stddev_ms",    "sample_count",     "gbps",        "gflops",  "compile_ms",
                        "verification_ms", "benchmark_ms", "strategy_time_ms", "measured_at", "run_id",  "extra",
                        "energy_j",        "energy_hw_j",  "power_w",          "power_hw_w"}) {
    head.emplace_back(c);
  }
  std::string out;
  auto line = [&out](const std::vector<std::string>& fields) {
    for (std::size_t i = 0; i < fields.size(); ++i) {
      if (i > 0) out += ',';
      out += csv_field(fields[i]);
    }
    out += '\n';
  };
  line(head);
  for (std::size_t i = 0; i < s.rows.size(); ++i) {
    const auto& r = s.rows[i];
    std::vector<std::string> f = {r.kernel, r.device, r.size.label()};
    for (const auto& n : s.names) {
      const ojson v = s.params[i].contains(n) ? s.params[i][n] : ojson();
      f.push_back(v.is_string() ? v.get<std::string>() : v.is_null() ? std::string() : v.dump());
    }
    auto sum = [&](double store::TimingSummary::*m) { return r.summary ? csv_number((*r.summary).*m) : std::string(); };
    for (std::string x : {std::string(store::to_string(r.status)),
                          r.error,
                          csv_number(r.objective),
                          sum(&store::TimingSummary::median),
                          sum(&store::TimingSummary::mean),
                          sum(&store::TimingSummary::min),
                          sum(&store::TimingSummary::max),
                          sum(&store::TimingSummary::stddev),
                          std::to_string(r.summary ? r.summary->count : 0),
                          csv_number(r.gbps),
                          csv_number(r.gflops),
                          csv_number(r.compile_ms),
                          csv_number(r.verification_ms),
                          csv_number(r.benchmark_ms),
                          csv_number(r.strategy_time_ms),
                          r.measured_at,
                          std::to_string(r.run_id),
                          r.extra,
                          csv_number(r.energy_j),
                          csv_number(r.energy_hw_j),
                          csv_number(r.power_w),
                          csv_number(r.power_hw_w)}) {
      f.push_back(std::move(x));
    }
    line(f);
  }
  return out;
}

}  // namespace

ExportFormat parse_export_format(const std::string& name) {
  if (name == "kt-cache") return ExportFormat::kt_cache;
  if (name == "t4") return ExportFormat::t4;
  if (name == "csv") return ExportFormat::csv;
  throw InputError("tune export: unknown --format '" + name + "': expected kt-cache, t4 or csv");
}

std::string export_text(store::Store& db, const ExportOptions& o, ExportResult* result) {
  Selection s = select(db, o);
  if (result != nullptr) *result = ExportResult{s.kernel, s.device, s.size, s.rows.size()};
  switch (o.format) {
    case ExportFormat::kt_cache:
      return kt_cache_text(db, s);
    case ExportFormat::t4:
      return t4_text(db, s);
    case ExportFormat::csv:
      return csv_text(s);
  }
  return "";
}

ExportResult export_file(store::Store& db, const ExportOptions& o, const std::filesystem::path& out) {
  ExportResult r;
  const std::string text = export_text(db, o, &r);
  write_file_atomically(out, text, {db.path()});  // never over the database being read
  return r;
}

}  // namespace tune::interop

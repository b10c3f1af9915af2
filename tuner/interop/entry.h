// Internal to interop: one Kernel Tuner cache entry or T4 result <-> one store::Measurement.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "interop/interop.h"

namespace tune::interop::detail {

// Keys of `extra` that are ours, not a Kernel Tuner field: never written back as fields.
inline constexpr const char* kKtMeta = "kernel_tuner";
inline constexpr const char* kT4Meta = "t4";

// A Kernel Tuner failure text ("CompilationFailedConfig", an "__error__" message, ...) -> status.
store::MeasurementStatus failure_status(std::string_view text);
bool is_failure_name(std::string_view text);                // one of the three ErrorConfig names
const char* failure_name(store::MeasurementStatus status);  // the ErrorConfig name for a status

// Appends `item` to `list`, after `sep` unless `list` is empty.
inline void append(std::string& list, std::string_view sep, std::string_view item) {
  if (!list.empty()) list.append(sep);
  list.append(item);
}

// A JSON parameter value as an expression value (objects become None).
expr::Value to_value(const ojson& v);

// Python str() of a parameter value (True, 2.45, alg_1) and the cache key they form.
std::string python_str(const ojson& v);
std::string python_repr(const ojson& v);
std::string cache_key(const ojson& params);

// "2023-12-22 09:54:05.502007+00:00" <-> "2023-12-22T09:54:05.502Z" ("" when not UTC/parseable).
std::string measured_at_of(const std::string& kt_timestamp);
std::string kt_timestamp_of(const std::string& measured_at);

// A measurement built from a file, before it is stored.
struct Imported {
  std::string key;  // the cache key, or "results[i]" for T4
  store::Measurement m;
  ojson params;  // in tune_params_keys order
};

// Maps a cache entry. Throws InputError (without the file name: the caller adds it) when the
// entry is not an object or its parameters do not match `names`.
Imported from_kt_entry(const std::string& key, const ojson& entry, const std::vector<std::string>& names);
// Maps a T4 result; `names` are the configuration keys every result must have.
// `to_ms`: the file's time unit in milliseconds (t4_time_unit_ms); every time is stored in ms.
Imported from_t4_result(std::size_t index, const ojson& result, const std::vector<std::string>& names,
                        double to_ms = 1.0);

// The milliseconds in one unit of a T4 file's metadata.timeunit ("seconds", "milliseconds" (also
// benchmark_hub's "miliseconds"), "microseconds", "nanoseconds", or s, ms, us, ns); 1 when absent.
// Throws InputError naming the file for any other unit.
double t4_time_unit_ms(const ojson& metadata, const std::string& file);

// What record() and a read back will make of m: summary from the samples, objective = median.
store::Measurement settled(store::Measurement m);

// The entry Kernel Tuner would hold for this measurement, and its cache key.
ojson to_kt_entry(const store::Measurement& m, const ojson& params, std::string& key);
// The same, with m.extra already parsed (`extra` must be m.extra as JSON).
ojson to_kt_entry(const store::Measurement& m, const ojson& params, const ojson& extra, std::string& key);
// The T4 result for this measurement (objective names the objective of the file).
ojson to_t4_result(const store::Measurement& m, const ojson& params, const std::string& objective);

// JSON equality that also tells integers from floats and keeps object key order.
bool same_json(const ojson& a, const ojson& b);

}  // namespace tune::interop::detail

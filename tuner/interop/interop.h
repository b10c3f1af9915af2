// Kernel Tuner interoperability: import Kernel Tuner cache files and T4 result files into the
// results database, export stored results as a Kernel Tuner cache, T4 results or CSV, and check
// a cache against a T1 spec.
//
// ---- Format notes ----------------------------------------------------------------------------
// Kernel Tuner cache (kernel_tuner/util.py: process_cache, store_cache, read_cache, close_cache):
//   {"device_name": "...", "kernel_name": "...", "problem_size": 100 | [x, y, ...] (optional,
//    "callable" when it was a function), "tune_params_keys": [...], "tune_params": {name: [...]},
//    "objective": "time" (newer), ..., "cache": {"<key>": {<entry>}, ...}}
//   The header is written with json.dumps(indent="") minus its last "}\n}"; every entry is
//   appended as "\n" + json.dumps({key: entry})[1:-1] + ","; close_cache drops the last comma and
//   writes "}\n}". A run that was interrupted leaves the file open: read_file() repairs it by
//   cutting after the last complete entry (or after "cache": {) and closing the braces.
//   Key: ",".join(str(v)) of the parameter values in tune_params_keys order (Python str(): True,
//   2.45, alg_1). Entry: the parameters, then "time" (the objective, a float, or a failure string
//   "CompilationFailedConfig" / "RuntimeFailedConfig" / "InvalidConfig"), "times" (float32
//   samples, absent on failures: when a failed entry keeps "times" the string wins), compile_time,
//   verification_time, benchmark_time, metrics ("GFLOP/s", "GB/s", user metrics), observer values
//   (power, energy, temperature, ...), strategy_time, framework_time, timestamp. Newer writers may
//   mark a failure with an "__error__" field; its text decides the status the same way.
//   Files may be gzip-compressed (detected by the magic bytes 1f 8b, not by the name).
// T4 results (schema kernel_tuner/schema/T4/1.0.0/results-schema.json, writer
//   kernel_tuner/file_utils.py): {"schema_version": "1.0.0", "results": [{"timestamp",
//   "configuration": {params}, "times": {"compilation", "benchmark", "framework",
//   "search_algorithm", "validation", "runtimes": [...]}, "invalidity": "correct" | "compile" |
//   "runtime" | "constraints" | "timeout" | "correctness", "correctness": 1|0, "measurements":
//   [{"name", "value", "unit"}], "objectives": ["time"]}]}, optionally with a "metadata" object
//   (benchmark_hub writes {"timeunit": "miliseconds"}, sic). T4 files name no kernel or device:
//   --kernel is required and the device is "unknown" unless --device is given, except for files
//   this program wrote, whose metadata carries kernel_name, device_name and problem_size.
//
// ---- How an import is stored ---------------------------------------------------------------
// One run (kind import) per file that adds or changes anything, in one transaction; its notes
// hold {"format", "file", "header": every top-level key but the entries, "repaired"}.
// Configurations: (kernel, space hash, params in tune_params_keys order). The space hash is
// cache_space_hash(): the same Hasher fields as spec::space_hash (name, then repr() of each value)
// without conditions, because a cache does not record its restrictions: it equals the T1 spec's
// hash when the spec has no conditions, and with --spec the spec's own hash is used (after
// check_parameters() confirms the names and values agree).
// Measurement columns: times -> samples_ms, time -> objective (or, a failure string -> status and
// error), compile_time/verification_time/benchmark_time -> *_ms, strategy_time ->
// strategy_time_ms, "GB/s" -> gbps, "GFLOP/s" -> gflops, timestamp -> measured_at (UTC).
// Everything else is kept verbatim in `extra`, in file order, plus "kernel_tuner": {"key": the
// cache key, "int": [mapped fields written as JSON integers], "order": [field order, only when it
// differs from the default], "raw": {the whole entry, only when the columns cannot reproduce it}}.
// import checks every entry by rebuilding it from what will be stored, so export is exact.
// Problem size: an int N -> "N", a list -> "XxY[xZ]", absent or anything else -> "1" (the header
// in the run notes keeps the original for export).
// Status: Compilation* -> compile_failed, Runtime* -> runtime_error, Invalid* -> restricted;
// T4 invalidity compile/runtime/constraints/timeout/correctness likewise.
// Re-importing identical data adds nothing: an entry whose stored measurement is identical is
// skipped, and a file with nothing new creates no run. Two entries with the same parameters, a
// parameter value outside tune_params, or a missing parameter refuse the whole file.
//
// ---- How an export is written ----------------------------------------------------------------
// kt-cache: the byte layout of Kernel Tuner's writer (the benchmark_hub caches come back byte for
// byte). Header: that of the latest import among the exported measurements (so device_name is
// the file's own, "" for the MI250X caches, even when --device renamed the device here), else
// one made from the data (tune_params: the values seen, sorted; objective "time"). Entries are in
// measurement order (file order for imports). A measurement this program tuned writes time = its
// objective (the median), times, compile/verification/benchmark/strategy_time (0 when unknown:
// Kernel Tuner's simulation mode reads the first three), GB/s, GFLOP/s, its extra fields,
// framework_time 0 and timestamp from measured_at; a failure writes "time": the ErrorConfig
// name for its status, which Kernel Tuner 1.x (<= 1.3 and >= 1.4) reads back as that failure.
// t4: metadata {"timeunit": "milliseconds", kernel_name, device_name, problem_size,
// tune_params_keys, tune_params, objective}, results as file_utils.get_t4_results makes them
// (a T4 import is written back exactly). csv: one row per measurement, parameters as columns.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "space/space.h"
#include "spec/spec.h"
#include "store/store.h"

namespace tune::interop {

using ojson = nlohmann::ordered_json;

// ---- reading files ----

// The file's bytes, gunzipped when they start with the gzip magic. Throws InputError naming the
// file (missing, unreadable, corrupt or truncated gzip data).
// Refuses files over 1 GiB and gzip data inflating to more than `max_text` bytes (default 1 GiB).
std::string read_bytes(const std::filesystem::path& path, std::size_t max_text = std::size_t{1} << 30);

struct CacheEntry {
  std::string key;
  ojson value;  // the entry object, fields in file order
};

struct CacheFile {
  std::filesystem::path path;
  ojson header = ojson::object();   // every top-level key except "cache", in file order
  std::vector<CacheEntry> entries;  // in file order (a repeated key keeps its first place, last value)
  bool repaired = false;            // the file was left open by an interrupted run
  std::size_t dropped_bytes = 0;    // bytes of a partial trailing entry dropped by the repair

  std::vector<std::string> param_names() const;  // tune_params_keys
};

struct T4File {
  std::filesystem::path path;
  ojson header = ojson::object();  // every top-level key except "results"
  ojson results = ojson::array();
};

// Reads a Kernel Tuner cache (any version, plain or gzip, closed or left open) or a T4 results
// file. Throws InputError naming the file and the cause (not JSON and where, truncated beyond
// repair, neither a cache nor T4 results, a T4 file that violates its schema).
std::variant<CacheFile, T4File> read_file(const std::filesystem::path& path);
CacheFile read_cache(const std::filesystem::path& path);  // throws unless it is a cache

// ---- importing ----

// A cache header's (or our T4 metadata's) problem_size: an int N -> "N", a list -> "XxY[xZ]",
// absent or anything else -> "1".
sizes::Size problem_size_of(const ojson& header);

// Space hash of a cache's parameters (see the notes above).
std::string cache_space_hash(const ojson& tune_params_keys, const ojson& tune_params);

struct ImportOptions {
  std::optional<std::string> kernel{};  // overrides the file's kernel_name
  std::optional<std::string> device{};  // overrides/replaces the file's device_name
  const spec::Spec* spec = nullptr;     // key configurations by this spec's space hash
  std::string command_line{};
};

struct ImportResult {
  std::filesystem::path file;
  std::string format;  // "kernel_tuner cache" or "T4"
  std::string kernel, device, size, space_hash;
  bool device_defaulted = false;  // the file named no device and none was given: "unknown"
  bool repaired = false;
  std::optional<std::int64_t> run_id;  // none when nothing was added or changed
  std::size_t entries = 0, added = 0, replaced = 0, unchanged = 0;
  std::map<store::MeasurementStatus, std::size_t> statuses;
};

// Imports one file in one transaction: on any error (named with the file and the entry key)
// nothing of it is stored. Throws InputError.
ImportResult import_file(store::Store& db, const std::filesystem::path& path, const ImportOptions& options);

// ---- exporting ----

enum class ExportFormat { kt_cache, t4, csv };
ExportFormat parse_export_format(const std::string& name);  // kt-cache, t4, csv

struct ExportOptions {
  ExportFormat format = ExportFormat::kt_cache;
  std::optional<std::string> kernel{}, device{}, size{};
};

struct ExportResult {
  std::string kernel, device, size;  // device/size empty for a CSV spanning several
  std::size_t rows = 0;
};

// The exported file's text. kt-cache and t4 hold one (kernel, device, size): when the filters
// leave several, throws InputError listing them. Throws InputError when nothing matches.
std::string export_text(store::Store& db, const ExportOptions& options, ExportResult* result = nullptr);
ExportResult export_file(store::Store& db, const ExportOptions& options, const std::filesystem::path& out);

// ---- checking a cache against a T1 spec ----

struct SpecCheck {
  std::vector<std::string> problems;  // parameter names or values that differ
  // Of those, the value lists the cache writes narrower than the spec (values no cached
  // configuration uses, as a sweep exported by tune lists them). check_against_spec drops them
  // from problems when the cache holds every valid configuration of the space.
  std::vector<std::string> narrower;
  std::size_t cache_entries = 0, space_size = 0;
  std::size_t matched = 0;  // cache keys that are valid configurations of the space
  std::size_t missing = 0;  // valid configurations the cache lacks
  std::size_t extra = 0;    // cache keys outside the space (unknown values or restricted)
  std::vector<std::string> missing_examples, extra_examples;  // a few keys of each
  bool parameters_match() const { return problems.empty(); }
  bool keys_equal() const { return problems.empty() && missing == 0 && extra == 0; }
  std::string report() const;  // one paragraph: counts and examples
};

// Same parameter names (in order) and value sets? Fills problems only.
SpecCheck check_parameters(const ojson& tune_params_keys, const ojson& tune_params, const spec::Spec& spec);
// The above, and the cache's key set against the space's valid set.
SpecCheck check_against_spec(const CacheFile& cache, const spec::Spec& spec, const space::Space& space);

}  // namespace tune::interop

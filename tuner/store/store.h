// The results database: a crash-safe, versioned SQLite file holding tuning runs, the
// configurations they tried, one measurement per (configuration, device, problem size),
// reference ceilings, flags, and a cache of compiled binaries. Schema: store/schema.h.
//
// Durability: every record() is its own committed transaction (unless inside a batch), so a run
// killed at any moment keeps everything it finished and a re-run skips it (see measured()).
// Concurrency: the file is in WAL mode, so read-only Stores in other processes can query while
// one writer records; writers wait up to busy_timeout for each other.
// A Store is one connection: use it from one thread at a time.
#pragma once
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "decision/decision.h"
#include "sizes/sizes.h"
#include "store/sqlite.h"

namespace tune::store {

// Every connection to a database waits this long for another's write transaction (or migration).
inline constexpr int kBusyTimeoutMs = 10000;

enum class RunStatus { running, completed, interrupted, failed };
enum class RunKind { gpu, replay, import };
enum class MeasurementStatus {
  ok,
  compile_failed,
  launch_failed,
  verification_failed,
  restricted,
  timeout,
  runtime_error
};
enum class FlagKind { best_changes, dip };

std::string_view to_string(RunStatus s);
std::string_view to_string(RunKind k);
std::string_view to_string(MeasurementStatus s);
std::string_view to_string(FlagKind k);
// Parse the names above; throw tune::InputError naming the value on anything else.
RunStatus parse_run_status(std::string_view s);
RunKind parse_run_kind(std::string_view s);
MeasurementStatus parse_measurement_status(std::string_view s);
FlagKind parse_flag_kind(std::string_view s);

// Current time as ISO-8601 UTC with milliseconds, e.g. "2025-01-31T12:34:56.789Z".
std::string utc_now();
// Throws InputError("<what> is dated <stamp>, later than now ...") when a timestamp read from a
// file (merged, imported) lies in the future beyond clock skew: such a row would win every later
// merge ("the later measurement wins") and could never be replaced.
void check_not_future(std::string_view stamp, const std::string& what);

// Canonical text of a parameter object: compact JSON, keys in the given (declaration) order.
// The string overload parses and re-dumps (throws InputError unless it is a JSON object).
std::string canonical_params(const nlohmann::ordered_json& params);
std::string canonical_params(std::string_view params_json);

// configurations.key (schema v2): the 64-bit FNV-1a hash of kernel, a 0 byte, space_hash, a 0
// byte and the canonical params, as a signed integer.
std::int64_t configuration_key(std::string_view kernel, std::string_view space_hash, std::string_view params);

struct RunInfo {
  std::int64_t id = 0;  // set by begin_run / read back by run()
  std::string spec_path, spec_hash, kernel, device;
  std::string compute_capability, driver_version, runtime_version, nvrtc_version;
  std::string host, command_line;
  std::string started_at;  // begin_run fills utc_now() when empty
  std::optional<std::string> ended_at;
  std::string strategy;
  std::string strategy_options = "{}";  // JSON text
  std::string budget = "{}";            // JSON text
  RunStatus status = RunStatus::running;
  RunKind kind = RunKind::gpu;
  std::string notes;
  std::string timing;                  // how the run timed (run::describe()), or where replayed data came from
  std::optional<std::int64_t> pid;     // the process that ran it (begin_run fills this process's);
                                       // a writer marks a running run of a gone process interrupted
  std::string energy;                  // how the run measured energy (run::describe_energy()), "" when not
  std::optional<double> idle_power_w;  // the board's idle power in the same run (the energy baseline)
};

// Removes a database file and the -wal, -shm and -journal files beside it, whichever exist.
void remove_database_files(const std::string& path);

// This machine's host name (runs.host).
std::string this_host();

// Summary of timing samples in ms.
struct TimingSummary {
  double median = 0, mean = 0, min = 0, max = 0, stddev = 0;
  std::int64_t count = 0;
  // median (mean of the middle two for even counts), sample stddev (n-1). Throws on empty.
  static TimingSummary of(const std::vector<float>& samples_ms);
};

struct Measurement {
  std::int64_t config_id = 0;
  std::int64_t run_id = 0;
  std::string device;
  sizes::Size size;
  MeasurementStatus status = MeasurementStatus::ok;
  std::string error;
  std::vector<float> samples_ms;  // must be finite
  // record() computes it from samples_ms when absent and samples exist (imports with only a
  // mean may set it directly). Required (given or computable) when status is ok.
  std::optional<TimingSummary> summary;
  // objective: what every ranking uses (schema_doc: the objective); record() stores the mean of
  // the samples (Kernel Tuner's `time`) when it is absent and status is ok; a GPU run whose spec
  // asks for the median sets it. gbps/gflops: derived from the objective by the caller.
  std::optional<double> objective, gbps, gflops;
  std::optional<double> compile_ms, verification_ms, benchmark_ms;
  // Energy per launch (J) and the board's average power while it ran back to back (W), each with
  // the half-width of its 95% interval (run/energy.h); absent where not measured or not resolved.
  std::optional<double> energy_j, energy_hw_j, power_w, power_hw_w;
  std::string extra = "{}";  // JSON object text
  std::optional<std::int64_t> eval_order;
  std::optional<double> simulated_time_ms, strategy_time_ms;
  bool replayed = false;
  std::string measured_at;  // record() fills utc_now() when empty
};

// Times are validated: a measurement with status ok whose objective or a sample is not a finite
// time in (0, kMaxTimeMs] becomes a runtime_error with the reason (stored, never ranked). Returns
// whether it changed `m`. Every writer goes through it (prepare()); readers that rank before
// storing (the replay) call it themselves.
inline constexpr double kMaxTimeMs = 3600.0 * 1000.0;  // one hour per launch
bool reject_invalid_times(Measurement& m);

// The summary computed from the samples when absent, and the objective (the mean) when absent
// and the status is ok: what record() stores and a read back returns.
void settle(Measurement& m);

// What record() makes of a measurement's values before it writes them: summary and objective
// settled (from the samples when absent), samples rendered as JSON, extra validated. A separate
// step so that a writer thread (the replay's) can have it done on the thread that produces the
// measurements; the identity (config_id, run_id, device, size, measured_at) may still be filled
// in afterwards, nothing else may change.
struct PreparedMeasurement {
  Measurement m;
  std::string samples_json;
};
// Throws as record() does: InputError when extra is not a JSON object, Error when status ok
// comes without timings or a sample is not finite.
PreparedMeasurement prepare(Measurement m);

// A measurement read back, with its configuration.
struct StoredMeasurement : Measurement {
  std::int64_t id = 0;
  std::string kernel, space_hash, params;  // params: canonical JSON text
};

struct MeasurementFilter {
  std::string kernel;                   // required
  std::optional<std::string> device{};  // exact device name
  std::optional<std::string> size{};    // size text, e.g. "4096x4096"
  std::optional<std::string> space_hash{};
  std::optional<std::int64_t> run_id{};
  bool ok_only = true;        // only status ok
  bool with_samples = false;  // also load samples_ms (costly for big tables)
};

// Key of a stored measurement within one (kernel, space, device): what a re-run may skip.
struct MeasuredKey {
  std::string params;                                    // canonical JSON
  std::string size;                                      // size text
  auto operator<=>(const MeasuredKey&) const = default;  // NOLINT(modernize-use-nullptr): clang-tidy 14 on <=>
};

struct Ceiling {
  std::int64_t run_id = 0;
  std::string device;
  std::string size;
  std::string name;    // e.g. "d2d_copy", "cublas_sgeam"
  double time_ms = 0;  // by the objective's statistic (measured as the kernels are)
  std::optional<double> gbps, gflops;
  std::vector<float> samples_ms;
  std::string measured_at;  // filled when empty
};

struct Flag {
  std::optional<std::int64_t> run_id;  // none: a kernel-wide flag
  std::string kernel, device, size;
  FlagKind kind = FlagKind::dip;
  std::string text;
  std::string created_at;  // filled when empty
};

// The verdict at one (kernel, device, size) of a GPU run (decision/decision.h has the rule).
struct Decision {
  struct Candidate {
    std::int64_t config_id = 0;
    double value = 0;       // the statistic, ms
    double half_width = 0;  // of its 95% interval, ms
    std::int64_t samples = 0;
    bool tied = false;  // tied with the winner (the winner itself too)
  };
  std::int64_t run_id = 0;
  std::string kernel, device, size;
  decision::Statistic statistic = decision::Statistic::mean;
  double tie_margin = decision::kDefaultTieMargin;
  std::int64_t winner_id = 0;
  std::vector<Candidate> candidates;  // by value
  std::int64_t rounds = 0;            // interleaved rounds of the re-measurement
  double noise = 0;                   // the winner's relative half-width
  std::string decided_at;             // filled when empty
};

struct CachedBinary {
  std::string key;  // hash of source, options, architecture, compiler version
  std::string arch, compiler_version, options;
  std::vector<char> cubin;
  std::string log;
  std::optional<double> compile_ms;
  std::string created_at;  // filled when empty
};

class Store {
 public:
  enum class Mode {
    read_write,  // creates the file and its directory if missing, migrates an older schema
    read_only    // for queries: never writes, never migrates
  };

  // Throws tune::InputError naming the path and cause (missing, not a database, corrupt,
  // unwritable, newer or older schema, another program's database); the file is then unchanged.
  static Store open(const std::string& path, Mode mode);

  // A writer's check before its work starts: throws what open(path, read_write) would throw for
  // the file as it is (corrupt, foreign, newer, a directory...), accepts a missing, empty or older
  // file (a writer creates or upgrades it). Writes nothing.
  static void probe(const std::string& path);

  Store(Store&&) noexcept = default;
  Store& operator=(Store&&) noexcept = default;

  const std::string& path() const { return db_.path(); }
  int version() const;            // PRAGMA user_version
  std::string integrity_check();  // "ok" or SQLite's list of problems

  // ---- writing (each call is its own transaction unless a Batch is open) ----
  std::int64_t begin_run(RunInfo info);
  void finish_run(std::int64_t run_id, RunStatus status);  // sets status and ended_at
  // Removes a run that failed before anything of it was stored (no row refers to it): a failed
  // command leaves no trace. False, leaving it, when rows refer to it.
  bool discard_run(std::int64_t run_id);
  // Finds or inserts the configuration; params are canonicalised. Returns its id.
  std::int64_t upsert_configuration(std::string_view kernel, std::string_view space_hash,
                                    const nlohmann::ordered_json& params);
  std::int64_t upsert_configuration_text(std::string_view kernel, std::string_view space_hash,
                                         std::string_view params_json);
  // The same for params text that is canonical already (canonical_params() would return it
  // unchanged, as Space::params_json writes it): no JSON document is built, one statement when
  // the configuration is new inside a Batch. Text that is not a JSON object is refused
  // (InputError), as is the (astronomically unlikely) configuration whose key collides with a
  // different stored one (Error).
  std::int64_t upsert_configuration_canonical(std::string_view kernel, std::string_view space_hash,
                                              std::string_view canonical);
  // Stores (or replaces: one per configuration, device, size) a measurement; committed and
  // durable against a process kill when it returns (inside a Batch: when the batch commits; a
  // record() that throws leaves the batch as it was). Returns the measurement id.
  std::int64_t record(const Measurement& m);
  std::int64_t record(const PreparedMeasurement& m);  // the same, prepared (see prepare())
  void record_ceiling(const Ceiling& c);              // replaces the same (run, device, size, name)
  void record_flag(const Flag& f);                    // replaces the same (kernel, device, size, kind, run)
  // The flags of a kernel on a device are a property of its data: replaces all of them at once
  // (each stored with run_id NULL).
  void replace_flags(std::string_view kernel, std::string_view device, const std::vector<Flag>& flags);
  // Replaces the decision at the same (kernel, device, size).
  void record_decision(const Decision& d);
  void put_binary(const CachedBinary& b);  // replaces the same key

  // All-or-nothing bulk writes: records between batch() and commit() land together, or not
  // at all if the Batch is destroyed uncommitted (e.g. by an exception). Batches nest.
  class Batch {
   public:
    void commit() { tx_.commit(); }

   private:
    friend class Store;
    explicit Batch(sqlite::Database& db) : tx_(db) {}
    sqlite::Transaction tx_;
  };
  [[nodiscard]] Batch batch() { return Batch(db_); }

  // ---- reading ----
  std::optional<RunInfo> run(std::int64_t run_id);
  std::vector<RunInfo> runs(const std::optional<std::string>& kernel = {});
  std::optional<std::string> configuration_params(std::int64_t config_id);
  bool has_measurement(std::int64_t config_id, std::string_view device, std::string_view size);
  // Every stored (params, size) of a kernel's space on a device, whatever its status.
  // `with_energy`: only those with an energy, or that could not have one (failed, or marked
  // unresolved): what an energy run may skip.
  std::set<MeasuredKey> measured(std::string_view kernel, std::string_view space_hash, std::string_view device,
                                 bool with_energy = false);
  std::int64_t measurement_count(std::optional<std::int64_t> run_id = {});
  // Matching measurements ordered by device, size (numerically), median time.
  std::vector<StoredMeasurement> measurements(const MeasurementFilter& filter);
  std::vector<std::string> kernels();
  std::vector<std::string> devices(const std::optional<std::string>& kernel = {});
  // Distinct size texts, ordered numerically by (x, y, z).
  std::vector<std::string> sizes(std::string_view kernel, const std::optional<std::string>& device = {});
  std::vector<Ceiling> ceilings(std::string_view device, const std::optional<std::string>& size = {},
                                std::optional<std::int64_t> run_id = {});
  std::vector<Flag> flags(std::string_view kernel, const std::optional<std::string>& device = {});
  std::vector<Decision> decisions(std::string_view kernel, const std::optional<std::string>& device = {});
  std::optional<CachedBinary> get_binary(std::string_view key);

  // The connection itself, for tests and for `tune db` maintenance commands.
  sqlite::Database& database() { return db_; }

 private:
  Store(sqlite::Database db, Mode mode) : db_(std::move(db)), mode_(mode) {}
  void require_writable(std::string_view what) const;
  sqlite::Database db_;
  Mode mode_;
};

// Shortest round-trip JSON array of float32 samples, e.g. "[1.5,2.25]", and back.
std::string samples_to_json(const std::vector<float>& samples_ms);
std::vector<float> samples_from_json(std::string_view json);

}  // namespace tune::store

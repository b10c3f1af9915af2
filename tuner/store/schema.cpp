#include "store/schema.h"

#include <array>

namespace tune::store {

namespace {

// Version 1: runs, configurations, measurements, ceilings, flags, binaries.
// Times are milliseconds, bandwidths GB/s (1e9 bytes/s), throughputs GFLOP/s (1e9 flop/s),
// timestamps ISO-8601 UTC text ("2025-01-31T12:34:56.789Z"), JSON columns hold valid JSON text.
constexpr std::string_view kMigration1 = R"sql(
PRAGMA application_id = 1414876741;

CREATE TABLE runs (
  id                 INTEGER PRIMARY KEY,
  spec_path          TEXT NOT NULL,
  spec_hash          TEXT NOT NULL,
  kernel             TEXT NOT NULL,
  device             TEXT NOT NULL,
  compute_capability TEXT NOT NULL DEFAULT '',
  driver_version     TEXT NOT NULL DEFAULT '',
  runtime_version    TEXT NOT NULL DEFAULT '',
  nvrtc_version      TEXT NOT NULL DEFAULT '',
  host               TEXT NOT NULL DEFAULT '',
  command_line       TEXT NOT NULL DEFAULT '',
  started_at         TEXT NOT NULL,
  ended_at           TEXT,
  strategy           TEXT NOT NULL DEFAULT '',
  strategy_options   TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(strategy_options)),
  budget             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(budget)),
  status             TEXT NOT NULL DEFAULT 'running'
                     CHECK (status IN ('running', 'completed', 'interrupted', 'failed')),
  kind               TEXT NOT NULL DEFAULT 'gpu' CHECK (kind IN ('gpu', 'replay', 'import')),
  notes              TEXT NOT NULL DEFAULT ''
);
CREATE INDEX runs_kernel ON runs(kernel, device);

CREATE TABLE configurations (
  id         INTEGER PRIMARY KEY,
  kernel     TEXT NOT NULL,
  space_hash TEXT NOT NULL,
  params     TEXT NOT NULL CHECK (json_valid(params)),
  UNIQUE (kernel, space_hash, params)
);

CREATE TABLE measurements (
  id                INTEGER PRIMARY KEY,
  config_id         INTEGER NOT NULL REFERENCES configurations(id),
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  device            TEXT NOT NULL,
  size              TEXT NOT NULL,
  size_x            INTEGER NOT NULL CHECK (size_x >= 1),
  size_y            INTEGER NOT NULL DEFAULT 1 CHECK (size_y >= 1),
  size_z            INTEGER NOT NULL DEFAULT 1 CHECK (size_z >= 1),
  status            TEXT NOT NULL CHECK (status IN ('ok', 'compile_failed', 'launch_failed',
                        'verification_failed', 'restricted', 'timeout', 'runtime_error')),
  error             TEXT NOT NULL DEFAULT '',
  samples           TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(samples)),
  sample_count      INTEGER NOT NULL DEFAULT 0 CHECK (sample_count >= 0),
  median_ms         REAL,
  mean_ms           REAL,
  min_ms            REAL,
  max_ms            REAL,
  stddev_ms         REAL,
  objective         REAL,
  gbps              REAL,
  gflops            REAL,
  compile_ms        REAL,
  verification_ms   REAL,
  benchmark_ms      REAL,
  extra             TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(extra)),
  eval_order        INTEGER,
  simulated_time_ms REAL,
  strategy_time_ms  REAL,
  replayed          INTEGER NOT NULL DEFAULT 0 CHECK (replayed IN (0, 1)),
  measured_at       TEXT NOT NULL,
  CHECK (status <> 'ok' OR median_ms IS NOT NULL),
  UNIQUE (config_id, device, size)
);
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX measurements_device_size ON measurements(device, size, status);

CREATE TABLE ceilings (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  device      TEXT NOT NULL,
  size        TEXT NOT NULL,
  name        TEXT NOT NULL,
  median_ms   REAL NOT NULL,
  gbps        REAL,
  gflops      REAL,
  samples     TEXT NOT NULL DEFAULT '[]' CHECK (json_valid(samples)),
  measured_at TEXT NOT NULL,
  UNIQUE (run_id, device, size, name)
);
CREATE INDEX ceilings_device_size ON ceilings(device, size);

CREATE TABLE flags (
  id         INTEGER PRIMARY KEY,
  run_id     INTEGER REFERENCES runs(id),
  kernel     TEXT NOT NULL,
  device     TEXT NOT NULL,
  size       TEXT NOT NULL,
  kind       TEXT NOT NULL CHECK (kind IN ('best_changes', 'dip')),
  text       TEXT NOT NULL,
  created_at TEXT NOT NULL
);
CREATE UNIQUE INDEX flags_key ON flags(kernel, device, size, kind, ifnull(run_id, 0));

CREATE TABLE binaries (
  key              TEXT PRIMARY KEY,
  arch             TEXT NOT NULL,
  compiler_version TEXT NOT NULL,
  options          TEXT NOT NULL,
  cubin            BLOB NOT NULL,
  log              TEXT NOT NULL DEFAULT '',
  compile_ms       REAL,
  created_at       TEXT NOT NULL
);
)sql";

constexpr std::array kMigrations = {
    Migration{1, kMigration1},
};

constexpr std::string_view kDoc = R"doc(
Units: times in milliseconds (ms), bandwidth in GB/s (1e9 bytes/s), throughput in GFLOP/s
(1e9 flop/s); timestamps are ISO-8601 UTC text such as 2025-01-31T12:34:56.789Z; JSON columns
hold valid JSON text. PRAGMA user_version is the schema version, PRAGMA application_id is
0x54554E45 ("TUNE").

runs -- one tuning session: a `tune run` on a GPU, a replay of stored data, or an import.
  id                  integer key
  spec_path           the spec (T1 JSON) file as given on the command line
  spec_hash           content hash of that file's bytes (32 hex digits)
  kernel              kernel name from the spec
  device              GPU name as reported by the driver, e.g. "NVIDIA H100 80GB HBM3"
  compute_capability  "major.minor", e.g. "9.0"
  driver_version      CUDA driver version, e.g. "13.0"
  runtime_version     CUDA runtime version the tuner was built with
  nvrtc_version       NVRTC version used to compile the kernels
  host                host name of the machine
  command_line        the full command line of the run
  started_at          when the run began
  ended_at            when it ended (NULL while running or after a crash)
  strategy            search strategy name, e.g. "brute_force", "random_sample"
  strategy_options    strategy options (JSON object)
  budget              the run's budget, e.g. {"max_fevals":100,"time_limit_s":600} (JSON)
  status              running | completed | interrupted | failed
  kind                gpu | replay | import
  notes               free text

configurations -- one point of a search space (parameter values), shared across runs.
  id                  integer key
  kernel              kernel name
  space_hash          hash of the parameter names and their value sets (the space's identity)
  params              canonical JSON object of the values in declaration order, without
                      spaces, e.g. {"TILE":32,"BLOCK_ROWS":8}; UNIQUE(kernel, space_hash, params)

measurements -- one per (configuration, device, problem size); a re-measurement replaces it.
  id                  integer key
  config_id           the configuration (configurations.id)
  run_id              the run that measured it (runs.id)
  device              GPU name (as runs.device)
  size                problem size as text: "4096", "4096x2048" or "64x64x64"
  size_x              first dimension of the problem size
  size_y              second dimension (1 if absent)
  size_z              third dimension (1 if absent)
  status              ok | compile_failed | launch_failed | verification_failed |
                      restricted | timeout | runtime_error
  error               error text when status is not ok (compiler log excerpt, CUDA error)
  samples             timing samples in ms (JSON array of float32 values, shortest form)
  sample_count        number of samples behind the summary
  median_ms           median of the samples (required when status is ok)
  mean_ms             mean of the samples
  min_ms              smallest sample
  max_ms              largest sample
  stddev_ms           sample standard deviation (n-1); 0 for one sample
  objective           the value the search minimised or maximised (by default median_ms)
  gbps                effective bandwidth, bytes moved / median time
  gflops              arithmetic throughput, flops / median time
  compile_ms          NVRTC compile (and load) time of this configuration
  verification_ms     time spent checking the output against the reference
  benchmark_ms        wall time of the timing loop
  extra               JSON object: observer values, user metrics, imported fields
  eval_order          order in which the strategy evaluated it (0, 1, 2, ...)
  simulated_time_ms   simulated tuning time up to this evaluation (replays), else NULL
  strategy_time_ms    time the strategy itself spent choosing it, else NULL
  replayed            1 if this row came from a replay of stored data, else 0
  measured_at         when the measurement completed

ceilings -- reference speeds measured in the same run, to report results as fractions of them.
  id                  integer key
  run_id              the run (runs.id)
  device              GPU name
  size                problem size text (as measurements.size)
  name                what was measured, e.g. "d2d_copy", "cublas_sgeam", "cublas_sgemm"
  median_ms           median time
  gbps                bandwidth it reached, if meaningful
  gflops              throughput it reached, if meaningful
  samples             timing samples in ms (JSON array)
  measured_at         when it was measured; UNIQUE(run_id, device, size, name)

flags -- observations about a kernel on a device and size, e.g. partition camping.
  id                  integer key
  run_id              the run that raised it, or NULL for a kernel-wide flag
  kernel              kernel name
  device              GPU name
  size                problem size text
  kind                best_changes (the best configuration differs from neighbouring sizes)
                      | dip (performance drops sharply at this size)
  text                human-readable explanation
  created_at          when it was raised; unique per (kernel, device, size, kind, run_id)

binaries -- cache of compiled cubins, so unchanged configurations are not recompiled.
  key                 hash of source, compile options, architecture and compiler version
  arch                target architecture, e.g. "sm_90"
  compiler_version    NVRTC version that produced it
  options             compile options, space-separated
  cubin               the cubin bytes
  log                 the compiler log
  compile_ms          how long the compile took
  created_at          when it was stored
)doc";

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }

int schema_version() { return kMigrations.back().version; }

std::string schema_doc() {
  return "tune results database, schema version " + std::to_string(schema_version()) + "\n" +
         std::string(kDoc.substr(1));
}

}  // namespace tune::store

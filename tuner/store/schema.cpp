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

// Version 2: the two tables that get a row per evaluation, rebuilt for bulk writes (a replay
// stores tens of thousands of evaluations a second); same columns, same data:
// - configurations are identified by `key`, a 64-bit hash of (kernel, space_hash, params)
//   (configuration_key() in store.h), with a UNIQUE index on it, instead of a UNIQUE index over
//   the whole parameter text: 200-byte keys inserted in random order doubled the bytes written
//   per configuration. Uniqueness of (kernel, space_hash, params) still holds in the database
//   (equal triples have equal keys); the store refuses the (astronomically unlikely) collision of
//   two different triples. An index on kernel serves the queries by kernel (and space).
// - No json_valid CHECK on configurations.params, measurements.samples, measurements.extra: the
//   store writes samples itself and validates params and extra before writing them; SQLite
//   parsed every row's JSON a second time. The runs and ceilings tables keep theirs.
// - measurements.status is checked by comparisons: an IN list of seven values made SQLite build
//   an ephemeral table on every insert.
// tune_configuration_key() is registered by Store::open; foreign keys are off while migrating.
constexpr std::string_view kMigration2 = R"sql(
CREATE TABLE configurations_v2 (
  id         INTEGER PRIMARY KEY,
  kernel     TEXT NOT NULL,
  space_hash TEXT NOT NULL,
  params     TEXT NOT NULL,
  key        INTEGER NOT NULL UNIQUE
);
INSERT INTO configurations_v2 (id, kernel, space_hash, params, key)
  SELECT id, kernel, space_hash, params, tune_configuration_key(kernel, space_hash, params)
  FROM configurations ORDER BY id;

CREATE TABLE measurements_v2 (
  id                INTEGER PRIMARY KEY,
  config_id         INTEGER NOT NULL REFERENCES configurations(id),
  run_id            INTEGER NOT NULL REFERENCES runs(id),
  device            TEXT NOT NULL,
  size              TEXT NOT NULL,
  size_x            INTEGER NOT NULL CHECK (size_x >= 1),
  size_y            INTEGER NOT NULL DEFAULT 1 CHECK (size_y >= 1),
  size_z            INTEGER NOT NULL DEFAULT 1 CHECK (size_z >= 1),
  status            TEXT NOT NULL CHECK (status = 'ok' OR status = 'compile_failed' OR
                        status = 'launch_failed' OR status = 'verification_failed' OR
                        status = 'restricted' OR status = 'timeout' OR status = 'runtime_error'),
  error             TEXT NOT NULL DEFAULT '',
  samples           TEXT NOT NULL DEFAULT '[]',
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
  extra             TEXT NOT NULL DEFAULT '{}',
  eval_order        INTEGER,
  simulated_time_ms REAL,
  strategy_time_ms  REAL,
  replayed          INTEGER NOT NULL DEFAULT 0 CHECK (replayed IN (0, 1)),
  measured_at       TEXT NOT NULL,
  CHECK (status <> 'ok' OR median_ms IS NOT NULL),
  UNIQUE (config_id, device, size)
);
INSERT INTO measurements_v2 (id, config_id, run_id, device, size, size_x, size_y, size_z, status,
    error, samples, sample_count, median_ms, mean_ms, min_ms, max_ms, stddev_ms, objective, gbps,
    gflops, compile_ms, verification_ms, benchmark_ms, extra, eval_order, simulated_time_ms,
    strategy_time_ms, replayed, measured_at)
  SELECT id, config_id, run_id, device, size, size_x, size_y, size_z, status,
    error, samples, sample_count, median_ms, mean_ms, min_ms, max_ms, stddev_ms, objective, gbps,
    gflops, compile_ms, verification_ms, benchmark_ms, extra, eval_order, simulated_time_ms,
    strategy_time_ms, replayed, measured_at
  FROM measurements ORDER BY id;

DROP TABLE measurements;
DROP TABLE configurations;
ALTER TABLE configurations_v2 RENAME TO configurations;
ALTER TABLE measurements_v2 RENAME TO measurements;
CREATE INDEX configurations_kernel ON configurations(kernel);
CREATE INDEX measurements_run ON measurements(run_id);
CREATE INDEX measurements_device_size ON measurements(device, size, status);
)sql";

// Version 3: measurements you can trust (decisions, flags of the data, the timing method).
// - decisions: one per (kernel, device, size), the verdict of the stated rule (decision/decision.h)
//   over the configurations measured again, interleaved, after a GPU sweep's size: the winner, every
//   candidate with its value and 95% interval, which are tied. Replaced when a later run decides
//   that size again.
// - flags belong to the data, not to a run: one per (kernel, device, size, kind), run_id NULL,
//   recomputed from the decisions after every run (a re-run adds none). The per-run rows of older
//   versions collapse to the latest of each.
// - ceilings.median_ms is ceilings.time_ms: the run's statistic, as the kernels' objective.
// - runs.pid: the process of a run, so that the next writer marks a run whose process is gone
//   (killed) interrupted instead of leaving it running for ever.
// - runs.timing: how that run timed (run::describe(), the statistic, the L2 policy), or for a replay
//   or an import where its data came from.
constexpr std::string_view kMigration3 = R"sql(
CREATE TABLE decisions (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  kernel      TEXT NOT NULL,
  device      TEXT NOT NULL,
  size        TEXT NOT NULL,
  statistic   TEXT NOT NULL CHECK (statistic IN ('mean', 'median')),
  tie_margin  REAL NOT NULL CHECK (tie_margin >= 0),
  winner_id   INTEGER NOT NULL REFERENCES configurations(id),
  candidates  TEXT NOT NULL CHECK (json_valid(candidates)),
  rounds      INTEGER NOT NULL CHECK (rounds >= 0),
  noise       REAL NOT NULL,
  decided_at  TEXT NOT NULL,
  UNIQUE (kernel, device, size)
);
DELETE FROM flags WHERE id NOT IN (SELECT max(id) FROM flags GROUP BY kernel, device, size, kind);
UPDATE flags SET run_id = NULL;
ALTER TABLE runs ADD COLUMN timing TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE ceilings RENAME COLUMN median_ms TO time_ms;
)sql";

// Version 4: energy as a measured objective (run/energy.h).
// - measurements.energy_j: board energy per launch (J) over a window of back-to-back launches,
//   energy_hw_j the half-width of its 95% interval; power_w the board's average power in that
//   window (W), power_hw_w its half-width. NULL where energy was not measured, or where the figure
//   was below the counter's resolution (extra.energy says why).
// - runs.energy: how that run measured energy (run::describe_energy()), '' when it did not;
//   runs.idle_power_w: the board's idle power measured in the same run (the baseline).
constexpr std::string_view kMigration4 = R"sql(
ALTER TABLE measurements ADD COLUMN energy_j REAL CHECK (energy_j IS NULL OR energy_j > 0);
ALTER TABLE measurements ADD COLUMN energy_hw_j REAL;
ALTER TABLE measurements ADD COLUMN power_w REAL CHECK (power_w IS NULL OR power_w > 0);
ALTER TABLE measurements ADD COLUMN power_hw_w REAL;
ALTER TABLE runs ADD COLUMN energy TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN idle_power_w REAL;
)sql";

constexpr std::array kMigrations = {
    Migration{1, kMigration1},
    Migration{2, kMigration2},
    Migration{3, kMigration3},
    Migration{4, kMigration4},
};

}  // namespace

std::span<const Migration> migrations() { return kMigrations; }

int schema_version() { return kMigrations.back().version; }

}  // namespace tune::store

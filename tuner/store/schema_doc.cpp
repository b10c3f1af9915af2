// The documented schema, as printed by `tune db --schema`; kept in step with schema.cpp (a test
// checks that every column of every table is described).
#include "store/schema.h"

namespace tune::store {

namespace {

constexpr std::string_view kDoc = R"doc(
Units: times in milliseconds (ms), bandwidth in GB/s (1e9 bytes/s), throughput in GFLOP/s
(1e9 flop/s); timestamps are ISO-8601 UTC text such as 2025-01-31T12:34:56.789Z; JSON columns
hold valid JSON text (CHECKed by SQLite in runs and ceilings; in configurations and measurements,
which get a row per evaluation, validated by tune before it writes them). PRAGMA user_version is
the schema version, PRAGMA application_id is 0x54554E45 ("TUNE"). Older databases are upgraded
in place when tune opens them to record.

The objective: every ranking (`tune best`, the header, the report, the flags, replay and the
search strategies) uses measurements.objective, the statistic of the spec (Tune.statistic: mean,
as Kernel Tuner's `time`, unless it says median) of the timing samples; for imported Kernel Tuner
data it is the entry's own `time`. The decision at a size and the ties follow the rule in
decisions (below).

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
  timing              how the run timed its samples (method, statistic, L2 policy, stop rule),
                      or for a replay where its recorded data came from
  pid                 the process that ran it; a run of this host still running whose process
                      is gone is marked interrupted by the next tune that records
  energy              how the run measured energy (counter, window, resolution), "" when it
                      did not (tune run --objective energy|edp)
  idle_power_w        the board's idle power (W) measured in the same run: the baseline

configurations -- one point of a search space (parameter values), shared across runs.
  id                  integer key
  kernel              kernel name
  space_hash          hash of the parameter names and their value sets (the space's identity)
  params              canonical JSON object of the values in declaration order, without
                      spaces, e.g. {"TILE":32,"BLOCK_ROWS":8}
  key                 64-bit FNV-1a hash of the bytes kernel, 0x00, space_hash, 0x00, params
                      (offset basis 0xcbf29ce484222325, prime 0x100000001b3), as a signed
                      integer; UNIQUE, so (kernel, space_hash, params) is unique too

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
  objective           the objective's statistic in ms (mean_ms, or median_ms with
                      Tune.statistic "median"; Kernel Tuner's `time` for imported data): what
                      every ranking uses
  gbps                effective bandwidth, bytes moved / objective
  gflops              arithmetic throughput, flops / objective
  compile_ms          NVRTC compile (and load) time of this configuration
  verification_ms     time spent checking the output against the reference
  benchmark_ms        wall time of the timing loop
  extra               JSON object: observer values, user metrics, imported fields
  eval_order          order in which the strategy evaluated it (0, 1, 2, ...)
  simulated_time_ms   simulated tuning time up to this evaluation (replays), else NULL
  strategy_time_ms    time the strategy itself spent choosing it, else NULL
  replayed            1 if this row came from a replay of stored data, else 0
  measured_at         when the measurement completed
  energy_j            board energy per launch in J (Kernel Tuner's nvml_energy): the average
                      power over whole updates of NVML's energy counter while the launches ran
                      back to back, times the objective; NULL when not measured or below the
                      counter's resolution (extra.energy says why)
  energy_hw_j         half-width of energy_j's 95% interval (over the counter's updates)
  power_w             the board's average power while the launches ran (nvml_power), W
  power_hw_w          half-width of power_w's 95% interval

ceilings -- reference speeds measured in the same run, to report results as fractions of them.
  id                  integer key
  run_id              the run (runs.id)
  device              GPU name
  size                problem size text (as measurements.size)
  name                what was measured, e.g. "d2d_copy", "cublas_sgeam", "cublas_sgemm"
  time_ms             its time by the objective's statistic, timed as the kernels are
  gbps                bandwidth it reached, if meaningful
  gflops              throughput it reached, if meaningful
  samples             timing samples in ms (JSON array)
  measured_at         when it was measured; UNIQUE(run_id, device, size, name)

decisions -- the verdict at one (kernel, device, size) of a GPU run: after every configuration
was measured, those within reach of the best (decision::contenders) were measured again,
interleaved round robin, and the rule decided: the winner is the lowest objective; a candidate is
tied with it when the difference is within their combined 95% confidence interval or within
tie_margin of the winner. Across sizes the tied configuration kept from the previous size is used
while it is within tie_margin and the size's noise of the winner (`tune best`, the header). Sizes
without a decision (replays, imports) are decided by the same rule from the stored samples when
asked.
  id                  integer key
  run_id              the run that decided (runs.id)
  kernel              kernel name
  device              GPU name
  size                problem size text; UNIQUE(kernel, device, size): a later decision replaces it
  statistic           mean | median: the objective's statistic
  tie_margin          the relative difference below which configurations are tied regardless
  winner_id           the winning configuration (configurations.id)
  candidates          JSON array, by value: {"config_id", "value" (ms), "half_width" (ms, 95%),
                      "samples", "tied"}
  rounds              interleaved rounds of the re-measurement
  noise               the winner's relative 95% half-width (half_width / value)
  decided_at          when

flags -- observations about the data of a kernel on a device at a size; recomputed from the
decisions after every run and replay, so a re-run adds none.
  id                  integer key
  run_id              NULL (flags of schema version 2 and older named the run that raised them)
  kernel              kernel name
  device              GPU name
  size                problem size text
  kind                best_changes (the configuration used here is not the one used at the
                      previous size, and the previous one is slower here beyond the noise)
                      | dip (the best throughput drops below both neighbouring sizes by more
                      than 15% and more than the noise)
  text                human-readable explanation
  created_at          when it was raised; unique per (kernel, device, size, kind)

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

std::string schema_doc() {
  return "tune results database, schema version " + std::to_string(schema_version()) + "\n" +
         std::string(kDoc.substr(1));
}

}  // namespace tune::store

// The Store's write operations, and prepare(): what record() computes before it writes.
#include <optional>

#include "store/json_check.h"
#include "store/store.h"

#include <unistd.h>

#include <cmath>

namespace tune::store {

namespace {

void require_json(std::string_view text, const char* what, bool object) {
  if (json_valid(text, object)) return;
  if (!json_valid(text)) {
    throw InputError(std::string(what) + " is not valid JSON: " + std::string(text.substr(0, 80)));
  }
  throw InputError(std::string(what) + " must be a JSON object: " + std::string(text.substr(0, 80)));
}

std::string or_now(const std::string& stamp) { return stamp.empty() ? utc_now() : stamp; }

}  // namespace

std::int64_t Store::begin_run(RunInfo info) {
  require_writable("begin a run");
  if (info.host.empty()) info.host = this_host();
  require_json(info.strategy_options, "strategy options", true);
  require_json(info.budget, "budget", false);
  auto s = db_.cached(
      "INSERT INTO runs (spec_path, spec_hash, kernel, device, compute_capability,"
      " driver_version, runtime_version, nvrtc_version, host, command_line, started_at,"
      " ended_at, strategy, strategy_options, budget, status, kind, notes, timing, pid, energy,"
      " idle_power_w) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
  s->bind_all(info.spec_path, info.spec_hash, info.kernel, info.device, info.compute_capability, info.driver_version,
              info.runtime_version, info.nvrtc_version, info.host, info.command_line, or_now(info.started_at),
              info.ended_at, info.strategy, info.strategy_options, info.budget, to_string(info.status),
              to_string(info.kind), info.notes, info.timing,
              info.pid ? *info.pid : static_cast<std::int64_t>(::getpid()), info.energy, info.idle_power_w);
  return s->returning_int64();
}

void Store::finish_run(std::int64_t run_id, RunStatus status) {
  require_writable("finish a run");
  auto s = db_.cached("UPDATE runs SET status = ?, ended_at = ? WHERE id = ?");
  s->bind_all(to_string(status), utc_now(), run_id).run();
  if (db_.changes() == 0) {
    throw Error("database " + path() + " has no run " + std::to_string(run_id) + " to finish");
  }
}

bool Store::discard_run(std::int64_t run_id) {
  require_writable("discard a run");
  try {  // foreign keys refuse the delete when a ceiling, decision or flag refers to the run
    db_.prepare("DELETE FROM runs WHERE id = ? AND NOT EXISTS (SELECT 1 FROM measurements WHERE run_id = ?)")
        .bind_all(run_id, run_id)
        .run();
  } catch (const sqlite::Failure&) {
    return false;
  }
  return db_.changes() > 0;
}

std::int64_t Store::upsert_configuration(std::string_view kernel, std::string_view space_hash,
                                         const nlohmann::ordered_json& params) {
  require_writable("store a configuration");
  return upsert_configuration_canonical(kernel, space_hash, canonical_params(params));
}

std::int64_t Store::upsert_configuration_canonical(std::string_view kernel, std::string_view space_hash,
                                                   std::string_view canonical) {
  require_writable("store a configuration");
  require_json(canonical, "configuration parameters", true);
  const std::int64_t key = configuration_key(kernel, space_hash, canonical);
  // The configuration with this key, if any; a different one with the same key is refused.
  auto find = [&]() -> std::optional<std::int64_t> {
    auto s = db_.cached("SELECT id, kernel, space_hash, params FROM configurations WHERE key = ?");
    if (!s->bind(1, key).step()) return std::nullopt;
    if (s->text(1) != kernel || s->text(2) != space_hash || s->text(3) != canonical) {
      throw Error("database " + path() + ": configuration " + std::string(canonical) + " of " + std::string(kernel) +
                  " has the same key (64-bit hash) as configuration " + std::to_string(s->int64(0)) + ", " +
                  s->text(3) + " of " + s->text(1) + "; it cannot be stored");
    }
    return s->int64(0);
  };
  // Outside a transaction, the common case (already there) takes no write lock; inside one
  // (a batch, which holds the write lock), a new configuration costs the INSERT alone.
  if (!db_.in_transaction()) {
    if (auto id = find()) return *id;
  }
  {
    // One statement, atomic on its own inside or outside a transaction (no savepoint needed);
    // no RETURNING (an ephemeral table per row): the new row's id is last_insert_rowid().
    auto s = db_.cached(
        "INSERT INTO configurations (kernel, space_hash, params, key)"
        " VALUES (?,?,?,?) ON CONFLICT (key) DO NOTHING");
    s->bind_all(kernel, space_hash, canonical, key).run();
    if (db_.changes() == 1) return db_.last_insert_rowid();
  }
  if (auto id = find()) return *id;  // stored already (by us, or by another connection meanwhile)
  throw Error("database " + path() + ": configuration " + std::string(canonical) + " neither found nor inserted");
}

std::int64_t Store::upsert_configuration_text(std::string_view kernel, std::string_view space_hash,
                                              std::string_view params_json) {
  require_writable("store a configuration");
  return upsert_configuration_canonical(kernel, space_hash, canonical_params(params_json));
}

void settle(Measurement& m) {
  if (!m.summary && !m.samples_ms.empty()) m.summary = TimingSummary::of(m.samples_ms);
  if (!m.objective && m.summary && m.status == MeasurementStatus::ok) m.objective = m.summary->mean;
}

bool reject_invalid_times(Measurement& m) {
  if (m.status != MeasurementStatus::ok) return false;
  auto bad = [](double t) { return !(std::isfinite(t) && t > 0 && t <= kMaxTimeMs); };
  std::string why;
  if (m.objective && bad(*m.objective)) why = "time " + std::to_string(*m.objective) + " ms";
  for (float t : m.samples_ms)
    if (why.empty() && bad(t)) why = "sample " + std::to_string(t) + " ms";
  if (m.summary && why.empty() && bad(m.summary->median)) why = "median " + std::to_string(m.summary->median) + " ms";
  if (why.empty()) return false;
  m.status = MeasurementStatus::runtime_error;
  m.error = "invalid time: " + why + " is not a finite time in (0, 1 hour]; stored, never ranked";
  m.objective.reset();
  m.energy_j.reset();
  m.power_w.reset();
  m.gbps.reset();
  m.gflops.reset();
  m.summary.reset();
  std::erase_if(m.samples_ms, [](float t) { return !std::isfinite(t); });  // JSON has no NaN
  return true;
}

PreparedMeasurement prepare(Measurement m) {
  reject_invalid_times(m);
  auto where = [&] {
    return "measurement of configuration " + std::to_string(m.config_id) + " on " + m.device + " at size " +
           m.size.label();
  };
  require_json(m.extra, "extra metrics", true);
  settle(m);
  if (m.status == MeasurementStatus::ok && !m.summary) {
    throw Error(where() + ": status ok needs timing samples or a summary");
  }
  std::string samples = samples_to_json(m.samples_ms);
  return PreparedMeasurement{std::move(m), std::move(samples)};
}

std::int64_t Store::record(const Measurement& m) { return record(prepare(m)); }

std::int64_t Store::record(const PreparedMeasurement& p) {
  require_writable("record a measurement");
  const Measurement& m = p.m;
  if (m.device.empty())
    throw Error("measurement of configuration " + std::to_string(m.config_id) + ": a device is required");
  const std::optional<TimingSummary>& summary = m.summary;
  auto opt = [&](double TimingSummary::*field) -> std::optional<double> {
    return summary ? std::optional<double>((*summary).*field) : std::nullopt;
  };
  // Inside a Batch no savepoint is needed (a failing statement undoes only itself, and the
  // UPDATE runs only when the INSERT changed nothing); alone, both run in one transaction.
  // No RETURNING: SQLite would build an ephemeral table for it on every row.
  std::optional<sqlite::Transaction> tx;
  if (!db_.in_transaction()) tx.emplace(db_);
  // Text is bound without copies: everything bound outlives the statements' leases below.
  const std::string now = m.measured_at.empty() ? utc_now() : std::string();
  const std::string& measured_at = m.measured_at.empty() ? now : m.measured_at;
  const std::string size = m.size.label();
  using sqlite::Borrowed;
  auto bind = [&](sqlite::Statement& s) {
    s.bind_all(m.config_id, m.run_id, Borrowed{m.device}, Borrowed{size}, m.size.x(), m.size.y(), m.size.z(),
               Borrowed{to_string(m.status)}, Borrowed{m.error}, Borrowed{p.samples_json},
               summary ? summary->count : std::int64_t{0}, opt(&TimingSummary::median), opt(&TimingSummary::mean),
               opt(&TimingSummary::min), opt(&TimingSummary::max), opt(&TimingSummary::stddev), m.objective, m.gbps,
               m.gflops, m.compile_ms, m.verification_ms, m.benchmark_ms, Borrowed{m.extra}, m.eval_order,
               m.simulated_time_ms, m.strategy_time_ms, std::int64_t{m.replayed ? 1 : 0}, Borrowed{measured_at},
               m.energy_j, m.energy_hw_j, m.power_w, m.power_hw_w);
  };
  std::int64_t id = 0;
  {
    auto s = db_.cached(
        "INSERT INTO measurements (config_id, run_id, device, size, size_x, size_y, size_z,"
        " status, error, samples, sample_count, median_ms, mean_ms, min_ms, max_ms, stddev_ms,"
        " objective, gbps, gflops, compile_ms, verification_ms, benchmark_ms, extra, eval_order,"
        " simulated_time_ms, strategy_time_ms, replayed, measured_at, energy_j, energy_hw_j, power_w,"
        " power_hw_w) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        " ON CONFLICT (config_id, device, size) DO NOTHING");
    bind(*s);
    s->run();
    if (db_.changes() == 1) id = db_.last_insert_rowid();
  }
  if (id == 0) {  // one is stored already: replace its values, keep its id
    auto s = db_.cached(
        "UPDATE measurements SET run_id = ?2, size_x = ?5, size_y = ?6, size_z = ?7,"
        " status = ?8, error = ?9, samples = ?10, sample_count = ?11, median_ms = ?12,"
        " mean_ms = ?13, min_ms = ?14, max_ms = ?15, stddev_ms = ?16, objective = ?17,"
        " gbps = ?18, gflops = ?19, compile_ms = ?20, verification_ms = ?21, benchmark_ms = ?22,"
        " extra = ?23, eval_order = ?24, simulated_time_ms = ?25, strategy_time_ms = ?26,"
        " replayed = ?27, measured_at = ?28, energy_j = ?29, energy_hw_j = ?30, power_w = ?31,"
        " power_hw_w = ?32 WHERE config_id = ?1 AND device = ?3 AND size = ?4"
        " RETURNING id");
    bind(*s);
    id = s->returning_int64();
  }
  if (tx) tx->commit();
  return id;
}

void Store::record_ceiling(const Ceiling& c) {
  require_writable("record a ceiling");
  db_.cached(
         "INSERT INTO ceilings (run_id, device, size, name, time_ms, gbps, gflops, samples,"
         " measured_at) VALUES (?,?,?,?,?,?,?,?,?)"
         " ON CONFLICT (run_id, device, size, name) DO UPDATE SET"
         " time_ms = excluded.time_ms, gbps = excluded.gbps, gflops = excluded.gflops,"
         " samples = excluded.samples, measured_at = excluded.measured_at")
      ->bind_all(c.run_id, c.device, c.size, c.name, c.time_ms, c.gbps, c.gflops, samples_to_json(c.samples_ms),
                 or_now(c.measured_at))
      .run();
}

void Store::record_flag(const Flag& f) {
  require_writable("record a flag");
  db_.cached(
         "INSERT INTO flags (run_id, kernel, device, size, kind, text, created_at)"
         " VALUES (?,?,?,?,?,?,?)"
         " ON CONFLICT (kernel, device, size, kind, ifnull(run_id, 0)) DO UPDATE SET"
         " text = excluded.text, created_at = excluded.created_at")
      ->bind_all(f.run_id, f.kernel, f.device, f.size, to_string(f.kind), f.text, or_now(f.created_at))
      .run();
}

void Store::put_binary(const CachedBinary& b) {
  require_writable("cache a binary");
  auto s = db_.cached(
      "INSERT INTO binaries (key, arch, compiler_version, options, cubin, log, compile_ms,"
      " created_at) VALUES (?,?,?,?,?,?,?,?)"
      " ON CONFLICT (key) DO UPDATE SET arch = excluded.arch,"
      " compiler_version = excluded.compiler_version, options = excluded.options,"
      " cubin = excluded.cubin, log = excluded.log, compile_ms = excluded.compile_ms,"
      " created_at = excluded.created_at");
  s->bind_all(b.key, b.arch, b.compiler_version, b.options);
  s->bind_blob(5, b.cubin.data(), b.cubin.size());
  s->bind(6, b.log).bind(7, b.compile_ms).bind(8, or_now(b.created_at)).run();
}

}  // namespace tune::store

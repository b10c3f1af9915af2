// The Store's read operations. Every statement is released (reset) before returning, so a
// long-lived read-only Store sees each new commit of a writer in another process.
#include "store/store.h"

#include <algorithm>

namespace tune::store {

namespace {

// A stored size: its dimensions from the columns, its rank from the label's parts.
sizes::Size stored_size(const std::string& label, std::int64_t x, std::int64_t y, std::int64_t z) {
  const auto parts = std::count(label.begin(), label.end(), 'x') + 1;
  return sizes::Size{{x, y, z}, static_cast<int>(std::clamp<std::ptrdiff_t>(parts, 1, 3))};
}

constexpr const char* kRunColumns =
    "id, spec_path, spec_hash, kernel, device, compute_capability, driver_version,"
    " runtime_version, nvrtc_version, host, command_line, started_at, ended_at, strategy,"
    " strategy_options, budget, status, kind, notes, timing, pid, energy, idle_power_w";

RunInfo read_run(const sqlite::Statement& s) {
  RunInfo r;
  r.id = s.int64(0);
  r.spec_path = s.text(1);
  r.spec_hash = s.text(2);
  r.kernel = s.text(3);
  r.device = s.text(4);
  r.compute_capability = s.text(5);
  r.driver_version = s.text(6);
  r.runtime_version = s.text(7);
  r.nvrtc_version = s.text(8);
  r.host = s.text(9);
  r.command_line = s.text(10);
  r.started_at = s.text(11);
  if (!s.is_null(12)) r.ended_at = s.text(12);
  r.strategy = s.text(13);
  r.strategy_options = s.text(14);
  r.budget = s.text(15);
  r.status = parse_run_status(s.text(16));
  r.kind = parse_run_kind(s.text(17));
  r.notes = s.text(18);
  r.timing = s.text(19);
  r.pid = s.opt_int64(20);
  r.energy = s.text(21);
  r.idle_power_w = s.opt_real(22);
  return r;
}

std::vector<std::string> strings(sqlite::Statement& s) {
  std::vector<std::string> out;
  while (s.step()) out.push_back(s.text(0));
  return out;
}

}  // namespace

std::optional<RunInfo> Store::run(std::int64_t run_id) {
  auto s = db_.cached(std::string("SELECT ") + kRunColumns + " FROM runs WHERE id = ?");
  if (!s->bind(1, run_id).step()) return std::nullopt;
  return read_run(*s);
}

std::vector<RunInfo> Store::runs(const std::optional<std::string>& kernel) {
  auto s = db_.cached(std::string("SELECT ") + kRunColumns + " FROM runs WHERE ?1 IS NULL OR kernel = ?1 ORDER BY id");
  s->bind(1, kernel);
  std::vector<RunInfo> out;
  while (s->step()) out.push_back(read_run(*s));
  return out;
}

std::optional<std::string> Store::configuration_params(std::int64_t config_id) {
  auto s = db_.cached("SELECT params FROM configurations WHERE id = ?");
  if (!s->bind(1, config_id).step()) return std::nullopt;
  return s->text(0);
}

bool Store::has_measurement(std::int64_t config_id, std::string_view device, std::string_view size) {
  auto s = db_.cached("SELECT 1 FROM measurements WHERE config_id = ? AND device = ? AND size = ?");
  return s->bind_all(config_id, device, size).step();
}

std::set<MeasuredKey> Store::measured(std::string_view kernel, std::string_view space_hash, std::string_view device,
                                      bool with_energy) {
  auto s = db_.cached(
      "SELECT c.params, m.size FROM measurements m JOIN configurations c ON c.id = m.config_id"
      " WHERE c.kernel = ? AND c.space_hash = ? AND m.device = ? AND (? = 0 OR m.status <> 'ok'"
      " OR m.energy_j IS NOT NULL OR json_extract(m.extra, '$.energy') IS NOT NULL)");
  s->bind_all(kernel, space_hash, device, std::int64_t{with_energy ? 1 : 0});
  std::set<MeasuredKey> out;
  while (s->step()) out.insert(MeasuredKey{s->text(0), s->text(1)});
  return out;
}

std::int64_t Store::measurement_count(std::optional<std::int64_t> run_id) {
  auto s = db_.cached("SELECT count(*) FROM measurements WHERE ?1 IS NULL OR run_id = ?1");
  s->bind(1, run_id).step();
  return s->int64(0);
}

std::vector<StoredMeasurement> Store::measurements(const MeasurementFilter& f) {
  // The WHERE clause only names the filters in use, so each combination is its own cached
  // statement and the indexes stay usable.
  std::string sql =
      "SELECT m.id, m.config_id, m.run_id, m.device, m.size, m.size_x, m.size_y, m.size_z,"
      " m.status, m.error, m.sample_count, m.median_ms, m.mean_ms, m.min_ms, m.max_ms,"
      " m.stddev_ms, m.objective, m.gbps, m.gflops, m.compile_ms, m.verification_ms,"
      " m.benchmark_ms, m.extra, m.eval_order, m.simulated_time_ms, m.strategy_time_ms,"
      " m.replayed, m.measured_at, c.kernel, c.space_hash, c.params, m.energy_j, m.energy_hw_j,"
      " m.power_w, m.power_hw_w";
  sql += f.with_samples ? ", m.samples" : "";
  sql += " FROM measurements m JOIN configurations c ON c.id = m.config_id WHERE c.kernel = ?";
  if (f.device) sql += " AND m.device = ?";
  if (f.size) sql += " AND m.size = ?";
  if (f.space_hash) sql += " AND c.space_hash = ?";
  if (f.run_id) sql += " AND m.run_id = ?";
  if (f.ok_only) sql += " AND m.status = 'ok'";
  sql += " ORDER BY m.device, m.size_x, m.size_y, m.size_z, m.size, m.objective, m.id";
  auto s = db_.cached(sql);
  int i = 1;
  s->bind(i++, f.kernel);
  if (f.device) s->bind(i++, *f.device);
  if (f.size) s->bind(i++, *f.size);
  if (f.space_hash) s->bind(i++, *f.space_hash);
  if (f.run_id) s->bind(i++, *f.run_id);
  std::vector<StoredMeasurement> out;
  while (s->step()) {
    StoredMeasurement m;
    m.id = s->int64(0);
    m.config_id = s->int64(1);
    m.run_id = s->int64(2);
    m.device = s->text(3);
    m.size = stored_size(s->text(4), s->int64(5), s->int64(6), s->int64(7));
    m.status = parse_measurement_status(s->text(8));
    m.error = s->text(9);
    if (!s->is_null(11)) {
      m.summary = TimingSummary{s->real(11), s->real(12), s->real(13), s->real(14), s->real(15), s->int64(10)};
    }
    m.objective = s->opt_real(16);
    m.gbps = s->opt_real(17);
    m.gflops = s->opt_real(18);
    m.compile_ms = s->opt_real(19);
    m.verification_ms = s->opt_real(20);
    m.benchmark_ms = s->opt_real(21);
    m.extra = s->text(22);
    m.eval_order = s->opt_int64(23);
    m.simulated_time_ms = s->opt_real(24);
    m.strategy_time_ms = s->opt_real(25);
    m.replayed = s->int64(26) != 0;
    m.measured_at = s->text(27);
    m.kernel = s->text(28);
    m.space_hash = s->text(29);
    m.params = s->text(30);
    m.energy_j = s->opt_real(31);
    m.energy_hw_j = s->opt_real(32);
    m.power_w = s->opt_real(33);
    m.power_hw_w = s->opt_real(34);
    if (f.with_samples) m.samples_ms = samples_from_json(s->text(35));
    out.push_back(std::move(m));
  }
  return out;
}

std::vector<std::string> Store::kernels() {
  auto s = db_.cached("SELECT DISTINCT kernel FROM configurations ORDER BY kernel");
  return strings(*s);
}

std::vector<std::string> Store::devices(const std::optional<std::string>& kernel) {
  auto s = db_.cached(
      "SELECT DISTINCT m.device FROM measurements m JOIN configurations c ON c.id = m.config_id"
      " WHERE ?1 IS NULL OR c.kernel = ?1 ORDER BY m.device");
  s->bind(1, kernel);
  return strings(*s);
}

std::vector<std::string> Store::sizes(std::string_view kernel, const std::optional<std::string>& device) {
  auto s = db_.cached(
      "SELECT m.size FROM measurements m JOIN configurations c ON c.id = m.config_id"
      " WHERE c.kernel = ?1 AND (?2 IS NULL OR m.device = ?2)"
      " GROUP BY m.size ORDER BY min(m.size_x), min(m.size_y), min(m.size_z), m.size");
  s->bind(1, kernel).bind(2, device);
  return strings(*s);
}

std::vector<Ceiling> Store::ceilings(std::string_view device, const std::optional<std::string>& size,
                                     std::optional<std::int64_t> run_id) {
  auto s = db_.cached(
      "SELECT run_id, device, size, name, time_ms, gbps, gflops, samples, measured_at"
      " FROM ceilings WHERE device = ?1 AND (?2 IS NULL OR size = ?2)"
      " AND (?3 IS NULL OR run_id = ?3) ORDER BY measured_at, id");
  s->bind(1, device).bind(2, size).bind(3, run_id);
  std::vector<Ceiling> out;
  while (s->step()) {
    out.push_back(Ceiling{s->int64(0), s->text(1), s->text(2), s->text(3), s->real(4), s->opt_real(5), s->opt_real(6),
                          samples_from_json(s->text(7)), s->text(8)});
  }
  return out;
}

std::vector<Flag> Store::flags(std::string_view kernel, const std::optional<std::string>& device) {
  auto s = db_.cached(
      "SELECT run_id, kernel, device, size, kind, text, created_at FROM flags"
      " WHERE kernel = ?1 AND (?2 IS NULL OR device = ?2) ORDER BY device, size, kind, id");
  s->bind(1, kernel).bind(2, device);
  std::vector<Flag> out;
  while (s->step()) {
    out.push_back(
        Flag{s->opt_int64(0), s->text(1), s->text(2), s->text(3), parse_flag_kind(s->text(4)), s->text(5), s->text(6)});
  }
  return out;
}

std::optional<CachedBinary> Store::get_binary(std::string_view key) {
  auto s = db_.cached(
      "SELECT key, arch, compiler_version, options, cubin, log, compile_ms, created_at"
      " FROM binaries WHERE key = ?");
  if (!s->bind(1, key).step()) return std::nullopt;
  return CachedBinary{s->text(0), s->text(1), s->text(2),     s->text(3),
                      s->blob(4), s->text(5), s->opt_real(6), s->text(7)};
}

}  // namespace tune::store

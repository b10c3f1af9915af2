// Value helpers (names, sizes, samples, timestamps) and the Store's write operations.
#include "store/store.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

#include "store/json_check.h"

namespace tune::store {

namespace {

constexpr std::array kRunStatus = {"running", "completed", "interrupted", "failed"};
constexpr std::array kRunKind = {"gpu", "replay", "import"};
constexpr std::array kMeasurementStatus = {"ok",          "compile_failed",
                                           "launch_failed", "verification_failed",
                                           "restricted",  "timeout",
                                           "runtime_error"};
constexpr std::array kFlagKind = {"best_changes", "dip"};

template <class E, std::size_t N>
E parse_name(const std::array<const char*, N>& names, std::string_view s, const char* what) {
  for (std::size_t i = 0; i < N; ++i) {
    if (s == names[i]) return static_cast<E>(i);
  }
  std::string allowed;
  for (const char* n : names) allowed += (allowed.empty() ? "" : ", ") + std::string(n);
  throw InputError(std::string(what) + " \"" + std::string(s) + "\" is not one of " + allowed);
}

void require_json(std::string_view text, const char* what, bool object) {
  if (json_valid(text, object)) return;
  if (!json_valid(text)) {
    throw InputError(std::string(what) + " is not valid JSON: " + std::string(text.substr(0, 80)));
  }
  throw InputError(std::string(what) + " must be a JSON object: " + std::string(text.substr(0, 80)));
}

std::string or_now(const std::string& stamp) { return stamp.empty() ? utc_now() : stamp; }

}  // namespace

std::string_view to_string(RunStatus s) { return kRunStatus.at(static_cast<std::size_t>(s)); }
std::string_view to_string(RunKind k) { return kRunKind.at(static_cast<std::size_t>(k)); }
std::string_view to_string(MeasurementStatus s) {
  return kMeasurementStatus.at(static_cast<std::size_t>(s));
}
std::string_view to_string(FlagKind k) { return kFlagKind.at(static_cast<std::size_t>(k)); }

RunStatus parse_run_status(std::string_view s) {
  return parse_name<RunStatus>(kRunStatus, s, "run status");
}
RunKind parse_run_kind(std::string_view s) { return parse_name<RunKind>(kRunKind, s, "run kind"); }
MeasurementStatus parse_measurement_status(std::string_view s) {
  return parse_name<MeasurementStatus>(kMeasurementStatus, s, "measurement status");
}
FlagKind parse_flag_kind(std::string_view s) {
  return parse_name<FlagKind>(kFlagKind, s, "flag kind");
}

std::string utc_now() {
  using namespace std::chrono;
  auto now = system_clock::now();
  std::time_t t = system_clock::to_time_t(now);
  auto ms = duration_cast<milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::size_t n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms));
  return buf;
}

std::string canonical_params(const nlohmann::ordered_json& params) {
  if (!params.is_object()) {
    throw InputError("configuration parameters must be a JSON object, got " + params.dump());
  }
  return params.dump();
}

std::int64_t configuration_key(std::string_view kernel, std::string_view space_hash,
                               std::string_view params) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, 64 bits
  auto add = [&](std::string_view bytes) {
    for (unsigned char c : bytes) h = (h ^ c) * 0x100000001b3ULL;
  };
  add(kernel);
  add(std::string_view("\0", 1));
  add(space_hash);
  add(std::string_view("\0", 1));
  add(params);
  return static_cast<std::int64_t>(h);
}

std::string canonical_params(std::string_view params_json) {
  auto j = nlohmann::ordered_json::parse(params_json, nullptr, false);
  if (j.is_discarded()) {
    throw InputError("configuration parameters are not valid JSON: " + std::string(params_json));
  }
  return canonical_params(j);
}

// ---- ProblemSize ----------------------------------------------------------------------------

ProblemSize ProblemSize::parse(std::string_view text) {
  std::array<std::int64_t, 3> dims{1, 1, 1};
  std::size_t n = 0;
  std::string_view rest = text;
  while (true) {
    std::size_t cut = rest.find('x');
    std::string_view part = rest.substr(0, cut);
    std::int64_t v = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
    if (n == 3 || part.empty() || ec != std::errc() || end != part.data() + part.size() ||
        v < 1) {
      throw InputError("problem size \"" + std::string(text) +
                       "\" is not 1 to 3 positive integers joined by 'x' (e.g. 4096x2048)");
    }
    dims[n++] = v;
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 1);
  }
  if (n == 1) return of(dims[0]);
  if (n == 2) return of(dims[0], dims[1]);
  return of(dims[0], dims[1], dims[2]);
}

ProblemSize ProblemSize::of(std::int64_t x) { return {std::to_string(x), x, 1, 1}; }
ProblemSize ProblemSize::of(std::int64_t x, std::int64_t y) {
  return {std::to_string(x) + "x" + std::to_string(y), x, y, 1};
}
ProblemSize ProblemSize::of(std::int64_t x, std::int64_t y, std::int64_t z) {
  return {std::to_string(x) + "x" + std::to_string(y) + "x" + std::to_string(z), x, y, z};
}

// ---- samples --------------------------------------------------------------------------------

TimingSummary TimingSummary::of(const std::vector<float>& samples_ms) {
  if (samples_ms.empty()) throw Error("cannot summarise an empty list of timing samples");
  std::vector<double> v(samples_ms.begin(), samples_ms.end());
  std::sort(v.begin(), v.end());
  TimingSummary s;
  s.count = static_cast<std::int64_t>(v.size());
  std::size_t n = v.size();
  s.median = n % 2 == 1 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
  s.min = v.front();
  s.max = v.back();
  double sum = 0;
  for (double x : v) sum += x;
  s.mean = sum / static_cast<double>(n);
  double sq = 0;
  for (double x : v) sq += (x - s.mean) * (x - s.mean);
  s.stddev = n > 1 ? std::sqrt(sq / static_cast<double>(n - 1)) : 0.0;
  return s;
}

std::string samples_to_json(const std::vector<float>& samples_ms) {
  std::string out = "[";
  char buf[32];
  for (std::size_t i = 0; i < samples_ms.size(); ++i) {
    if (!std::isfinite(samples_ms[i])) {
      throw Error("timing sample " + std::to_string(i) + " is not a finite number");
    }
    auto [end, ec] = std::to_chars(buf, buf + sizeof buf, samples_ms[i]);  // shortest round-trip
    if (i > 0) out += ',';
    out.append(buf, end);
  }
  return out + "]";
}

std::vector<float> samples_from_json(std::string_view json) {
  auto bad = [&] { return Error("timing samples are not a JSON array of numbers: " +
                                std::string(json.substr(0, 80))); };
  auto trim = [](std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
  };
  json = trim(json);
  if (json.size() < 2 || json.front() != '[' || json.back() != ']') throw bad();
  std::string_view body = trim(json.substr(1, json.size() - 2));
  std::vector<float> out;
  if (body.empty()) return out;
  while (true) {  // an item is required after every comma: "[1,]" is refused
    std::size_t cut = body.find(',');
    std::string_view item = trim(body.substr(0, cut));
    float v = 0;
    // from_chars<float> rounds the decimal text straight to float: exact for what we wrote.
    auto [end, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (item.empty() || ec != std::errc() || end != item.data() + item.size()) throw bad();
    out.push_back(v);
    if (cut == std::string_view::npos) break;
    body.remove_prefix(cut + 1);
  }
  return out;
}

// ---- writes ---------------------------------------------------------------------------------

std::int64_t Store::begin_run(RunInfo info) {
  require_writable("begin a run");
  require_json(info.strategy_options, "strategy options", true);
  require_json(info.budget, "budget", false);
  auto s = db_.cached(
      "INSERT INTO runs (spec_path, spec_hash, kernel, device, compute_capability,"
      " driver_version, runtime_version, nvrtc_version, host, command_line, started_at,"
      " ended_at, strategy, strategy_options, budget, status, kind, notes)"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?) RETURNING id");
  s->bind_all(info.spec_path, info.spec_hash, info.kernel, info.device, info.compute_capability,
              info.driver_version, info.runtime_version, info.nvrtc_version, info.host,
              info.command_line, or_now(info.started_at), info.ended_at, info.strategy,
              info.strategy_options, info.budget, to_string(info.status), to_string(info.kind),
              info.notes);
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

std::int64_t Store::upsert_configuration(std::string_view kernel, std::string_view space_hash,
                                         const nlohmann::ordered_json& params) {
  require_writable("store a configuration");
  return upsert_configuration_canonical(kernel, space_hash, canonical_params(params));
}

std::int64_t Store::upsert_configuration_canonical(std::string_view kernel,
                                                   std::string_view space_hash,
                                                   std::string_view canonical) {
  require_writable("store a configuration");
  require_json(canonical, "configuration parameters", true);
  const std::int64_t key = configuration_key(kernel, space_hash, canonical);
  // The configuration with this key, if any; a different one with the same key is refused.
  auto find = [&]() -> std::optional<std::int64_t> {
    auto s = db_.cached("SELECT id, kernel, space_hash, params FROM configurations WHERE key = ?");
    if (!s->bind(1, key).step()) return std::nullopt;
    if (s->text(1) != kernel || s->text(2) != space_hash || s->text(3) != canonical) {
      throw Error("database " + path() + ": configuration " + std::string(canonical) + " of " +
                  std::string(kernel) + " has the same key (64-bit hash) as configuration " +
                  std::to_string(s->int64(0)) + ", " + s->text(3) + " of " + s->text(1) +
                  "; it cannot be stored");
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
    auto s = db_.cached("INSERT INTO configurations (kernel, space_hash, params, key)"
                        " VALUES (?,?,?,?) ON CONFLICT (key) DO NOTHING");
    s->bind_all(kernel, space_hash, canonical, key).run();
    if (db_.changes() == 1) return db_.last_insert_rowid();
  }
  if (auto id = find()) return *id;  // stored already (by us, or by another connection meanwhile)
  throw Error("database " + path() + ": configuration " + std::string(canonical) +
              " neither found nor inserted");
}

std::int64_t Store::upsert_configuration_text(std::string_view kernel,
                                              std::string_view space_hash,
                                              std::string_view params_json) {
  auto j = nlohmann::ordered_json::parse(params_json, nullptr, false);
  if (j.is_discarded()) {
    throw InputError("configuration parameters are not valid JSON: " + std::string(params_json));
  }
  return upsert_configuration(kernel, space_hash, j);
}

PreparedMeasurement prepare(Measurement m) {
  auto where = [&] {
    return "measurement of configuration " + std::to_string(m.config_id) + " on " + m.device +
           " at size " + m.size.text;
  };
  require_json(m.extra, "extra metrics", true);
  if (!m.summary && !m.samples_ms.empty()) m.summary = TimingSummary::of(m.samples_ms);
  if (m.status == MeasurementStatus::ok && !m.summary) {
    throw Error(where() + ": status ok needs timing samples or a summary");
  }
  if (!m.objective && m.summary && m.status == MeasurementStatus::ok) m.objective = m.summary->median;
  std::string samples = samples_to_json(m.samples_ms);
  return PreparedMeasurement{std::move(m), std::move(samples)};
}

std::int64_t Store::record(const Measurement& m) { return record(prepare(m)); }

std::int64_t Store::record(const PreparedMeasurement& p) {
  require_writable("record a measurement");
  const Measurement& m = p.m;
  if (m.device.empty() || m.size.text.empty()) {
    throw Error("measurement of configuration " + std::to_string(m.config_id) +
                ": device and size are required");
  }
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
  const std::string measured_at = or_now(m.measured_at);
  using sqlite::Borrowed;
  auto bind = [&](sqlite::Statement& s) {
    s.bind_all(m.config_id, m.run_id, Borrowed{m.device}, Borrowed{m.size.text}, m.size.x,
               m.size.y, m.size.z, Borrowed{to_string(m.status)}, Borrowed{m.error},
               Borrowed{p.samples_json}, summary ? summary->count : std::int64_t{0},
               opt(&TimingSummary::median), opt(&TimingSummary::mean), opt(&TimingSummary::min),
               opt(&TimingSummary::max), opt(&TimingSummary::stddev), m.objective, m.gbps,
               m.gflops, m.compile_ms, m.verification_ms, m.benchmark_ms, Borrowed{m.extra},
               m.eval_order, m.simulated_time_ms, m.strategy_time_ms,
               std::int64_t{m.replayed ? 1 : 0}, Borrowed{measured_at});
  };
  std::int64_t id = 0;
  {
    auto s = db_.cached(
        "INSERT INTO measurements (config_id, run_id, device, size, size_x, size_y, size_z,"
        " status, error, samples, sample_count, median_ms, mean_ms, min_ms, max_ms, stddev_ms,"
        " objective, gbps, gflops, compile_ms, verification_ms, benchmark_ms, extra, eval_order,"
        " simulated_time_ms, strategy_time_ms, replayed, measured_at)"
        " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
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
        " replayed = ?27, measured_at = ?28 WHERE config_id = ?1 AND device = ?3 AND size = ?4"
        " RETURNING id");
    bind(*s);
    id = s->returning_int64();
  }
  if (tx) tx->commit();
  return id;
}

void Store::record_ceiling(const Ceiling& c) {
  require_writable("record a ceiling");
  db_.cached("INSERT INTO ceilings (run_id, device, size, name, median_ms, gbps, gflops, samples,"
             " measured_at) VALUES (?,?,?,?,?,?,?,?,?)"
             " ON CONFLICT (run_id, device, size, name) DO UPDATE SET"
             " median_ms = excluded.median_ms, gbps = excluded.gbps, gflops = excluded.gflops,"
             " samples = excluded.samples, measured_at = excluded.measured_at")
      ->bind_all(c.run_id, c.device, c.size, c.name, c.median_ms, c.gbps, c.gflops,
                 samples_to_json(c.samples_ms), or_now(c.measured_at))
      .run();
}

void Store::record_flag(const Flag& f) {
  require_writable("record a flag");
  db_.cached("INSERT INTO flags (run_id, kernel, device, size, kind, text, created_at)"
             " VALUES (?,?,?,?,?,?,?)"
             " ON CONFLICT (kernel, device, size, kind, ifnull(run_id, 0)) DO UPDATE SET"
             " text = excluded.text, created_at = excluded.created_at")
      ->bind_all(f.run_id, f.kernel, f.device, f.size, to_string(f.kind), f.text,
                 or_now(f.created_at))
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

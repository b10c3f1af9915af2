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
  // accept() validates without building the document (record() calls this for every row).
  if (!nlohmann::json::accept(text)) throw InputError(std::string(what) + " is not valid JSON: " +
                                                      std::string(text.substr(0, 80)));
  const auto first = text.find_first_not_of(" \t\r\n");
  if (object && (first == std::string_view::npos || text[first] != '{')) {
    throw InputError(std::string(what) + " must be a JSON object: " +
                     std::string(text.substr(0, 80)));
  }
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
  const std::string find =
      "SELECT id FROM configurations WHERE kernel = ? AND space_hash = ? AND params = ?";
  {
    auto s = db_.cached(find);  // the common case (already there) takes no write lock
    if (s->bind_all(kernel, space_hash, canonical).step()) return s->int64(0);
  }
  {
    // One statement, atomic on its own inside or outside a transaction (no savepoint needed).
    auto s = db_.cached("INSERT INTO configurations (kernel, space_hash, params) VALUES (?,?,?)"
                        " ON CONFLICT DO NOTHING RETURNING id");
    if (s->bind_all(kernel, space_hash, canonical).step()) {
      std::int64_t id = s->int64(0);
      s->step();  // to the end: the insert (and outside a transaction its commit) completes
      return id;
    }
  }
  auto s = db_.cached(find);  // another connection inserted it between the two statements
  if (!s->bind_all(kernel, space_hash, canonical).step()) {
    throw Error("database " + path() + ": configuration " + std::string(canonical) +
                " neither found nor inserted");
  }
  return s->int64(0);
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

std::int64_t Store::record(const Measurement& m) {
  require_writable("record a measurement");
  auto where = [&] {
    return "measurement of configuration " + std::to_string(m.config_id) + " on " + m.device +
           " at size " + m.size.text;
  };
  if (m.device.empty() || m.size.text.empty()) {
    throw Error(where() + ": device and size are required");
  }
  require_json(m.extra, "extra metrics", true);
  std::optional<TimingSummary> summary = m.summary;
  if (!summary && !m.samples_ms.empty()) summary = TimingSummary::of(m.samples_ms);
  if (m.status == MeasurementStatus::ok && !summary) {
    throw Error(where() + ": status ok needs timing samples or a summary");
  }
  std::optional<double> objective = m.objective;
  if (!objective && summary && m.status == MeasurementStatus::ok) objective = summary->median;
  auto opt = [&](double TimingSummary::*field) -> std::optional<double> {
    return summary ? std::optional<double>((*summary).*field) : std::nullopt;
  };
  // One statement is atomic by itself: inside a Batch it needs no savepoint of its own (a
  // failure undoes only this statement); alone it is its own immediate transaction.
  std::optional<sqlite::Transaction> tx;
  if (!db_.in_transaction()) tx.emplace(db_);
  auto s = db_.cached(
      "INSERT INTO measurements (config_id, run_id, device, size, size_x, size_y, size_z,"
      " status, error, samples, sample_count, median_ms, mean_ms, min_ms, max_ms, stddev_ms,"
      " objective, gbps, gflops, compile_ms, verification_ms, benchmark_ms, extra, eval_order,"
      " simulated_time_ms, strategy_time_ms, replayed, measured_at)"
      " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
      " ON CONFLICT (config_id, device, size) DO UPDATE SET run_id = excluded.run_id,"
      " size_x = excluded.size_x, size_y = excluded.size_y, size_z = excluded.size_z,"
      " status = excluded.status, error = excluded.error, samples = excluded.samples,"
      " sample_count = excluded.sample_count, median_ms = excluded.median_ms,"
      " mean_ms = excluded.mean_ms, min_ms = excluded.min_ms, max_ms = excluded.max_ms,"
      " stddev_ms = excluded.stddev_ms, objective = excluded.objective, gbps = excluded.gbps,"
      " gflops = excluded.gflops, compile_ms = excluded.compile_ms,"
      " verification_ms = excluded.verification_ms, benchmark_ms = excluded.benchmark_ms,"
      " extra = excluded.extra, eval_order = excluded.eval_order,"
      " simulated_time_ms = excluded.simulated_time_ms,"
      " strategy_time_ms = excluded.strategy_time_ms, replayed = excluded.replayed,"
      " measured_at = excluded.measured_at"
      " RETURNING id");
  s->bind_all(m.config_id, m.run_id, m.device, m.size.text, m.size.x, m.size.y, m.size.z,
              to_string(m.status), m.error, samples_to_json(m.samples_ms),
              summary ? summary->count : std::int64_t{0}, opt(&TimingSummary::median),
              opt(&TimingSummary::mean), opt(&TimingSummary::min), opt(&TimingSummary::max),
              opt(&TimingSummary::stddev), objective, m.gbps, m.gflops, m.compile_ms,
              m.verification_ms, m.benchmark_ms, m.extra, m.eval_order, m.simulated_time_ms,
              m.strategy_time_ms, std::int64_t{m.replayed ? 1 : 0}, or_now(m.measured_at));
  std::int64_t id = s->returning_int64();
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

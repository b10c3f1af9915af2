// Value helpers: names, sizes, samples, timestamps, configuration keys (writes: store_write.cpp).
#include "store/store.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>

namespace tune::store {

namespace {

constexpr std::array kRunStatus = {"running", "completed", "interrupted", "failed"};
constexpr std::array kRunKind = {"gpu", "replay", "import"};
constexpr std::array kMeasurementStatus = {"ok",         "compile_failed", "launch_failed", "verification_failed",
                                           "restricted", "timeout",        "runtime_error"};
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

}  // namespace

std::string_view to_string(RunStatus s) { return kRunStatus.at(static_cast<std::size_t>(s)); }
std::string_view to_string(RunKind k) { return kRunKind.at(static_cast<std::size_t>(k)); }
std::string_view to_string(MeasurementStatus s) { return kMeasurementStatus.at(static_cast<std::size_t>(s)); }
std::string_view to_string(FlagKind k) { return kFlagKind.at(static_cast<std::size_t>(k)); }

RunStatus parse_run_status(std::string_view s) { return parse_name<RunStatus>(kRunStatus, s, "run status"); }
RunKind parse_run_kind(std::string_view s) { return parse_name<RunKind>(kRunKind, s, "run kind"); }
MeasurementStatus parse_measurement_status(std::string_view s) {
  return parse_name<MeasurementStatus>(kMeasurementStatus, s, "measurement status");
}
FlagKind parse_flag_kind(std::string_view s) { return parse_name<FlagKind>(kFlagKind, s, "flag kind"); }

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

void check_not_future(std::string_view stamp, const std::string& what) {
  using namespace std::chrono;
  constexpr auto kSkew = minutes(10);  // clocks of the hosts of one MPI job may differ this much
  const auto bound = system_clock::now() + kSkew;
  const std::time_t t = system_clock::to_time_t(bound);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S.999Z", &tm);
  // ISO 8601 UTC stamps compare as text; anything else (not a stamp tune writes) is left to the
  // schema's checks.
  if (stamp.size() >= 19 && stamp[4] == '-' && stamp.substr(0, 19) > std::string_view(buf).substr(0, 19))
    throw InputError(what + " is dated " + std::string(stamp) + ", later than now (" + utc_now() +
                     "): a timestamp in the future would win every later merge; refusing it");
}

std::string canonical_params(const nlohmann::ordered_json& params) {
  if (!params.is_object()) {
    throw InputError("configuration parameters must be a JSON object, got " + params.dump());
  }
  return params.dump();
}

std::int64_t configuration_key(std::string_view kernel, std::string_view space_hash, std::string_view params) {
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
  auto bad = [&] {
    return Error("timing samples are not a JSON array of numbers: " + std::string(json.substr(0, 80)));
  };
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

}  // namespace tune::store

#include "interop/online.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <fstream>

#include "common/error.h"
#include "interop/entry.h"

namespace tune::interop::detail {

namespace {

constexpr std::uintmax_t kMaxBytes = std::uintmax_t{16} << 20;
constexpr std::size_t kMaxCandidates = 1000, kMaxSamples = 100000, kMaxParameters = 1000, kMaxName = 1024;
constexpr int kMaxDepth = 8;
constexpr std::uint64_t kMaxRuleCount = 1000000;  // a rule's launches, samples, batch

// Does the file start with {"format": "tune-online" (whitespace aside)?
bool starts_as_online(const std::filesystem::path& path) {
  std::ifstream f(path, std::ios::binary);
  char head[256] = {};
  f.read(head, sizeof head);
  std::string compact;
  for (std::streamsize i = 0; i < f.gcount(); ++i)
    if (!std::isspace(static_cast<unsigned char>(head[i]))) compact += head[i];
  return compact.rfind(R"({"format":"tune-online")", 0) == 0;
}

double median_of(std::vector<double> s) {
  std::sort(s.begin(), s.end());
  const std::size_t n = s.size();
  return n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

}  // namespace

std::optional<OnlineFile> read_online(const std::filesystem::path& path) {
  const std::string file = path.string();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec) || !starts_as_online(path)) return std::nullopt;
  auto bad = [&](const std::string& why) { return InputError(file + ": tune-online file: " + why); };
  if (std::filesystem::file_size(path, ec) > kMaxBytes) throw bad("larger than 16 MiB");
  const std::string text = read_bytes(path, kMaxBytes);
  ojson j;
  try {
    j = ojson::parse(text, [&](int depth, ojson::parse_event_t, ojson&) {
      if (depth > kMaxDepth) throw bad("JSON nested deeper than 8 levels");
      return true;
    });
  } catch (const ojson::exception& e) {
    throw bad(std::string("not valid JSON: ") + e.what());
  }
  if (j.value("version", ojson()) != 1) throw bad("version " + j.value("version", ojson()).dump() + ", this reads 1");
  auto name = [&](const char* key) {
    const ojson& v = j.value(key, ojson());
    if (!v.is_string() || v.get_ref<const std::string&>().empty() || v.get_ref<const std::string&>().size() > kMaxName)
      throw bad(std::string("'") + key + "' is not a name of 1..1024 bytes");
    return v.get<std::string>();
  };
  OnlineFile out;
  const std::string kernel = name("kernel_name"), device = name("device_name");
  out.space_hash = name("space_hash");
  if (out.space_hash.size() != 32 || out.space_hash.find_first_not_of("0123456789abcdef") != std::string::npos)
    throw bad("'space_hash' is not 32 hex digits");
  const ojson& size = j.value("problem_size", ojson());
  if (!size.is_array() || size.empty() || size.size() > 3) throw bad("'problem_size' is not a list of 1..3 extents");
  for (const auto& d : size)
    if (!d.is_number_unsigned() || d.get<std::uint64_t>() < 1 || d.get<std::uint64_t>() > (1ull << 40))
      throw bad("'problem_size' holds an extent that is not a whole number in 1..2^40");
  const ojson& params = j.value("parameters", ojson());
  const ojson& values = j.value("tune_params", ojson());
  if (!params.is_array() || params.empty() || params.size() > kMaxParameters || !values.is_object())
    throw bad("'parameters' is not a list of 1..1000 names with their 'tune_params' values");
  std::vector<std::string> names;
  for (const auto& p : params) {
    if (!p.is_string() || !values.contains(p.get<std::string>()) || !values[p.get<std::string>()].is_array())
      throw bad("parameter " + p.dump() + " has no list of values in 'tune_params'");
    names.push_back(p.get<std::string>());
  }
  const ojson& rule = j.value("rule", ojson());
  const ojson statistic = rule.is_object() ? rule.value("statistic", ojson()) : ojson();
  if (statistic != "min" && statistic != "median")
    throw bad("'rule' states neither \"min\" nor \"median\" as its statistic");
  const bool by_min = statistic == "min";
  // Only the rule's known fields are kept, each a bounded number.
  ojson kept_rule = {{"statistic", statistic}};
  for (const char* field : {"launches", "min_samples", "finalists", "batch", "placements"}) {
    if (!rule.contains(field)) continue;
    const ojson& v = rule[field];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() > kMaxRuleCount)
      throw bad(std::string("'rule' field '") + field + "' is not a whole number in 0.." +
                std::to_string(kMaxRuleCount));
    kept_rule[field] = v;
  }
  // whether the samples were batches behind a hold on scratch buffers, and those held copies of the inputs
  for (const char* field : {"held", "inputs_copied"}) {
    if (!rule.contains(field)) continue;
    if (!rule[field].is_boolean()) throw bad(std::string("'rule' field '") + field + "' is not true or false");
    kept_rule[field] = rule[field];
  }
  if (rule.contains("pick_margin")) {
    const ojson& v = rule["pick_margin"];
    if (!v.is_number() || !(v.get<double>() >= 0 && v.get<double>() <= 1))
      throw bad("'rule' field 'pick_margin' is not a number in 0..1");
    kept_rule["pick_margin"] = v;
  }
  const ojson& candidates = j.value("candidates", ojson());
  if (!candidates.is_array() || candidates.empty() || candidates.size() > kMaxCandidates)
    throw bad("'candidates' is not a list of 1..1000");
  const ojson& winner = j.value("winner", ojson());
  if (!winner.is_number_unsigned() || winner.get<std::uint64_t>() >= candidates.size())
    throw bad("'winner' is not a candidate's index");

  const ojson& cc = j.value("compute_capability", ojson());
  if (!cc.is_null() && !(cc.is_array() && cc.size() == 2 && cc[0].is_number_unsigned() && cc[1].is_number_unsigned() &&
                         cc[0].get<std::uint64_t>() < 100 && cc[1].get<std::uint64_t>() < 100))
    throw bad("'compute_capability' is not [major, minor], each a whole number below 100");
  const ojson& extra = j.value("extra_ms", ojson());
  if (!extra.is_null() && !(extra.is_number() && std::isfinite(extra.get<double>()) && extra.get<double>() >= 0))
    throw bad("'extra_ms' is not a finite time >= 0");

  CacheFile& c = out.cache;
  c.path = path;
  c.header["kernel_name"] = kernel;
  c.header["device_name"] = device;
  c.header["problem_size"] = size;
  c.header["tune_params_keys"] = params;
  c.header["tune_params"] = values;
  c.header["objective"] = "time";
  c.header["tune_online"] = {{"space_hash", out.space_hash},
                             {"compute_capability", cc},
                             {"rule", kept_rule},
                             {"winner", winner},
                             {"extra_ms", extra}};
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const std::string at = "candidates[" + std::to_string(i) + "]";
    const ojson& cand = candidates[i];
    if (!cand.is_object() || !cand.value("values", ojson()).is_array() || cand["values"].size() != names.size())
      throw bad(at + " does not hold one value per parameter");
    const ojson& samples = cand.value("samples_ms", ojson());
    if (!samples.is_array() || samples.size() > kMaxSamples)
      throw bad(at + ": 'samples_ms' is not a list of 0..100000 times");
    if (samples.empty()) {  // its events failed: nothing measured, nothing stored
      if (i == winner.get<std::uint64_t>()) throw bad("'winner' has no samples");
      continue;
    }
    std::vector<double> ms;
    for (const auto& s : samples) {
      if (!s.is_number() || !std::isfinite(s.get<double>()) || s.get<double>() < 0)
        throw bad(at + ": a sample is not a finite time >= 0");
      ms.push_back(s.get<double>());
    }
    ojson entry = ojson::object();
    for (std::size_t p = 0; p < names.size(); ++p) entry[names[p]] = cand["values"][p];
    const std::string key = cache_key(entry);
    entry["time"] = by_min ? *std::min_element(ms.begin(), ms.end()) : median_of(ms);  // the rule's statistic
    entry["times"] = samples;
    c.entries.push_back({key, std::move(entry)});
  }
  return out;
}

}  // namespace tune::interop::detail

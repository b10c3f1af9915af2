// Helpers of the header tests: commands, and Kernel Tuner caches of the transpose space written
// the way Kernel Tuner writes them, with any device and kernel name.
#pragma once
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "spec/spec.h"

namespace tune::header::testing {

// Runs `cmd` with stderr joined to stdout; the output, or "FAILED(rc): cmd\n" + output.
inline std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int rc = ::pclose(p);
  if (rc != 0) out = "FAILED(" + std::to_string(rc) + "): " + cmd + "\n" + out;
  return out;
}

inline std::string nvcc() {
  return std::filesystem::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
}

inline std::string source_dir() { return TUNE_SOURCE_DIR; }

struct CacheEntry {
  std::vector<long long> values;  // in the spec's parameter order
  double time_ms = 0;
};

// A Kernel Tuner cache (version 1.x layout) of `spec`'s parameters at one size.
inline void write_cache(const std::filesystem::path& path, const spec::Spec& spec, const std::string& device,
                        const std::string& kernel, long long x, long long y, const std::vector<CacheEntry>& entries) {
  nlohmann::ordered_json h;
  h["device_name"] = device;
  h["kernel_name"] = kernel;
  h["problem_size"] = {x, y};
  h["tune_params_keys"] = nlohmann::ordered_json::array();
  h["tune_params"] = nlohmann::ordered_json::object();
  for (const auto& p : spec.parameters) {
    h["tune_params_keys"].push_back(p.name);
    for (const auto& v : p.values) h["tune_params"][p.name].push_back(v.as_int());
  }
  h["objective"] = "time";
  h["cache"] = nlohmann::ordered_json::object();
  for (const auto& e : entries) {
    std::string key;
    nlohmann::ordered_json entry;
    for (std::size_t i = 0; i < e.values.size(); ++i) {
      if (i > 0) key += ',';
      key += std::to_string(e.values[i]);
      entry[spec.parameters[i].name] = e.values[i];
    }
    entry["time"] = e.time_ms;
    entry["times"] = {e.time_ms, e.time_ms, e.time_ms};
    entry["compile_time"] = 1.0;
    entry["verification_time"] = 0;
    entry["benchmark_time"] = 1.0;
    entry["strategy_time"] = 0;
    entry["framework_time"] = 0;
    entry["timestamp"] = "2026-11-21 10:00:00.000000+00:00";
    h["cache"][key] = entry;
  }
  std::ofstream(path) << h.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

// Two valid configurations of spaces/transpose.json: its Defaults (32x8 threads, 4 rows each) and
// 16x16 threads moving 2 floats x 2 rows.
inline const std::vector<long long> kDefaults = {32, 8, 4, 1, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1};
inline const std::vector<long long> kSixteen = {16, 16, 2, 2, 1, 1, 0, 1, 0, 0, 0, 1, 1, 1};

}  // namespace tune::header::testing

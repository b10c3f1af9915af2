// Helpers shared by the interop tests: the real third-party files in data/, read independently of
// the code under test (gzip -dc, plain nlohmann parsing), and the `tune` binary beside the tests.
#pragma once
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/test_data.h"
#include "store/test_util.h"

namespace tune::interop::testing {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;
using store::testing::TempDir;

// Every third-party Kernel Tuner cache in data/, relative to it.
inline const std::vector<std::string> kCaches = {
    "kernel_tuner/test/test_cache_file.json",        "kernel_tuner/test/strategies_test_cache_file.json",
    "benchmark_hub/convolution_milo/A100.json.gz",   "benchmark_hub/convolution_milo/A4000.json.gz",
    "benchmark_hub/convolution_milo/MI250X.json.gz", "benchmark_hub/dedispersion_milo/A100.json.gz",
    "benchmark_hub/dedispersion_milo/A4000.json.gz", "benchmark_hub/dedispersion_milo/MI250X.json.gz",
};

// A third-party file of data/ (test_data::file: a missing one is an error that names it).
inline std::string external(const std::string& relative) { return test_data::file(relative).string(); }

// The file's text, decompressed by gzip(1) when it is compressed: not by the code under test.
inline std::string raw_text(const std::string& path) {
  if (path.size() < 3 || path.substr(path.size() - 3) != ".gz") return store::testing::read_bytes(path);
  std::string text;
  FILE* pipe = ::popen(("gzip -dc '" + path + "'").c_str(), "r");
  if (pipe == nullptr) return text;
  char buf[65536];
  for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, pipe)) > 0;) text.append(buf, n);
  ::pclose(pipe);
  return text;
}

inline ojson raw_json(const std::string& path) { return ojson::parse(raw_text(path)); }

struct Shell {
  int code = -1;
  std::string out, err;
};

// Runs a shell command, capturing stdout and stderr.
inline Shell shell(const std::string& command) {
  static int n = 0;
  fs::path err =
      fs::temp_directory_path() / ("tune_interop_err_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  Shell r;
  FILE* p = ::popen((command + " 2>" + err.string()).c_str(), "r");
  char buf[4096];
  while (p != nullptr && std::fgets(buf, sizeof buf, p) != nullptr) r.out += buf;
  int status = p != nullptr ? ::pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.err = store::testing::read_bytes(err.string());
  fs::remove(err);
  return r;
}

// The `tune` binary of this build (build/tune beside build/tuner/test_interop), or "".
inline std::string tune_binary() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return "";
  fs::path bin = self.parent_path().parent_path() / "tune";
  return fs::exists(bin) ? bin.string() : "";
}

}  // namespace tune::interop::testing

// What the front-door tests share: the tune binary (TUNE_TEST_BINARY runs them against another
// build, e.g. to check that a test fails on an older tune), run through the shell with its
// stdout and stderr apart, and the sweep recorded in the repository.
#pragma once
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace tune::cli::testing {

inline std::string tune_binary() {
  const char* other = std::getenv("TUNE_TEST_BINARY");
  return other != nullptr && *other != 0 ? other : TUNE_BINARY;
}

// Commands run from the repository's root, as a new user types them: paths relative to it.
inline const std::string kSource = TUNE_SOURCE_DIR;
inline const std::string kTranspose = "spaces/transpose.json";
inline const std::string kRecorded = "results/recorded/transpose";

struct Ran {
  int code = -1;
  std::string out, err;
  std::vector<std::string> out_lines() const { return lines(out); }
  std::vector<std::string> err_lines() const { return lines(err); }
  static std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
  }
};

// `tune ARGS` at a 100-column terminal (COLUMNS=100, a UTF-8 locale), from `dir` (default: the
// repository's root).
inline Ran run(const std::string& args, const std::string& dir = kSource) {
  static int n = 0;
  const auto base =
      std::filesystem::temp_directory_path() / ("tune_front_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  const std::string cd = "cd '" + dir + "' && ";
  const std::string cmd = cd + "COLUMNS=100 LC_ALL=C.UTF-8 " + tune_binary() + " " + args + " >" + base.string() +
                          ".out 2>" + base.string() + ".err";
  const int status = std::system(cmd.c_str());
  Ran r;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  for (auto [path, text] : {std::pair{base.string() + ".out", &r.out}, std::pair{base.string() + ".err", &r.err}}) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    *text = ss.str();
    std::filesystem::remove(path);
  }
  return r;
}

// Two recorded caches of the transpose sweep, as arguments.
inline std::string two_caches() { return kRecorded + "/128x128.json.gz " + kRecorded + "/256x256.json.gz"; }

}  // namespace tune::cli::testing

// A real `tune` process for the CLI tests: started through sh (with a prefix such as `env VAR=1` or
// `timeout 20`), its stdout and stderr in files.
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

namespace tune::cli::testing {

// The tune binary under test: TUNE_TEST_BINARY runs the tests against another build (to see a test
// fail on an older tune).
inline std::string binary() {
  const char* other = std::getenv("TUNE_TEST_BINARY");
  return other != nullptr && *other != 0 ? other : TUNE_BINARY;
}

// A `tune` process started through sh, its stdout and stderr in files.
struct Process {
  pid_t pid = -1;
  std::filesystem::path out, err;

  // `prefix`: a command that runs tune (env VAR=value, timeout SECONDS)
  Process(const std::string& args, const std::filesystem::path& dir, const std::string& name,
          const std::string& prefix = "")
      : out(dir / (name + ".out")), err(dir / (name + ".err")) {
    const std::string cmd = "exec " + prefix + " " + binary() + " " + args + " >" + out.string() + " 2>" + err.string();
    pid = ::fork();
    if (pid == 0) {
      ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
      ::_exit(127);
    }
  }
  int wait() const {
    int status = 0;
    ::waitpid(pid, &status, 0);
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  }
  std::string text(const std::filesystem::path& p) const {
    std::ifstream in(p);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  }
};

}  // namespace tune::cli::testing

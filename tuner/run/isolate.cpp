#include "run/isolate.h"

#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <sys/wait.h>
#include <csignal>

#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"
#include "common/spawn.h"

namespace tune::run {

int worker_generation() {
  const char* value = std::getenv(kWorkerEnv);
  if (value == nullptr || *value == '\0') return -1;
  char* end = nullptr;
  const long g = std::strtol(value, &end, 10);
  return (*end == '\0' && g >= 0 && g < 1000000) ? static_cast<int>(g) : -1;
}

namespace {

// The supervisor's process id, in its workers' environment.
constexpr const char* kSupervisorEnv = "TUNE_RUN_SUPERVISOR";

}  // namespace

void die_with_supervisor() {
  if (worker_generation() < 0) return;
  const char* text = std::getenv(kSupervisorEnv);
  if (text == nullptr) return;
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  // the supervisor may have died before the line above: then this process has another parent
  if (::getppid() != static_cast<pid_t>(std::atol(text))) std::_Exit(128 + SIGKILL);
}

namespace {

// Runs one worker to completion; returns its exit status (128 + signal when killed).
int run_worker(const std::vector<std::string>& argv, int generation, const WorkerSetup& setup) {
  std::vector<std::string> set = {std::string(kWorkerEnv) + "=" + std::to_string(generation),
                                  std::string(kSupervisorEnv) + "=" + std::to_string(::getpid())};
  set.insert(set.end(), setup.env.begin(), setup.env.end());
  SpawnActions actions;
  if (!setup.stdout_path.empty()) actions.open(1, setup.stdout_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  const Spawned child = spawn(argv, set, actions);
  if (child.error != 0) throw Error("cannot start worker process '" + argv[0] + "': " + std::strerror(child.error));
  int status = 0;
  while (waitpid(child.pid, &status, 0) < 0) {
    if (errno != EINTR) throw Error(std::string("waiting for worker process: ") + std::strerror(errno));
  }
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return 1;
}

}  // namespace

Supervised supervise(const std::vector<std::string>& argv, int max_workers) {
  return supervise(argv, WorkerSetup{}, max_workers);
}

Supervised supervise(const std::vector<std::string>& argv, const WorkerSetup& setup, int max_workers) {
  if (argv.empty() || argv[0].empty()) throw Error("supervise: no program to run");
  if (max_workers < 1) throw Error("supervise: max_workers must be at least 1");
  Supervised result;
  do {
    result.exit_code = run_worker(argv, result.workers, setup);
    ++result.workers;
  } while (result.exit_code == kDeviceLostExitCode && result.workers < max_workers);
  return result;
}

}  // namespace tune::run

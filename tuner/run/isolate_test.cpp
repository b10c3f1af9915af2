// supervise(): the test binary starts itself as the worker (a test case that only acts when
// TUNE_RUN_WORKER is set) and checks the restart protocol. No GPU needed.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <csignal>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "run/isolate.h"

namespace tune::run {
namespace {

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// The worker: appends its generation to the log, then asks for a fresh process until generation
// TUNE_RUN_TEST_STOP, where it exits with TUNE_RUN_TEST_FINAL (0 when unset).
TEST(SupervisedWorker, Run) {
  const char* log = std::getenv("TUNE_RUN_TEST_LOG");
  const int g = worker_generation();
  if (g < 0 || log == nullptr) GTEST_SKIP() << "runs only as the worker started by Supervise.*";
  std::ofstream(log, std::ios::app) << g << "\n";
  if (g < std::atoi(std::getenv("TUNE_RUN_TEST_STOP"))) std::exit(kDeviceLostExitCode);
  if (const char* final = std::getenv("TUNE_RUN_TEST_FINAL")) std::exit(std::atoi(final));
}

// The worker of Supervise.AWorkerEndsWithItsSupervisor: follows its supervisor, says its process
// id, and waits to be ended.
TEST(SupervisedWorker, Waits) {
  const char* log = std::getenv("TUNE_RUN_TEST_WAIT_LOG");
  if (worker_generation() < 0 || log == nullptr) GTEST_SKIP() << "runs only as the worker started by Supervise.*";
  die_with_supervisor();
  std::ofstream(log) << getpid() << "\n";
  sleep(60);
  std::exit(0);
}

class Supervise : public ::testing::Test {
 protected:
  void SetUp() override {
    if (worker_generation() >= 0) GTEST_SKIP() << "this process is a worker";
    log_ = std::filesystem::temp_directory_path() / ("tune_run_supervise_" + std::to_string(getpid()) + ".log");
    std::filesystem::remove(log_);
    setenv("TUNE_RUN_TEST_LOG", log_.c_str(), 1);
  }
  void TearDown() override {
    unsetenv("TUNE_RUN_TEST_LOG");
    unsetenv("TUNE_RUN_TEST_STOP");
    unsetenv("TUNE_RUN_TEST_FINAL");
    std::filesystem::remove(log_);
  }
  static Supervised run(int max_workers = 1000) {
    return supervise({"/proc/self/exe", "--gtest_filter=SupervisedWorker.Run", "--gtest_brief=1"}, max_workers);
  }
  std::filesystem::path log_;
};

// A supervisor killed with SIGKILL takes its worker with it (no orphan goes on using the GPU).
TEST_F(Supervise, AWorkerEndsWithItsSupervisor) {
  const auto log = log_.string() + ".wait";
  std::filesystem::remove(log);
  setenv("TUNE_RUN_TEST_WAIT_LOG", log.c_str(), 1);
  const pid_t supervisor = fork();
  ASSERT_GE(supervisor, 0);
  if (supervisor == 0) {
    supervise({"/proc/self/exe", "--gtest_filter=SupervisedWorker.Waits", "--gtest_brief=1"});
    std::_Exit(0);
  }
  unsetenv("TUNE_RUN_TEST_WAIT_LOG");
  pid_t worker = 0;
  for (int i = 0; i < 500 && worker == 0; ++i) {  // up to 10 s for the worker to start
    usleep(20000);
    std::ifstream in(log);
    in >> worker;
  }
  ASSERT_GT(worker, 0) << "the worker did not start";
  ASSERT_EQ(kill(supervisor, SIGKILL), 0);
  ASSERT_EQ(waitpid(supervisor, nullptr, 0), supervisor);
  // gone, or a zombie nobody has reaped yet: not running
  auto running = [&] {
    const std::string stat = read_file("/proc/" + std::to_string(worker) + "/stat");
    const auto close = stat.rfind(')');
    return !stat.empty() && close != std::string::npos && stat.size() > close + 2 && stat[close + 2] != 'Z' &&
           stat[close + 2] != 'X';
  };
  for (int i = 0; i < 250 && running(); ++i) usleep(20000);
  EXPECT_FALSE(running()) << "worker " << worker << " outlived its supervisor";
  if (running()) kill(worker, SIGKILL);
  std::filesystem::remove(log);
}

TEST_F(Supervise, RestartsWorkersThatAskForAFreshProcess) {
  EXPECT_EQ(worker_generation(), -1);
  setenv("TUNE_RUN_TEST_STOP", "2", 1);
  const Supervised r = run();
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.workers, 3);
  EXPECT_EQ(read_file(log_), "0\n1\n2\n");
}

TEST_F(Supervise, StopsAtMaxWorkers) {
  setenv("TUNE_RUN_TEST_STOP", "5", 1);
  const Supervised r = run(2);
  EXPECT_EQ(r.exit_code, kDeviceLostExitCode);
  EXPECT_EQ(r.workers, 2);
  EXPECT_EQ(read_file(log_), "0\n1\n");
}

TEST_F(Supervise, OtherExitCodesEndTheSupervision) {
  setenv("TUNE_RUN_TEST_STOP", "1", 1);
  setenv("TUNE_RUN_TEST_FINAL", "3", 1);
  const Supervised r = run();
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.workers, 2);
  EXPECT_EQ(read_file(log_), "0\n1\n");
}

TEST_F(Supervise, AProgramThatCannotStartIsAnError) {
  try {
    supervise({"/nonexistent/tune-worker"});
    FAIL() << "no exception";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot start worker process '/nonexistent/tune-worker'"), std::string::npos)
        << e.what();
  }
  EXPECT_THROW(supervise({}), Error);
}

}  // namespace
}  // namespace tune::run

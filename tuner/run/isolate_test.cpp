// supervise(): the test binary starts itself as the worker (a test case that only acts when
// TUNE_RUN_WORKER is set) and checks the restart protocol. No GPU needed.
#include <gtest/gtest.h>

#include <unistd.h>

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

#include "run/blas.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "common/spawn.h"
#include "run/ceilings.h"

namespace tune::run {
namespace {

// Whether a file named `name` is mapped into this process.
bool mapped(const std::string& name) {
  std::ifstream maps("/proc/self/maps");
  for (std::string line; std::getline(maps, line);)
    if (line.find("/" + name) != std::string::npos) return true;
  return false;
}

// The entry point of a fresh process that touches nothing (Blas.LoadedOnFirstUseOnly starts it):
// cuBLAS must not be in it. In a process that ran other tests first it proves nothing: skipped.
TEST(BlasWorker, NotMappedAtStart) {
  if (std::getenv("TUNE_BLAS_WORKER") == nullptr) GTEST_SKIP() << "a worker of Blas.LoadedOnFirstUseOnly";
  EXPECT_FALSE(mapped(blas_library())) << "cuBLAS mapped at start";
}

}  // namespace

// A process of this binary that never asks for cuBLAS does not map it (it did when linked: 0.13 s
// and 218 MB at every start); the first ceiling's call loads it, and its functions answer without
// a GPU.
TEST(Blas, LoadedOnFirstUseOnly) {
  const Spawned child = spawn({"/proc/self/exe", "--gtest_filter=BlasWorker.NotMappedAtStart", "--gtest_brief=1"},
                              {"TUNE_BLAS_WORKER=1"});
  ASSERT_EQ(child.error, 0);
  int status = 0;
  ASSERT_EQ(waitpid(child.pid, &status, 0), child.pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "a fresh process of this binary mapped " << blas_library();

  const BlasApi& api = blas();
  EXPECT_TRUE(mapped(blas_library()));
  EXPECT_EQ(&api, &blas());  // loaded once
  EXPECT_STREQ(api.status_name(CUBLAS_STATUS_NOT_INITIALIZED), "CUBLAS_STATUS_NOT_INITIALIZED");
  EXPECT_NE(describe(CUBLAS_STATUS_INVALID_VALUE).find("CUBLAS_STATUS_INVALID_VALUE ("), std::string::npos);
  EXPECT_EQ(blas_library(), "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR));
}

// A library that is not there is one error naming it, where it was looked for and what to do; a
// library without cuBLAS's functions names the first one missing.
TEST(Blas, AMissingLibraryIsOneErrorNamingIt) {
  EXPECT_EQ(blas_load_error(blas_library(), ""), "");
  const std::string missing = blas_load_error("libcublas.so.999", "/nonexistent/cuda/lib64");
  EXPECT_NE(missing.find("cuBLAS (libcublas.so.999) could not be loaded"), std::string::npos) << missing;
  EXPECT_NE(missing.find("/nonexistent/cuda/lib64/libcublas.so.999"), std::string::npos) << missing;
  EXPECT_NE(missing.find("LD_LIBRARY_PATH"), std::string::npos) << missing;
  EXPECT_EQ(blas_load_error("libm.so.6", ""), "libm.so.6 has no function cublasCreate_v2");
}

}  // namespace tune::run

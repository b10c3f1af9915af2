// A fresh temporary folder for one test, removed with everything in it when the test ends.
#pragma once
#include <stdlib.h>

#include <filesystem>
#include <string>

namespace tune::testing {

struct TestDir {
  std::filesystem::path path;
  explicit TestDir(const std::string& prefix = "tune_test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "_XXXXXX")).string();
    path = ::mkdtemp(pattern.data());
  }
  ~TestDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;
};

}  // namespace tune::testing

// Where the tests find their data: the checkout (TUNE_SOURCE_DIR, defined on the test binaries
// alone) and its data/ folder, which holds every third-party file a test reads (Kernel Tuner, BAT
// and benchmark_hub specs and caches; data/PROVENANCE.md). Tests read nothing outside the checkout.
#pragma once
#include <filesystem>
#include <stdexcept>
#include <string>

#ifndef TUNE_SOURCE_DIR
#error "common/test_data.h is for test binaries: they define TUNE_SOURCE_DIR (tuner/CMakeLists.txt)"
#endif

namespace tune::test_data {

// The checkout the tests were built from.
inline std::filesystem::path source_dir() { return std::filesystem::path(TUNE_SOURCE_DIR); }

// data/ of the checkout.
inline std::filesystem::path dir() { return source_dir() / "data"; }

// A file under data/ (e.g. "bat/GEMM-CAFF.json"). The data is part of the repository, so a missing
// file is an error that names it, never a reason to skip.
inline std::filesystem::path file(const std::string& relative) {
  std::filesystem::path p = dir() / relative;
  if (!std::filesystem::exists(p))
    throw std::runtime_error(p.string() + ": test data file is missing (it is tracked in the repository: data/)");
  return p;
}

}  // namespace tune::test_data

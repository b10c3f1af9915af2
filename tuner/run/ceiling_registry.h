// Measuring a ceiling by its name (spec/ceilings.h): the sweep asks for every name of
// Tune.ceilings at every size through here.
#pragma once
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "run/ceilings.h"
#include "run/compute_ceilings.h"

namespace tune::run {

// What a ceiling may need of a size.
struct CeilingArgs {
  double bytes = 0;                          // Tune.bytes at the size
  std::array<std::size_t, 3> dims{1, 1, 1};  // ProblemSize
};

// The ceilings of one run: the kernels some of them need, compiled on first use.
class CeilingRegistry {
 public:
  explicit CeilingRegistry(Session& session) : session_(session) {}
  // Starts what the named ceilings will need that takes time off the device (their kernels'
  // compiles, the cuBLAS handle), so that it is done when they are measured.
  void prepare(const std::vector<std::string>& names);
  // Whether what prepare() started for the named ceiling is done, so that measuring it now keeps
  // the device busy rather than waiting on the CPU (an unknown name: true; measure() says why).
  bool ready(std::string_view name);
  // Throws InputError for an unknown name; CudaError as the ceiling functions do.
  Ceiling measure(std::string_view name, const CeilingArgs& args, const TimingOptions& options);

 private:
  Session& session_;
  std::unique_ptr<CeilingKernels> kernels_;
};

}  // namespace tune::run

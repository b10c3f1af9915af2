// Run-time compilation of one kernel configuration to a cubin (SASS) with NVRTC.
// A compile error is a CompileResult holding NVRTC's log, never an exception; only misuse
// (an unknown target, NVRTC unable to work at all) throws.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "compile/resources.h"

namespace tune::compile {

struct CompileRequest {
  std::string source;       // the program text
  std::string source_name;  // shown in diagnostics, e.g. "kernels_src/transpose.cu"
  std::string kernel_name;  // a name expression: "transpose" (extern "C") or "k<float>"
  std::vector<std::pair<std::string, std::string>> defines;  // in order: -D name=value
  std::vector<std::string> options;                          // further NVRTC options, e.g. a spec's CompilerOptions
  std::string arch = "sm_90";                                // a real target (sm_XX[a|f]), so that a cubin comes out
  std::uint64_t tag = 0;                                     // the caller's id, copied into the result
};

enum class Status { ok, compile_failed };

struct CompileResult {
  Status status = Status::compile_failed;
  std::string cubin;         // ELF bytes for cuModuleLoadData (empty unless ok)
  std::string lowered_name;  // the kernel's symbol in the cubin (unless failed)
  std::string log;           // NVRTC's log: diagnostics, then ptxas' verbose report
  double wall_ms = 0.0;      // NVRTC program creation, compilation and cubin retrieval
  Resources resources;       // from ptxas' report; parsed == false when it had none
  std::uint64_t tag = 0;     // CompileRequest::tag

  bool ok() const { return status == Status::ok; }
};

// NVRTC's options for a request, in order: the target, the ptxas report, the defines, the
// request's own options.
std::vector<std::string> nvrtc_options(const CompileRequest& request);

// Compiles one request. Throws tune::InputError for a target that is not sm_XX and
// tune::UnavailableError when NVRTC cannot run (no builtins library, out of memory).
CompileResult compile(const CompileRequest& request);

// The NVRTC library's version, e.g. "13.0".
std::string nvrtc_version();

// A stable key for the compiled-binary cache: source text, options (target and defines
// included), kernel name and compiler version. Source name and tag do not enter it.
std::string cache_key(const CompileRequest& request, std::string_view nvrtc_version);

}  // namespace tune::compile

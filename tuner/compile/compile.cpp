#include "compile/compile.h"

#include <nvrtc.h>

#include <chrono>
#include <string>
#include <utility>

#include "common/error.h"
#include "common/hash.h"

namespace tune::compile {

namespace {

std::string describe(const CompileRequest& req) { return req.source_name + " (kernel " + req.kernel_name + ")"; }

// Owns one nvrtcProgram.
class Program {
 public:
  Program(const CompileRequest& req) {
    const nvrtcResult r = nvrtcCreateProgram(&prog_, req.source.c_str(), req.source_name.c_str(), 0, nullptr, nullptr);
    if (r != NVRTC_SUCCESS)
      throw UnavailableError(describe(req) + ": nvrtcCreateProgram failed: " + nvrtcGetErrorString(r));
  }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  ~Program() {
    if (prog_ != nullptr) nvrtcDestroyProgram(&prog_);
  }
  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(prog_, &size) != NVRTC_SUCCESS || size == 0) return {};
    std::string text(size, '\0');
    if (nvrtcGetProgramLog(prog_, text.data()) != NVRTC_SUCCESS) return {};
    std::erase(text, '\0');  // NVRTC puts a NUL between its own and ptxas' messages
    return text;
  }

 private:
  nvrtcProgram prog_ = nullptr;
};

bool real_target(std::string_view arch) {
  if (arch.substr(0, 3) != "sm_" || arch.size() < 5) return false;
  std::size_t i = 3;
  while (i < arch.size() && arch[i] >= '0' && arch[i] <= '9') ++i;
  if (i < 5) return false;
  const std::string_view suffix = arch.substr(i);
  return suffix.empty() || suffix == "a" || suffix == "f";
}

// NVRTC's log of a failed compile lacks ptxas' reason for some failures (too much static
// shared memory for one); say what the resources show so the log names a cause.
void explain_failure(CompileResult& res) {
  if (res.log.find("error") != std::string::npos) return;
  std::string why = "tune: NVRTC reported a compilation error without a message";
  const DeviceLimits lim = hopper_limits();
  if (res.resources.parsed && res.resources.static_shared > lim.max_static_shared)
    why += "; error: static shared memory " + std::to_string(res.resources.static_shared) + " B > " +
           std::to_string(lim.max_static_shared) + " B per block";
  if (!res.log.empty() && res.log.back() != '\n') res.log += '\n';
  res.log += why + '\n';
}

}  // namespace

std::vector<std::string> nvrtc_options(const CompileRequest& req) {
  std::vector<std::string> opts;
  opts.reserve(req.defines.size() + req.options.size() + 2);
  opts.push_back("--gpu-architecture=" + req.arch);
  opts.push_back("--ptxas-options=-v");
  for (const auto& [name, value] : req.defines)
    opts.push_back(std::string("-D").append(name).append("=").append(value));
  for (const auto& o : req.options) opts.push_back(o);
  return opts;
}

CompileResult compile(const CompileRequest& req) {
  if (!real_target(req.arch))
    throw InputError(describe(req) + ": target '" + req.arch +
                     "' is not a real GPU target (sm_XX): NVRTC would emit no cubin");
  if (req.kernel_name.empty()) throw InputError(req.source_name + ": no kernel name given");

  const auto start = std::chrono::steady_clock::now();
  CompileResult res;
  res.tag = req.tag;
  Program prog(req);
  nvrtcResult r = nvrtcAddNameExpression(prog.get(), req.kernel_name.c_str());
  if (r != NVRTC_SUCCESS)
    throw UnavailableError(describe(req) + ": nvrtcAddNameExpression failed: " + nvrtcGetErrorString(r));

  const std::vector<std::string> opts = nvrtc_options(req);
  std::vector<const char*> argv;
  argv.reserve(opts.size());
  for (const auto& o : opts) argv.push_back(o.c_str());
  r = nvrtcCompileProgram(prog.get(), static_cast<int>(argv.size()), argv.data());
  res.log = prog.log();

  if (r == NVRTC_SUCCESS) {
    const char* lowered = nullptr;
    if (nvrtcGetLoweredName(prog.get(), req.kernel_name.c_str(), &lowered) == NVRTC_SUCCESS && lowered != nullptr)
      res.lowered_name = lowered;
    else
      res.lowered_name = req.kernel_name;
    std::size_t size = 0;
    r = nvrtcGetCUBINSize(prog.get(), &size);
    if (r != NVRTC_SUCCESS)
      throw UnavailableError(describe(req) + ": nvrtcGetCUBINSize failed: " + nvrtcGetErrorString(r));
    res.cubin.assign(size, '\0');
    if (size > 0) {
      r = nvrtcGetCUBIN(prog.get(), res.cubin.data());
      if (r != NVRTC_SUCCESS)
        throw UnavailableError(describe(req) + ": nvrtcGetCUBIN failed: " + nvrtcGetErrorString(r));
    }
    res.status = res.cubin.empty() ? Status::compile_failed : Status::ok;
    if (res.cubin.empty()) res.log += "tune: NVRTC produced no cubin for " + req.arch + '\n';
    res.resources = parse_ptxas_log(res.log, res.lowered_name);
  } else if (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION ||
             r == NVRTC_ERROR_NAME_EXPRESSION_NOT_VALID) {
    // The request is at fault (source, defines, options): a failed configuration.
    res.status = Status::compile_failed;
    res.lowered_name = req.kernel_name;
    res.resources = parse_ptxas_log(res.log, req.kernel_name);
    if (r != NVRTC_ERROR_COMPILATION) {
      std::string all;
      for (const auto& o : opts) all += (all.empty() ? "" : " ") + o;
      res.log += std::string("error: ") + nvrtcGetErrorString(r) + " with options: " + all + '\n';
    } else {
      explain_failure(res);
    }
  } else {
    throw UnavailableError(describe(req) + ": NVRTC cannot compile: " + nvrtcGetErrorString(r) +
                           (res.log.empty() ? "" : ": " + res.log));
  }
  res.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return res;
}

std::string nvrtc_version() {
  int major = 0;
  int minor = 0;
  const nvrtcResult r = nvrtcVersion(&major, &minor);
  if (r != NVRTC_SUCCESS) throw UnavailableError(std::string("NVRTC: nvrtcVersion failed: ") + nvrtcGetErrorString(r));
  return std::to_string(major) + "." + std::to_string(minor);
}

std::string cache_key(const CompileRequest& req, std::string_view version) {
  Hasher h;
  h.field("tune.compile.v1").field(version).field(req.kernel_name).field(req.source);
  const std::vector<std::string> opts = nvrtc_options(req);
  h.field(std::to_string(opts.size()));
  for (const auto& o : opts) h.field(o);
  return h.hex();
}

}  // namespace tune::compile

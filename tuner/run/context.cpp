#include "run/context.h"

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <string>

#include "run/cuda.h"

namespace tune::run {

namespace {

using CtxCreate = CUresult (*)(CUcontext*, CUctxCreateParams*, unsigned int, CUdevice);
using CtxDestroy = CUresult (*)(CUcontext);
using CtxSet = CUresult (*)(CUcontext);
using CtxGet = CUresult (*)(CUcontext*);
using DeviceGet = CUresult (*)(CUdevice*, int);

// The driver's entry point `name` as of CUDA `version`; throws CudaError when it has none.
template <class Fn>
Fn entry(const char* name, unsigned version) {
  void* fn = nullptr;
  cudaDriverEntryPointQueryResult found{};
  const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &fn, version, cudaEnableDefault, &found);
  if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || fn == nullptr)
    throw CudaError(e == cudaSuccess ? cudaErrorSymbolNotFound : e,
                    std::string("the CUDA driver has no entry point ") + name + " (another CUDA context)", false);
  return reinterpret_cast<Fn>(fn);
}

struct Driver {
  CtxCreate create = entry<CtxCreate>("cuCtxCreate", 12050);
  CtxDestroy destroy = entry<CtxDestroy>("cuCtxDestroy", 4000);
  CtxSet set = entry<CtxSet>("cuCtxSetCurrent", 4000);
  CtxGet get = entry<CtxGet>("cuCtxGetCurrent", 4000);
  DeviceGet device = entry<DeviceGet>("cuDeviceGet", 2000);
};

const Driver& driver() {
  static const Driver d;  // after the runtime is initialised (a Session exists)
  return d;
}

void check(CUresult r, const std::string& what) {
  if (r != CUDA_SUCCESS)
    throw CudaError(cudaErrorUnknown, what + ": CUDA driver error " + std::to_string(static_cast<int>(r)), false);
}

}  // namespace

Context::Context(int ordinal) {
  const Driver& d = driver();
  CUdevice dev{};
  check(d.device(&dev, ordinal), "cuDeviceGet(" + std::to_string(ordinal) + ")");
  CUcontext previous = nullptr;
  check(d.get(&previous), "cuCtxGetCurrent");
  CUcontext ctx = nullptr;
  check(d.create(&ctx, nullptr, CU_CTX_SCHED_AUTO, dev), "cuCtxCreate on device " + std::to_string(ordinal));
  ctx_ = ctx;
  // cuCtxCreate makes the new context current: give the thread its own back
  const CUresult restored = d.set(previous);
  if (restored != CUDA_SUCCESS) {
    (void)d.destroy(ctx);
    ctx_ = nullptr;
    check(restored, "cuCtxSetCurrent (restoring the context before cuCtxCreate)");
  }
}

Context::~Context() {
  if (ctx_ != nullptr) (void)driver().destroy(static_cast<CUcontext>(ctx_));
}

ContextScope::ContextScope(const Context& context) {
  const Driver& d = driver();
  CUcontext previous = nullptr;
  check(d.get(&previous), "cuCtxGetCurrent");
  previous_ = previous;
  check(d.set(static_cast<CUcontext>(context.handle())), "cuCtxSetCurrent");
}

ContextScope::~ContextScope() { (void)driver().set(static_cast<CUcontext>(previous_)); }

}  // namespace tune::run

#include "tuning/device_check.h"

#include <cuda_runtime_api.h>

#include "common/error.h"
#include "compile/compile.h"
#include "run/cuda.h"
#include "run/verify.h"

namespace tune::tuning {

namespace {
const char* kSource = R"(
extern "C" __global__ void tune_compare_f32(const float* a, const float* ref, unsigned long long n,
                                            float rel, float abs_, unsigned long long* out) {
  for (unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    float x = a[i], y = ref[i];
    bool same = __float_as_uint(x) == __float_as_uint(y) || fabsf(x - y) <= abs_ + rel * fabsf(y);
    if (!same) {
      atomicAdd(&out[0], 1ull);
      atomicMin(&out[1], i);
    }
  }
}
)";
}  // namespace

DeviceCheck::DeviceCheck(run::Session& session) : session_(session), result_(2 * sizeof(unsigned long long)) {
  compile::CompileRequest r;
  r.source = kSource;
  r.source_name = "tune_compare.cu";
  r.kernel_name = "tune_compare_f32";
  r.arch = session.device().arch;
  auto res = compile::compile(r);
  if (!res.ok()) throw Error("the verification kernel does not compile: " + res.log);
  kernel_ = std::make_unique<run::LoadedKernel>(session, std::vector<char>(res.cubin.begin(), res.cubin.end()), r.kernel_name);
}

void DeviceCheck::keep_reference(run::ArgSet& args, const std::vector<std::size_t>& outputs) {
  refs_.clear();
  for (std::size_t a : outputs) {
    const run::DeviceBuffer& src = args.buffer(a);
    run::DeviceBuffer copy(src.bytes());
    run::check(cudaMemcpy(copy.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice), "keeping the reference output");
    refs_.push_back(std::move(copy));
  }
  if (result_.data() == nullptr || !result_.valid()) result_ = run::DeviceBuffer(2 * sizeof(unsigned long long));
}

std::string DeviceCheck::compare(run::ArgSet& args, const std::vector<std::size_t>& outputs, double relative,
                                 double absolute) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    run::DeviceBuffer& out = args.buffer(outputs[i]);
    const std::string& name = args.spec(outputs[i]).name;
    if (args.dtype(outputs[i]).name() != "float") {  // other types: exact comparison on the host
      auto cmp = run::compare(args.dtype(outputs[i]), out, refs_[i], run::Tolerance::rel(relative, absolute), name);
      if (!cmp.ok) return cmp.message;
      continue;
    }
    unsigned long long init[2] = {0, ~0ull};
    run::check(cudaMemcpy(result_.data(), init, sizeof init, cudaMemcpyHostToDevice), "verification setup");
    const void* a = out.data();
    const void* ref = refs_[i].data();
    unsigned long long n = out.bytes() / sizeof(float);
    float rel = static_cast<float>(relative), abs_ = static_cast<float>(absolute);
    void* res = result_.data();
    void* argv[] = {&a, &ref, &n, &rel, &abs_, &res};
    unsigned blocks = static_cast<unsigned>(std::min<unsigned long long>((n + 255) / 256, 4u * 132u * 8u));
    run::check(cudaLaunchKernel(kernel_->handle(), dim3(blocks), dim3(256), argv, 0, nullptr), "verification launch");
    unsigned long long got[2];
    run::check(cudaMemcpy(got, result_.data(), sizeof got, cudaMemcpyDeviceToHost), "verification result");
    if (got[0] > 0) {
      float x = 0, y = 0;
      run::check(cudaMemcpy(&x, static_cast<const float*>(a) + got[1], sizeof x, cudaMemcpyDeviceToHost), "verification detail");
      run::check(cudaMemcpy(&y, static_cast<const float*>(ref) + got[1], sizeof y, cudaMemcpyDeviceToHost), "verification detail");
      return "'" + name + "': " + std::to_string(got[0]) + " of " + std::to_string(n) + " elements differ; first at " +
             std::to_string(got[1]) + ": " + std::to_string(x) + " instead of " + std::to_string(y) +
             (x != x ? " (unwritten or NaN)" : "");
    }
  }
  return "";
}

}  // namespace tune::tuning

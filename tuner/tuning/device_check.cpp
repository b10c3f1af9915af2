#include "tuning/device_check.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

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
// One element as text: floats with all their digits, integers in decimal, 64-bit unsigned in hex
// (packed values); "" for vector types and types without a rendering here.
std::string element_text(run::DType dt, const std::byte* p) {
  if (dt.lanes != 1) return "";
  char b[48];
  switch (dt.scalar) {
    case run::Scalar::float32: { float v; std::memcpy(&v, p, 4); std::snprintf(b, sizeof b, "%.9g", v); break; }
    case run::Scalar::float64: { double v; std::memcpy(&v, p, 8); std::snprintf(b, sizeof b, "%.17g", v); break; }
    case run::Scalar::int32: { std::int32_t v; std::memcpy(&v, p, 4); std::snprintf(b, sizeof b, "%d", v); break; }
    case run::Scalar::uint32: { std::uint32_t v; std::memcpy(&v, p, 4); std::snprintf(b, sizeof b, "%u", v); break; }
    case run::Scalar::int64: { long long v; std::memcpy(&v, p, 8); std::snprintf(b, sizeof b, "%lld", v); break; }
    case run::Scalar::uint64: { unsigned long long v; std::memcpy(&v, p, 8); std::snprintf(b, sizeof b, "0x%016llx", v); break; }
    default: return "";
  }
  return b;
}

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

DeviceCheck::CheckResult DeviceCheck::run_check(run::LoadedKernel& check, run::Dim3 grid, run::Dim3 block,
                                                run::ArgSet& args, const std::vector<std::size_t>& outputs) {
  if (refs_.size() != outputs.size()) throw Error("check kernel " + check.name() + ": no reference outputs kept");
  const std::vector<std::size_t>& params = check.attributes().param_sizes;
  const std::size_t want = args.size() + outputs.size() + 1;
  auto mismatch = [&](const std::string& why) {
    return InputError("Tune.check: kernel '" + check.name() + "' " + why + "; it must take the kernel's " +
                      std::to_string(args.size()) + " arguments, one pointer per output (" +
                      std::to_string(outputs.size()) + ") and unsigned long long* result: " + std::to_string(want) +
                      " parameters");
  };
  if (params.size() != want) throw mismatch("takes " + std::to_string(params.size()) + " parameters");
  for (std::size_t i = 0; i < want; ++i) {
    const std::size_t size = i < args.size() && args.spec(i).scalar ? args.dtype(i).size() : sizeof(void*);
    if (params[i] != size)
      throw mismatch("parameter " + std::to_string(i) + " has " + std::to_string(params[i]) + " bytes, not " +
                     std::to_string(size));
  }
  if (result_.data() == nullptr || !result_.valid()) result_ = run::DeviceBuffer(2 * sizeof(unsigned long long));
  unsigned long long init[2] = {0, ~0ull};
  run::check(cudaMemcpy(result_.data(), init, sizeof init, cudaMemcpyHostToDevice), "check kernel setup");
  std::vector<void*> ref_ptrs;
  for (const auto& r : refs_) ref_ptrs.push_back(r.data());
  void* res = result_.data();
  std::vector<void*> argv(args.launch_args(), args.launch_args() + args.size());
  for (void*& p : ref_ptrs) argv.push_back(&p);
  argv.push_back(&res);

  CheckResult out;
  const std::string what = check.describe_launch(grid, block, 0);
  out.status = run::classify(cudaLaunchKernel(check.handle(), dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z),
                                              argv.data(), 0, nullptr), what);
  if (out.status.ok()) out.status = session_.synchronize(what);
  if (!out.status.ok()) return out;
  unsigned long long got[2];
  run::check(cudaMemcpy(got, result_.data(), sizeof got, cudaMemcpyDeviceToHost), "check kernel result");
  if (got[0] == 0) return out;
  out.error = "check kernel " + check.name() + ": " + std::to_string(got[0]) + " errors, first at element " +
              (got[1] == ~0ull ? std::string("(not reported)") : std::to_string(got[1]));
  // The values at that element of the first output and of its reference, when it has one.
  const std::size_t first = outputs.front();
  const run::DeviceBuffer& buf = args.buffer(first);
  const run::DType dt = args.dtype(first);
  const std::size_t width = dt.size();
  if (got[1] != ~0ull && width <= 8 && got[1] < buf.bytes() / width) {
    std::byte x[8] = {}, y[8] = {};
    run::check(cudaMemcpy(x, static_cast<const std::byte*>(buf.data()) + got[1] * width, width, cudaMemcpyDeviceToHost),
               "check detail");
    run::check(cudaMemcpy(y, static_cast<const std::byte*>(refs_.front().data()) + got[1] * width, width,
                          cudaMemcpyDeviceToHost),
               "check detail");
    if (std::string a = element_text(dt, x), b = element_text(dt, y); !a.empty())
      out.error += " ('" + args.spec(first).name + "' " + a + ", reference " + b + ")";
  }
  return out;
}

}  // namespace tune::tuning

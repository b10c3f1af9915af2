#include "run/device_check.h"

#include <cuda_runtime_api.h>

#include <cstdint>
#include <cstdio>
#include <cstring>

#include "common/error.h"
#include "run/cuda.h"
#include "run/verify.h"

namespace tune::run {

namespace {
// One element as text: floats with all their digits, integers in decimal, 64-bit unsigned in hex
// (packed values); "" for vector types and types without a rendering here.
std::string element_text(DType dt, const std::byte* p) {
  if (dt.lanes != 1) return "";
  char b[48];
  switch (dt.scalar) {
    case Scalar::float32: {
      float v;
      std::memcpy(&v, p, 4);
      std::snprintf(b, sizeof b, "%.9g", v);
      break;
    }
    case Scalar::float64: {
      double v;
      std::memcpy(&v, p, 8);
      std::snprintf(b, sizeof b, "%.17g", v);
      break;
    }
    case Scalar::int32: {
      std::int32_t v;
      std::memcpy(&v, p, 4);
      std::snprintf(b, sizeof b, "%d", v);
      break;
    }
    case Scalar::uint32: {
      std::uint32_t v;
      std::memcpy(&v, p, 4);
      std::snprintf(b, sizeof b, "%u", v);
      break;
    }
    case Scalar::int64: {
      long long v;
      std::memcpy(&v, p, 8);
      std::snprintf(b, sizeof b, "%lld", v);
      break;
    }
    case Scalar::uint64: {
      unsigned long long v;
      std::memcpy(&v, p, 8);
      std::snprintf(b, sizeof b, "0x%016llx", v);
      break;
    }
    default:
      return "";
  }
  return b;
}

}  // namespace

void DeviceCheck::keep_reference(ArgSet& args, const std::vector<std::size_t>& outputs) {
  refs_.clear();
  for (std::size_t a : outputs) {
    const DeviceBuffer& src = args.buffer(a);
    DeviceBuffer copy(src.bytes());
    check(cudaMemcpy(copy.data(), src.data(), src.bytes(), cudaMemcpyDeviceToDevice), "keeping the reference output");
    refs_.push_back(std::move(copy));
  }
  if (result_.data() == nullptr || !result_.valid()) result_ = DeviceBuffer(2 * sizeof(unsigned long long));
}

std::string DeviceCheck::compare(ArgSet& args, const std::vector<std::size_t>& outputs, double relative,
                                 double absolute) {
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    auto cmp = run::compare(args.dtype(outputs[i]), args.buffer(outputs[i]), refs_[i],
                            Tolerance::rel(relative, absolute), args.spec(outputs[i]).name);
    if (!cmp.ok) return cmp.message;
  }
  return "";
}

std::vector<std::size_t> check_parameter_sizes(const std::vector<ArgSpec>& arguments, std::size_t outputs) {
  std::vector<std::size_t> sizes(arguments.size() + outputs + 1, sizeof(void*));  // buffers and pointers
  for (std::size_t i = 0; i < arguments.size(); ++i) {
    if (arguments[i].tensor_map)
      sizes[i] = sizeof(TensorMap);
    else if (arguments[i].scalar)
      sizes[i] = parse_dtype(arguments[i].dtype).size();
  }
  return sizes;
}

DeviceCheck::CheckResult DeviceCheck::run_check(LoadedKernel& judge, Dim3 grid, Dim3 block, ArgSet& args,
                                                const std::vector<std::size_t>& outputs) {
  if (refs_.size() != outputs.size()) throw Error("check kernel " + judge.name() + ": no reference outputs kept");
  const std::vector<std::size_t>& params = judge.attributes().param_sizes;
  std::vector<ArgSpec> specs(args.size());
  for (std::size_t i = 0; i < args.size(); ++i) specs[i] = args.spec(i);
  const std::vector<std::size_t> sizes = check_parameter_sizes(specs, outputs.size());
  const std::size_t want = sizes.size();
  auto mismatch = [&](const std::string& why) {
    return InputError("Tune.check: kernel '" + judge.name() + "' " + why + "; it must take the kernel's " +
                      std::to_string(args.size()) + " arguments, one pointer per output (" +
                      std::to_string(outputs.size()) + ") and unsigned long long* result: " + std::to_string(want) +
                      " parameters");
  };
  if (params.size() != want) throw mismatch("takes " + std::to_string(params.size()) + " parameters");
  for (std::size_t i = 0; i < want; ++i) {
    if (params[i] != sizes[i])
      throw mismatch("parameter " + std::to_string(i) + " has " + std::to_string(params[i]) + " bytes, not " +
                     std::to_string(sizes[i]));
  }
  if (result_.data() == nullptr || !result_.valid()) result_ = DeviceBuffer(2 * sizeof(unsigned long long));
  unsigned long long init[2] = {0, ~0ull};
  check(cudaMemcpy(result_.data(), init, sizeof init, cudaMemcpyHostToDevice), "check kernel setup");
  std::vector<void*> ref_ptrs;
  for (const auto& r : refs_) ref_ptrs.push_back(r.data());
  void* res = result_.data();
  std::vector<void*> argv(args.launch_args(), args.launch_args() + args.size());
  for (void*& p : ref_ptrs) argv.push_back(&p);
  argv.push_back(&res);

  CheckResult out;
  const std::string what = judge.describe_launch(grid, block, 0);
  out.status = classify(cudaLaunchKernel(judge.handle(), dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z),
                                         argv.data(), 0, nullptr),
                        what);
  if (out.status.ok()) out.status = session_.synchronize(what);
  if (!out.status.ok()) return out;
  unsigned long long got[2];
  check(cudaMemcpy(got, result_.data(), sizeof got, cudaMemcpyDeviceToHost), "check kernel result");
  if (got[0] == 0) return out;
  out.error = "check kernel " + judge.name() + ": " + std::to_string(got[0]) + " errors, first at element " +
              (got[1] == ~0ull ? std::string("(not reported)") : std::to_string(got[1]));
  // The values at that element of the first output and of its reference, when it has one.
  const std::size_t first = outputs.front();
  const DeviceBuffer& buf = args.buffer(first);
  const DType dt = args.dtype(first);
  const std::size_t width = dt.size();
  if (got[1] != ~0ull && width <= 8 && got[1] < buf.bytes() / width) {
    std::byte x[8] = {}, y[8] = {};
    check(cudaMemcpy(x, static_cast<const std::byte*>(buf.data()) + got[1] * width, width, cudaMemcpyDeviceToHost),
          "check detail");
    check(cudaMemcpy(y, static_cast<const std::byte*>(refs_.front().data()) + got[1] * width, width,
                     cudaMemcpyDeviceToHost),
          "check detail");
    if (std::string a = element_text(dt, x), b = element_text(dt, y); !a.empty())
      out.error += " ('" + args.spec(first).name + "' " + a + ", reference " + b + ")";
  }
  return out;
}

}  // namespace tune::run

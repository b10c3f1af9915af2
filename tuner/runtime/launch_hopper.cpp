// The runtime's launch of a kernel with Hopper launch rules (spec/launch.h): tensor maps encoded
// over the buffers the application passes, dynamic shared memory over 48 KiB, a cluster shape.
#include "common/error.h"
#include "run/tensor_map.h"
#include "runtime/impl.h"
#include "spec/bind.h"
#include "spec/launch.h"

namespace tune::runtime {

namespace {

constexpr unsigned kDefaultDynamicSmem = 48 * 1024;  // a kernel's dynamic shared memory without opting in
constexpr std::size_t kMaxMaps = 16;                 // tensor maps of one launch kept on the stack

}  // namespace

const Kernel::Impl::HopperPlan& Kernel::Impl::hopper_plan(const Selection& s, Size size) const {
  int device = 0;
  if (const cudaError_t e = cudaGetDevice(&device); e != cudaSuccess)
    fail(&s, size, std::string("no current CUDA device: ") + cudaGetErrorString(e));
  const auto key = std::make_tuple(device, s.variant, size.x, size.y, size.z);
  {
    std::lock_guard lock(mu);
    if (auto it = hopper_plans.find(key); it != hopper_plans.end()) return *it->second;
  }
  auto plan = std::make_unique<HopperPlan>();
  try {
    const sizes::Size at = detail::spec_size(spec, size);
    for (auto& b : spec::geometry(spec, spec::bind_config(spec, table.variants[s.variant], at)).tensor_maps)
      plan->maps.push_back({b.argument, b.buffer, std::move(b.dims), std::move(b.box), b.swizzle});
    for (const auto& a : spec::arguments(spec, at)) plan->counts.push_back(a.count);
  } catch (const tune::Error& e) {
    fail(&s, size, e.what());
  }
  std::lock_guard lock(mu);
  return *hopper_plans.emplace(key, std::move(plan)).first->second;  // another thread's, if it came first
}

void Kernel::Impl::launch_hopper(const Selection& s, const Compiled& c, cudaStream_t stream, Size size,
                                 void** slots) const {
  const auto* handle = reinterpret_cast<const void*>(c.kernel);
  const HopperPlan& plan = hopper_plan(s, size);
  if (s.dynamic_smem > kDefaultDynamicSmem)
    std::call_once(plan.opt_in, [&] {  // a throw leaves the flag unset: the next launch tries again
      if (const cudaError_t e = cudaFuncSetAttribute(handle, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                                     static_cast<int>(s.dynamic_smem));
          e != cudaSuccess)
        fail(&s, size,
             "raising the dynamic shared memory limit to " + std::to_string(s.dynamic_smem) +
                 " bytes: " + cudaGetErrorString(e));
    });
  if (plan.maps.size() > kMaxMaps) fail(&s, size, "more than " + std::to_string(kMaxMaps) + " tensor maps");
  void* args[kMaxArguments];
  std::copy(slots, slots + this->args.size(), args);
  run::TensorMap maps[kMaxMaps];
  for (std::size_t k = 0; k < plan.maps.size(); ++k) {
    const run::TensorMapSpec& b = plan.maps[k];
    void* buffer = *static_cast<void**>(slots[b.buffer]);
    try {
      maps[k] = run::encode(b, this->args[b.buffer].dtype, plan.counts[b.buffer], buffer);
    } catch (const tune::Error& e) {
      fail(&s, size, "tensor map '" + this->args[b.argument].name + "': " + e.what());
    }
    args[b.argument] = &maps[k];
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(s.grid[0], s.grid[1], s.grid[2]);
  config.blockDim = dim3(s.block[0], s.block[1], s.block[2]);
  config.dynamicSmemBytes = s.dynamic_smem;
  config.stream = stream;
  cudaLaunchAttribute cluster{};
  if (s.cluster != std::array<unsigned, 3>{1, 1, 1}) {
    cluster.id = cudaLaunchAttributeClusterDimension;
    cluster.val.clusterDim = {s.cluster[0], s.cluster[1], s.cluster[2]};
    config.attrs = &cluster;
    config.numAttrs = 1;
  }
  if (const cudaError_t e = cudaLaunchKernelExC(&config, handle, args); e != cudaSuccess)
    fail(&s, size,
         "cudaLaunchKernelEx with grid (" + std::to_string(s.grid[0]) + "," + std::to_string(s.grid[1]) + "," +
             std::to_string(s.grid[2]) + ") cluster (" + std::to_string(s.cluster[0]) + "," +
             std::to_string(s.cluster[1]) + "," + std::to_string(s.cluster[2]) + ") dynamic smem " +
             std::to_string(s.dynamic_smem) + ": " + cudaGetErrorString(e));
}

}  // namespace tune::runtime

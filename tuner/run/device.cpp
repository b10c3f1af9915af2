#include "run/device.h"

#include <cstring>

#include <cuda_runtime_api.h>

#include "run/cuda.h"

namespace tune::run {
namespace {

int attribute(cudaDeviceAttr attr, int ordinal, const char* name) {
  int value = 0;
  check(cudaDeviceGetAttribute(&value, attr, ordinal),
        std::string("cudaDeviceGetAttribute(") + name + ") on device " + std::to_string(ordinal));
  return value;
}

std::string no_gpu_message(cudaError_t code) {
  std::string cause = describe(code);
  int driver = 0;
  if (code == cudaErrorInsufficientDriver && cudaDriverGetVersion(&driver) == cudaSuccess && driver == 0)
    cause += ", no NVIDIA driver (libcuda.so.1) found";
  return "no CUDA GPU available: " + cause + "; CPU-only commands still work";
}

}  // namespace

std::string format_cuda_version(int version) {
  if (version <= 0) return "none";
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}

compile::DeviceLimits DeviceInfo::launch_limits() const {
  compile::DeviceLimits l;  // Hopper's where the device reports nothing (a DeviceInfo built by hand)
  if (max_threads_per_block > 0) l.max_threads_per_block = max_threads_per_block;
  if (regs_per_block > 0) l.max_registers_per_block = regs_per_block;
  if (smem_per_block > 0) l.max_static_shared = l.max_shared_without_opt_in = static_cast<int>(smem_per_block);
  if (smem_per_block_optin > 0) l.max_shared_opt_in = static_cast<int>(smem_per_block_optin);
  l.shared_opt_in = true;  // LoadedKernel::enqueue raises a kernel's dynamic limit when a launch needs it
  return l;
}

std::string DeviceInfo::summary() const {
  return name + " (" + arch + ", " + std::to_string(sm_count) + " SMs, " + std::to_string(l2_bytes / (1024 * 1024)) +
         " MiB L2, driver " + driver_version + ", runtime " + runtime_version + ")";
}

bool gpu_available() noexcept {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  return status == cudaSuccess && count > 0;
}

std::string gpu_unavailable_reason() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (status != cudaSuccess) return no_gpu_message(status);
  if (count == 0) return no_gpu_message(cudaErrorNoDevice);
  return {};
}

namespace {

// How many GPUs there are; UnavailableError when none (no driver, or no device).
int device_count() {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  (void)cudaGetLastError();
  if (status != cudaSuccess) throw UnavailableError(no_gpu_message(status));
  if (count == 0) throw UnavailableError(no_gpu_message(cudaErrorNoDevice));
  return count;
}

}  // namespace

DeviceIdentity identify_device(int local_rank) {
  const int count = device_count();
  DeviceIdentity id;
  id.ordinal = local_rank % count;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, id.ordinal), "cudaGetDeviceProperties");
  id.name.assign(prop.name, strnlen(prop.name, sizeof(prop.name)));
  id.arch = "sm_" + std::to_string(prop.major) + std::to_string(prop.minor);
  static const char* hex = "0123456789abcdef";
  for (char b : prop.uuid.bytes) {
    const auto u = static_cast<unsigned char>(b);
    id.uuid += hex[u >> 4];
    id.uuid += hex[u & 15];
  }
  return id;
}

std::future<void> start_device(int ordinal) {
  return std::async(std::launch::async, [ordinal] {
    if (cudaSetDevice(ordinal) == cudaSuccess) (void)cudaFree(nullptr);
    (void)cudaGetLastError();  // open_device reports what went wrong
  });
}

DeviceInfo open_device(int ordinal) {
  const int count = device_count();
  if (ordinal < 0 || ordinal >= count)
    throw InputError("device ordinal " + std::to_string(ordinal) + " is out of range: this machine has " +
                     std::to_string(count) + " CUDA device(s), ordinals 0.." + std::to_string(count - 1));
  check(cudaSetDevice(ordinal), "cudaSetDevice(" + std::to_string(ordinal) + ")");
  // Create the primary context now so a broken device fails here, not in the first allocation.
  check(cudaFree(nullptr), "initialising the CUDA context on device " + std::to_string(ordinal));

  DeviceInfo info;
  info.ordinal = ordinal;
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, ordinal), "cudaGetDeviceProperties");
  info.name.assign(prop.name, strnlen(prop.name, sizeof(prop.name)));
  info.cc_major = attribute(cudaDevAttrComputeCapabilityMajor, ordinal, "ComputeCapabilityMajor");
  info.cc_minor = attribute(cudaDevAttrComputeCapabilityMinor, ordinal, "ComputeCapabilityMinor");
  info.compute_capability = std::to_string(info.cc_major) + "." + std::to_string(info.cc_minor);
  info.arch = "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor);
  info.sm_count = attribute(cudaDevAttrMultiProcessorCount, ordinal, "MultiProcessorCount");
  info.l2_bytes = static_cast<std::size_t>(attribute(cudaDevAttrL2CacheSize, ordinal, "L2CacheSize"));
  info.global_memory_bytes = prop.totalGlobalMem;
  info.warp_size = attribute(cudaDevAttrWarpSize, ordinal, "WarpSize");
  info.max_threads_per_block = attribute(cudaDevAttrMaxThreadsPerBlock, ordinal, "MaxThreadsPerBlock");
  info.max_block_dim[0] = attribute(cudaDevAttrMaxBlockDimX, ordinal, "MaxBlockDimX");
  info.max_block_dim[1] = attribute(cudaDevAttrMaxBlockDimY, ordinal, "MaxBlockDimY");
  info.max_block_dim[2] = attribute(cudaDevAttrMaxBlockDimZ, ordinal, "MaxBlockDimZ");
  info.max_grid_dim[0] = attribute(cudaDevAttrMaxGridDimX, ordinal, "MaxGridDimX");
  info.max_grid_dim[1] = attribute(cudaDevAttrMaxGridDimY, ordinal, "MaxGridDimY");
  info.max_grid_dim[2] = attribute(cudaDevAttrMaxGridDimZ, ordinal, "MaxGridDimZ");
  info.regs_per_block = attribute(cudaDevAttrMaxRegistersPerBlock, ordinal, "MaxRegistersPerBlock");
  info.regs_per_sm = attribute(cudaDevAttrMaxRegistersPerMultiprocessor, ordinal, "MaxRegistersPerMultiprocessor");
  info.smem_per_block =
      static_cast<std::size_t>(attribute(cudaDevAttrMaxSharedMemoryPerBlock, ordinal, "MaxSharedMemoryPerBlock"));
  info.smem_per_block_optin = static_cast<std::size_t>(
      attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin, ordinal, "MaxSharedMemoryPerBlockOptin"));
  info.smem_per_sm = static_cast<std::size_t>(
      attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor, ordinal, "MaxSharedMemoryPerMultiprocessor"));
  int version = 0;
  check(cudaDriverGetVersion(&version), "cudaDriverGetVersion");
  info.driver_version = format_cuda_version(version);
  check(cudaRuntimeGetVersion(&version), "cudaRuntimeGetVersion");
  info.runtime_version = format_cuda_version(version);
  return info;
}

}  // namespace tune::run

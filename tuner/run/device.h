// The GPU this process runs on: properties the tuner records with every result and needs to pick
// launch limits and the NVRTC target.
#pragma once
#include <cstddef>
#include <future>
#include <string>

#include "compile/resources.h"

namespace tune::run {

struct DeviceInfo {
  int ordinal = 0;
  std::string name;  // "NVIDIA H100 80GB HBM3"
  int cc_major = 0;
  int cc_minor = 0;
  std::string compute_capability;  // "9.0"
  std::string arch;                // NVRTC target: "sm_90"
  int sm_count = 0;
  std::size_t l2_bytes = 0;
  std::size_t global_memory_bytes = 0;
  int warp_size = 0;
  int max_threads_per_block = 0;
  int max_block_dim[3] = {0, 0, 0};
  int max_grid_dim[3] = {0, 0, 0};
  int regs_per_block = 0;
  int regs_per_sm = 0;
  std::size_t smem_per_block = 0;        // without opting in (48 KiB)
  std::size_t smem_per_block_optin = 0;  // with cudaFuncAttributeMaxDynamicSharedMemorySize
  std::size_t smem_per_sm = 0;
  std::string driver_version;   // "13.0" (CUDA version the driver supports)
  std::string runtime_version;  // "13.0" (cudart this binary was linked with)

  // One line for logs: "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, 50 MiB L2, driver 13.0, runtime 13.0)".
  std::string summary() const;
  // This device's per-block launch limits, to check a kernel's resources against (compile::check_launch).
  compile::DeviceLimits launch_limits() const;
};

// True when a CUDA driver and at least one GPU are present. Never throws.
bool gpu_available() noexcept;

// Why gpu_available() is false: "no CUDA GPU available: <cause>; CPU-only commands still work";
// empty when a GPU is available.
std::string gpu_unavailable_reason();

// Makes `ordinal` the current device and reads its properties.
// Throws UnavailableError (no driver / no GPU, with gpu_unavailable_reason()), InputError (ordinal
// out of range) or CudaError.
DeviceInfo open_device(int ordinal = 0);
// Creates the device's primary context on a thread of its own, so that a later open_device finds it
// made (the driver's start and the context took 0.13 s of an H100 worker's start, after its 0.2 s
// of space construction). Errors are left to open_device.
std::future<void> start_device(int ordinal);

// The GPU of the rank-th process among those sharing a machine: ordinal rank modulo the device
// count, its name and NVRTC architecture, read without creating a context (an MPI rank reads it
// and leaves the device to the worker processes it starts). Throws UnavailableError without a GPU.
struct DeviceIdentity {
  int ordinal = 0;
  std::string name, arch;
  std::string uuid;  // the GPU's own, in hex: the same GPU whatever CUDA_VISIBLE_DEVICES numbers it
};
DeviceIdentity identify_device(int local_rank);

// "13.0" from 13000; "none" for 0 (no driver).
std::string format_cuda_version(int version);

}  // namespace tune::run

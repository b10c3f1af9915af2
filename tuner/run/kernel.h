// LoadedKernel: a kernel from an NVRTC cubin, loaded with cudaLibraryLoadData and launched with
// cudaLaunchKernel. Launch failures come back as LaunchStatus, never as exceptions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "run/args.h"
#include "run/cuda.h"
#include "run/session.h"

namespace tune::run {

struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
  std::uint64_t volume() const { return std::uint64_t{x} * y * z; }
  std::string str() const;  // "(32,8,1)"
};

// What a launch carries besides grid, block and dynamic shared memory: a thread-block cluster
// shape (cudaLaunchKernelEx) and the tensor maps it encodes over the ArgSet's buffers.
struct LaunchExtras {
  Dim3 cluster;
  std::vector<TensorMapSpec> tensor_maps;
  bool plain() const { return cluster.volume() == 1 && tensor_maps.empty(); }
};

// The largest portable cluster (blocks); larger ones need a non-portable opt-in.
inline constexpr std::uint64_t kMaxClusterBlocks = 8;

// What the compiled kernel needs (cudaFuncGetAttributes), to tell resource failures apart.
struct KernelAttributes {
  int num_regs = 0;
  std::size_t static_smem = 0;
  std::size_t local_bytes = 0;  // per thread (spills, local arrays)
  std::size_t const_bytes = 0;
  int max_threads_per_block = 0;  // for this kernel: limited by its registers and launch bounds
  int max_dynamic_smem = 0;       // current cudaFuncAttributeMaxDynamicSharedMemorySize
  int ptx_version = 0;
  int binary_version = 0;
  std::vector<std::size_t> param_sizes;  // bytes of each parameter (cudaFuncGetParamInfo)
};

// RAII cudaLibrary_t. Libraries are context-independent, so cudaLibraryUnload runs even after a
// device reset (otherwise an eagerly loaded library would be loaded into every new context).
class Library {
 public:
  Library() = default;
  // Throws CudaError naming `what` when the driver rejects the image.
  Library(std::span<const char> image, const std::string& what);
  ~Library();
  Library(Library&& other) noexcept;
  Library& operator=(Library&& other) noexcept;
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;
  cudaLibrary_t get() const { return library_; }

 private:
  void release() noexcept;
  cudaLibrary_t library_ = nullptr;
};

class LoadedKernel : public Recoverable {
 public:
  // Loads the cubin (or PTX / fatbin) image and gets the kernel `name` (its extern "C" or mangled
  // name). Throws CudaError when the image cannot be loaded or has no such kernel.
  // The image is copied and kept for reloading after recover().
  LoadedKernel(Session& session, std::span<const char> image, std::string name);
  ~LoadedKernel() override = default;

  const std::string& name() const { return name_; }
  const KernelAttributes& attributes() const { return attributes_; }
  // For cudaLaunchKernel / cudaFuncGetAttributes; stale after Session::recover().
  const void* handle() const { return static_cast<const void*>(kernel_); }

  // Checks the shape against the device and the kernel's limits, raises the kernel's dynamic
  // shared memory limit when dyn_smem needs it, and enqueues on the legacy default stream.
  // With extras: a grid that the cluster does not divide, a cluster over kMaxClusterBlocks, or a
  // tensor map the driver would refuse is an invalid configuration; the maps are encoded for
  // this ArgSet's buffers at every launch (host work only, outside the timed GPU time).
  // Reports only launch-time errors (resources, configuration); faults surface later.
  // Throws InputError when the arguments do not match the kernel's parameters (count or sizes):
  // that is a spec error, the same for every configuration.
  LaunchStatus enqueue(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args, const LaunchExtras& extras = {});
  // enqueue, then wait for the kernel: also reports faults (LaunchStatus::sticky()).
  LaunchStatus launch(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args, const LaunchExtras& extras = {});

  // "kernel 'name' grid (..) block (..) smem N" for messages.
  std::string describe_launch(Dim3 grid, Dim3 block, std::size_t dyn_smem) const;

 private:
  void restore() override;
  void load();
  void check_arguments(const ArgSet& args) const;
  LaunchStatus enqueue_extended(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args, const LaunchExtras& extras);

  std::vector<char> image_;
  std::string name_;
  Library library_;
  cudaKernel_t kernel_ = nullptr;
  KernelAttributes attributes_;
};

}  // namespace tune::run

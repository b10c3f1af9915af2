#include "run/kernel.h"

#include <utility>

#include "common/error.h"

namespace tune::run {

std::string Dim3::str() const {
  std::string s(1, '(');  // built by appending: GCC 12 warns falsely (-Wrestrict) on "(" + string&&
  s += std::to_string(x) + ',' + std::to_string(y) + ',' + std::to_string(z) + ')';
  return s;
}

Library::Library(std::span<const char> image, const std::string& what) {
  check(cudaLibraryLoadData(&library_, image.data(), nullptr, nullptr, 0, nullptr, nullptr, 0),
        "cudaLibraryLoadData of " + what);
}

Library::~Library() { release(); }

Library::Library(Library&& other) noexcept : library_(std::exchange(other.library_, nullptr)) {}

Library& Library::operator=(Library&& other) noexcept {
  if (this != &other) {
    release();
    library_ = std::exchange(other.library_, nullptr);
  }
  return *this;
}

void Library::release() noexcept {
  if (library_ != nullptr) {
    (void)cudaLibraryUnload(library_);
    (void)cudaGetLastError();
  }
  library_ = nullptr;
}

LoadedKernel::LoadedKernel(Session& session, std::span<const char> image, std::string name)
    : Recoverable(session), image_(image.begin(), image.end()), name_(std::move(name)) {
  if (image_.empty()) throw Error("kernel '" + name_ + "': the compiled image is empty");
  load();
}

void LoadedKernel::load() {
  const std::string what = "kernel '" + name_ + "'";
  library_ = Library(image_, what);
  check(cudaLibraryGetKernel(&kernel_, library_.get(), name_.c_str()), "cudaLibraryGetKernel(" + name_ + ")");
  cudaFuncAttributes attr{};
  check(cudaFuncGetAttributes(&attr, handle()), "cudaFuncGetAttributes of " + what);
  attributes_.num_regs = attr.numRegs;
  attributes_.static_smem = attr.sharedSizeBytes;
  attributes_.local_bytes = attr.localSizeBytes;
  attributes_.const_bytes = attr.constSizeBytes;
  attributes_.max_threads_per_block = attr.maxThreadsPerBlock;
  attributes_.max_dynamic_smem = attr.maxDynamicSharedSizeBytes;
  attributes_.ptx_version = attr.ptxVersion;
  attributes_.binary_version = attr.binaryVersion;
  attributes_.param_sizes.clear();
  for (std::size_t i = 0;; ++i) {
    std::size_t offset = 0, size = 0;
    if (cudaFuncGetParamInfo(handle(), i, &offset, &size) != cudaSuccess) {
      (void)cudaGetLastError();  // past the last parameter: cudaErrorInvalidValue
      break;
    }
    attributes_.param_sizes.push_back(size);
  }
}

void LoadedKernel::restore() { load(); }

std::string LoadedKernel::describe_launch(Dim3 grid, Dim3 block, std::size_t dyn_smem) const {
  return "kernel '" + name_ + "' grid " + grid.str() + " block " + block.str() + " dynamic smem " +
         std::to_string(dyn_smem);
}

void LoadedKernel::check_arguments(const ArgSet& args) const {
  const std::vector<std::size_t>& params = attributes_.param_sizes;
  if (args.size() != params.size())
    throw InputError("kernel '" + name_ + "' takes " + std::to_string(params.size()) + " parameters, " +
                     std::to_string(args.size()) + " arguments were given");
  for (std::size_t i = 0; i < params.size(); ++i) {
    const ArgSpec& spec = args.spec(i);
    const std::size_t size = spec.tensor_map ? sizeof(TensorMap) : spec.scalar ? args.dtype(i).size() : sizeof(void*);
    if (size != params[i])
      throw InputError("kernel '" + name_ + "' parameter " + std::to_string(i) + " has " + std::to_string(params[i]) +
                       " bytes, argument '" + spec.name + "' (" +
                       (spec.tensor_map ? std::string("CUtensorMap")
                        : spec.scalar   ? spec.dtype
                                        : "pointer to " + spec.dtype) +
                       ") has " + std::to_string(size));
  }
}

LaunchStatus LoadedKernel::enqueue(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args,
                                   const LaunchExtras& extras) {
  const DeviceInfo& dev = session().device();
  auto refuse = [&](Outcome outcome, const std::string& why) {
    return LaunchStatus{
        outcome, outcome == Outcome::invalid_config ? cudaErrorInvalidConfiguration : cudaErrorLaunchOutOfResources,
        describe_launch(grid, block, dyn_smem) + ": " + why};
  };
  const unsigned bdim[3] = {block.x, block.y, block.z};
  const unsigned gdim[3] = {grid.x, grid.y, grid.z};
  for (int i = 0; i < 3; ++i) {
    if (bdim[i] == 0 || bdim[i] > static_cast<unsigned>(dev.max_block_dim[i]))
      return refuse(Outcome::invalid_config, "block dimension " + std::to_string(i) + " is " + std::to_string(bdim[i]) +
                                                 ", the device allows 1.." + std::to_string(dev.max_block_dim[i]));
    if (gdim[i] == 0 || gdim[i] > static_cast<unsigned>(dev.max_grid_dim[i]))
      return refuse(Outcome::invalid_config, "grid dimension " + std::to_string(i) + " is " + std::to_string(gdim[i]) +
                                                 ", the device allows 1.." + std::to_string(dev.max_grid_dim[i]));
  }
  if (block.volume() > static_cast<std::uint64_t>(dev.max_threads_per_block))
    return refuse(Outcome::invalid_config, std::to_string(block.volume()) + " threads per block, the device allows " +
                                               std::to_string(dev.max_threads_per_block));
  if (block.volume() > static_cast<std::uint64_t>(attributes_.max_threads_per_block))
    return refuse(Outcome::out_of_resources, std::to_string(block.volume()) +
                                                 " threads per block, this kernel allows " +
                                                 std::to_string(attributes_.max_threads_per_block) + " (" +
                                                 std::to_string(attributes_.num_regs) + " registers per thread)");
  if (attributes_.static_smem + dyn_smem > dev.smem_per_block_optin)
    return refuse(Outcome::out_of_resources, "shared memory " + std::to_string(attributes_.static_smem) + " static + " +
                                                 std::to_string(dyn_smem) + " dynamic bytes exceeds the device's " +
                                                 std::to_string(dev.smem_per_block_optin) + " per block");
  if (dyn_smem > static_cast<std::size_t>(attributes_.max_dynamic_smem)) {
    const cudaError_t raised =
        cudaFuncSetAttribute(handle(), cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(dyn_smem));
    if (raised != cudaSuccess) {
      LaunchStatus status =
          classify(raised, describe_launch(grid, block, dyn_smem) + ": raising the dynamic shared memory limit");
      if (status.outcome == Outcome::error) status.outcome = Outcome::out_of_resources;
      return status;
    }
    attributes_.max_dynamic_smem = static_cast<int>(dyn_smem);
  }
  // A session of its own context (Session::OwnContext) on the same device may launch it: the
  // library is context-independent. Arguments of another device's session are a caller's error.
  if (&args.session() != &session() && args.session().device().ordinal != session().device().ordinal)
    throw Error("kernel '" + name_ + "' launched with arguments of a Session on another device");
  check_arguments(args);
  if (!extras.plain()) return enqueue_extended(grid, block, dyn_smem, args, extras);
  const cudaError_t code = cudaLaunchKernel(handle(), dim3(grid.x, grid.y, grid.z), dim3(block.x, block.y, block.z),
                                            args.launch_args(), dyn_smem, nullptr);
  if (code == cudaSuccess) return {};  // the hot path of a timing loop: no message to build
  return classify(code, describe_launch(grid, block, dyn_smem));
}

LaunchStatus LoadedKernel::enqueue_extended(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args,
                                            const LaunchExtras& extras) {
  const std::string what = describe_launch(grid, block, dyn_smem);
  auto invalid = [&](const std::string& why) {
    return LaunchStatus{Outcome::invalid_config, cudaErrorInvalidConfiguration, what + ": " + why};
  };
  const Dim3 c = extras.cluster;
  if (c.volume() > kMaxClusterBlocks)
    return invalid("cluster " + c.str() + " of " + std::to_string(c.volume()) + " blocks exceeds the portable " +
                   std::to_string(kMaxClusterBlocks));
  if (c.x == 0 || c.y == 0 || c.z == 0 || grid.x % c.x != 0 || grid.y % c.y != 0 || grid.z % c.z != 0)
    return invalid("grid " + grid.str() + " is not a whole number of clusters " + c.str());
  std::vector<void*> pointers(args.launch_args(), args.launch_args() + args.size());
  std::vector<TensorMap> maps(extras.tensor_maps.size());
  for (std::size_t k = 0; k < maps.size(); ++k) {
    const TensorMapSpec& m = extras.tensor_maps[k];
    if (m.argument >= args.size() || !args.spec(m.argument).tensor_map || m.buffer >= args.size() ||
        args.spec(m.buffer).scalar)
      throw Error("kernel '" + name_ + "': tensor map " + std::to_string(k) +
                  " names no tensor-map parameter or buffer");
    const ArgSpec& buf = args.spec(m.buffer);
    if (const std::string why = check(m, args.dtype(m.buffer), buf.count); !why.empty())
      return invalid("tensor map '" + args.spec(m.argument).name + "' over '" + buf.name + "': " + why);
    try {
      maps[k] = encode(m, args.dtype(m.buffer), buf.count, args.buffer(m.buffer).data());
    } catch (const InputError& e) {
      return invalid("tensor map '" + args.spec(m.argument).name + "': " + e.what());
    }
    pointers[m.argument] = &maps[k];
  }
  cudaLaunchConfig_t config{};
  config.gridDim = dim3(grid.x, grid.y, grid.z);
  config.blockDim = dim3(block.x, block.y, block.z);
  config.dynamicSmemBytes = dyn_smem;
  config.stream = nullptr;
  cudaLaunchAttribute attribute{};
  if (c.volume() > 1) {
    attribute.id = cudaLaunchAttributeClusterDimension;
    attribute.val.clusterDim.x = c.x;
    attribute.val.clusterDim.y = c.y;
    attribute.val.clusterDim.z = c.z;
    config.attrs = &attribute;
    config.numAttrs = 1;
  }
  const cudaError_t code = cudaLaunchKernelExC(&config, handle(), pointers.data());
  if (code == cudaSuccess) return {};
  return classify(code, what + (c.volume() > 1 ? " cluster " + c.str() : std::string()));
}

LaunchStatus LoadedKernel::launch(Dim3 grid, Dim3 block, std::size_t dyn_smem, ArgSet& args,
                                  const LaunchExtras& extras) {
  LaunchStatus status = enqueue(grid, block, dyn_smem, args, extras);
  if (!status.ok()) return status;
  return session().synchronize(describe_launch(grid, block, dyn_smem));
}

}  // namespace tune::run

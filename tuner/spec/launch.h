// Our launch extensions for Hopper kernels, under "Tune" (spaces/README.md, "Hopper launches"):
//   "arch":                  the NVRTC target of the space's kernels, e.g. "sm_90a" (wgmma,
//                            setmaxnreg); absent: the device's own (sm_90 on an H200)
//   "cluster":               {"X": expression, "Y": ..., "Z": ...}: the thread-block cluster shape
//                            (cudaLaunchAttributeClusterDimension); the grid must divide by it
//   "dynamic_shared_memory": expression, bytes of dynamic shared memory per block (over 48 KiB
//                            raises the kernel's limit, up to the device's)
//   "tensor_maps":           {"<argument>": {"buffer": "<argument>", "dims": [...], "box": [...],
//                            "swizzle": expression}}: a kernel parameter of Type "CUtensorMap"
//                            that the runner encodes (cuTensorMapEncodeTiled) for each
//                            configuration from a buffer argument, its dims (innermost first, in
//                            elements), a box and a swizzle (0, 32, 64 or 128 bytes)
// Expressions see the parameters and ProblemSize, as the launch geometry's do. The rules
// themselves (LaunchRules) are part of Spec (spec.h).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "spec/spec.h"

namespace tune::spec {

// Bounds of the launch extensions for any configuration (space::check_config_rules): the largest
// cluster any GPU launches (16 blocks, non-portable; the runner itself stops at 8), and 16 MiB of
// dynamic shared memory, far beyond any GPU's (227 KiB on sm_90 and sm_100): a configuration
// within the bound but over its device's limit is refused at its launch, as the space may list it.
inline constexpr std::int64_t kMaxClusterBlocks = 16;
inline constexpr std::int64_t kMaxDynamicSharedBytes = std::int64_t{16} << 20;

// The T1 argument Type of a tensor-map parameter.
inline constexpr std::string_view kTensorMapType = "CUtensorMap";

// A tensor map for one configuration at one size.
struct TensorMapBinding {
  std::size_t argument = 0, buffer = 0;
  std::vector<std::uint64_t> dims;  // elements, innermost first
  std::vector<std::uint32_t> box;   // elements, innermost first
  unsigned swizzle = 0;             // bytes: 0, 32, 64 or 128
};

// Reads Tune.arch, Tune.cluster, Tune.dynamic_shared_memory and Tune.tensor_maps of a parsed spec
// (its parameters and arguments known). Throws InputError naming the file and the key.
LaunchRules parse_launch_rules(const Spec& spec);

// True for a real NVRTC target: sm_XY, sm_XYa or sm_XYf.
bool valid_arch(std::string_view arch);

// The target a space's kernels compile for on a device of target `device_arch` (e.g. "sm_90"):
// Tune.arch when given, else the device's. Throws InputError when the device cannot run it (an
// arch-specific target "sm_90a" runs on compute capability 9.0 only; others need the same major
// version and no higher minor).
std::string target_arch(const Spec& spec, const std::string& device_arch);

// The tensor maps of a bound configuration (bind_config). Throws InputError when an expression
// does not give a whole number.
std::vector<TensorMapBinding> tensor_maps(const Spec& spec, std::span<const expr::Value> bound);

}  // namespace tune::spec

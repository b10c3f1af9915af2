// The dispatch header's launch of a space with the Hopper launch rules (spec/launch.h): per
// variant the cluster shape, the dynamic shared memory and each tensor map's box and swizzle as
// constants; the maps encoded at each launch through the driver's entry point (no libcuda on the
// link line); cudaLaunchKernelEx.
#include <regex>
#include <sstream>

#include "common/error.h"
#include "header/emit.h"
#include "run/dtype.h"
#include "spec/bind.h"
#include "spec/launch.h"

namespace tune::header::detail {

namespace {

bool reads_problem_size(const spec::Spec& spec, const spec::Expression& e) {
  const auto& used = e.program.used();
  return std::find(used.begin(), used.end(), spec.parameters.size()) != used.end();
}

[[noreturn]] void refuse(const spec::Spec& spec, const std::string& what) {
  throw InputError(spec.path.string() + ": " + what + ": the dispatch header needs it per configuration, without " +
                   "ProblemSize (use tune::runtime)");
}

// The driver's data type of a tensor map over elements of T1 type `type`.
std::string map_type(const spec::Spec& spec, const std::string& name, const std::string& type) {
  const run::DType t = run::parse_dtype(type);
  if (t.lanes == 1) switch (t.scalar) {
      case run::Scalar::float32:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT32";
      case run::Scalar::float64:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT64";
      case run::Scalar::half:
        return "CU_TENSOR_MAP_DATA_TYPE_FLOAT16";
      case run::Scalar::int32:
        return "CU_TENSOR_MAP_DATA_TYPE_INT32";
      case run::Scalar::uint32:
        return "CU_TENSOR_MAP_DATA_TYPE_UINT32";
      case run::Scalar::int64:
        return "CU_TENSOR_MAP_DATA_TYPE_INT64";
      case run::Scalar::uint64:
        return "CU_TENSOR_MAP_DATA_TYPE_UINT64";
      case run::Scalar::uint8:
      case run::Scalar::int8:
        return "CU_TENSOR_MAP_DATA_TYPE_UINT8";
      case run::Scalar::uint16:
      case run::Scalar::int16:
        return "CU_TENSOR_MAP_DATA_TYPE_UINT16";
      default:
        break;
    }
  throw InputError(spec.path.string() + ": Tune.tensor_maps." + name + ": no TMA data type for " + type);
}

// A dims entry as C++ over the launch's x, y, z: ProblemSize[k] itself, or a constant.
std::string dim_text(const spec::Spec& spec, const spec::Expression& e, const std::string& where) {
  static const std::regex extent(R"(^\s*ProblemSize\s*\[\s*([0-2])\s*\]\s*$)");
  std::smatch m;
  const std::string& src = e.program.source();
  if (std::regex_match(src, m, extent)) return std::string(1, "xyz"[m[1].str()[0] - '0']);
  if (reads_problem_size(spec, e))
    throw InputError(spec.path.string() + ": " + where + ": the dispatch header takes a dims entry that is " +
                     "ProblemSize[k] or a constant, not `" + src + "` (use tune::runtime)");
  const auto bound = spec::bind_config(spec, spec::default_values(spec), sizes::parse_one("1"));
  return std::to_string(spec::positive_int(spec, e, bound)) + "ull";
}

std::string dims3(const std::array<std::uint32_t, 3>& d) {
  return "{" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + "}";
}

}  // namespace

bool hopper_launch(const spec::Spec& spec) {
  const auto& l = spec.launch;
  return !l.tensor_maps.empty() || l.dynamic_shared || l.cluster[0] || l.cluster[1] || l.cluster[2];
}

std::string hopper_tables(const Model& m) {
  const spec::Spec& spec = *m.spec;
  const auto& l = spec.launch;
  for (std::size_t d = 0; d < 3; ++d)
    if (l.cluster[d] && reads_problem_size(spec, *l.cluster[d])) refuse(spec, "Tune.cluster");
  if (l.dynamic_shared && reads_problem_size(spec, *l.dynamic_shared)) refuse(spec, "Tune.dynamic_shared_memory");
  for (const auto& r : l.tensor_maps) {
    for (const auto& e : r.box)
      if (reads_problem_size(spec, e)) refuse(spec, e.json_path);
    if (r.swizzle && reads_problem_size(spec, *r.swizzle)) refuse(spec, r.swizzle->json_path);
  }
  std::vector<spec::Geometry> g;
  for (const auto& v : m.variants)
    g.push_back(spec::geometry(spec, spec::bind_config(spec, v.values, sizes::parse_one("1"))));
  std::ostringstream h;
  h << "// Per variant: the thread-block cluster and the bytes of dynamic shared memory.\n"
    << "inline constexpr unsigned cluster[][3] = {";
  for (const auto& x : g) h << dims3(x.cluster) << ", ";
  h << "};\ninline constexpr unsigned dynamic_smem[] = {";
  for (const auto& x : g) h << x.dynamic_smem << ", ";
  h << "};\n";
  for (std::size_t k = 0; k < l.tensor_maps.size(); ++k) {
    const std::string& name = spec.kernel.arguments[l.tensor_maps[k].argument].name;
    h << "// Per variant: tensor map '" << name << "': its box (innermost first) and swizzle (bytes).\n"
      << "inline constexpr unsigned map_" << name << "_box[][" << l.tensor_maps[k].box.size() << "] = {";
    for (const auto& x : g) {
      h << "{";
      for (auto b : x.tensor_maps[k].box) h << b << ", ";
      h << "}, ";
    }
    h << "};\ninline constexpr unsigned map_" << name << "_swizzle[] = {";
    for (const auto& x : g) h << x.tensor_maps[k].swizzle << ", ";
    h << "};\n";
  }
  if (!l.tensor_maps.empty())
    h << "\n// A tiled tensor map over a packed buffer, encoded by the driver's cuTensorMapEncodeTiled.\n"
         "inline cudaError_t encode_tensor_map(CUtensorMap* map, CUtensorMapDataType type, unsigned rank, const "
         "void* address,\n"
         "                                     const unsigned long long* dims, unsigned element_bytes, const "
         "unsigned* box,\n"
         "                                     unsigned swizzle) {\n"
         "  using Encode = PFN_cuTensorMapEncodeTiled_v12000;\n"
         "  static const Encode encode = [] {\n"
         "    void* p = nullptr;\n"
         "    cudaDriverEntryPointQueryResult found{};\n"
         "    const cudaError_t e = cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\", &p, 12000, "
         "cudaEnableDefault, &found);\n"
         "    return e == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<Encode>(p) : "
         "Encode{};\n"
         "  }();\n"
         "  if (!encode || rank == 0 || rank > 5) return cudaErrorNotSupported;\n"
         "  cuuint64_t d[5] = {}, strides[5] = {};\n  cuuint32_t b[5] = {}, e[5] = {};\n"
         "  unsigned long long stride = element_bytes;\n"
         "  for (unsigned i = 0; i < rank; ++i) {\n"
         "    d[i] = dims[i], b[i] = box[i], e[i] = 1;\n"
         "    if (i > 0) strides[i - 1] = stride;\n"
         "    stride *= dims[i];\n  }\n"
         "  const CUtensorMapSwizzle s = swizzle == 128 ? CU_TENSOR_MAP_SWIZZLE_128B\n"
         "                               : swizzle == 64 ? CU_TENSOR_MAP_SWIZZLE_64B\n"
         "                               : swizzle == 32 ? CU_TENSOR_MAP_SWIZZLE_32B\n"
         "                                               : CU_TENSOR_MAP_SWIZZLE_NONE;\n"
         "  return encode(map, type, rank, const_cast<void*>(address), d, strides, b, e, "
         "CU_TENSOR_MAP_INTERLEAVE_NONE, s,\n"
         "                CU_TENSOR_MAP_L2_PROMOTION_L2_128B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS\n"
         "             ? cudaSuccess\n             : cudaErrorInvalidValue;\n}\n";
  return h.str();
}

std::string hopper_launch_body(const Model& m) {
  const spec::Spec& spec = *m.spec;
  std::ostringstream h;
  h << "  if (s.variant >= num_variants) return cudaErrorInvalidValue;\n"
       "  const Variant& v = variants[s.variant];\n  const Dim g = grid(v, x, y, z);\n";
  for (const auto& r : spec.launch.tensor_maps) {
    const std::string& name = spec.kernel.arguments[r.argument].name;
    const spec::Argument& buf = spec.kernel.arguments[r.buffer];
    h << "  alignas(128) CUtensorMap arg_" << name << ";\n  {\n    const unsigned long long dims[] = {";
    for (std::size_t i = 0; i < r.dims.size(); ++i)
      h << (i ? ", " : "") << "static_cast<unsigned long long>(" << dim_text(spec, r.dims[i], r.dims[i].json_path)
        << ")";
    h << "};\n    if (const cudaError_t e = encode_tensor_map(&arg_" << name << ", " << map_type(spec, name, buf.type)
      << ", " << r.dims.size() << ", arg_" << buf.name << ", dims, " << run::parse_dtype(buf.type).size() << ", map_"
      << name << "_box[s.variant], map_" << name
      << "_swizzle[s.variant]);\n        e != cudaSuccess)\n      return e;\n  }\n";
  }
  h << "  void* args[] = {";
  for (std::size_t i = 0; i < spec.kernel.arguments.size(); ++i)
    h << (i ? ", " : "") << "&arg_" << spec.kernel.arguments[i].name;
  h << "};\n"
       "  if (dynamic_smem[s.variant] > 48 * 1024)  // over the default: the kernel's limit raised\n"
       "    if (const cudaError_t e = cudaFuncSetAttribute(kernels[s.variant], "
       "cudaFuncAttributeMaxDynamicSharedMemorySize,\n"
       "                                                   int(dynamic_smem[s.variant]));\n"
       "        e != cudaSuccess)\n      return e;\n"
       "  cudaLaunchConfig_t config{};\n"
       "  config.gridDim = dim3(g.x, g.y, g.z);\n"
       "  config.blockDim = dim3(v.block.x, v.block.y, v.block.z);\n"
       "  config.dynamicSmemBytes = dynamic_smem[s.variant];\n  config.stream = stream;\n"
       "  cudaLaunchAttribute attribute{};\n"
       "  const unsigned* c = cluster[s.variant];\n"
       "  if (c[0] * c[1] * c[2] > 1) {\n"
       "    attribute.id = cudaLaunchAttributeClusterDimension;\n"
       "    attribute.val.clusterDim.x = c[0], attribute.val.clusterDim.y = c[1], attribute.val.clusterDim.z = "
       "c[2];\n"
       "    config.attrs = &attribute;\n    config.numAttrs = 1;\n  }\n"
       "  return cudaLaunchKernelExC(&config, kernels[s.variant], args);\n";
  return h.str();
}

}  // namespace tune::header::detail

// The ahead-of-time dispatch header: the kernel source instantiated by nvcc once per distinct
// configuration, each copy in its own namespace with its parameters as macros, and a launch()
// that picks the copy for the device and size by the tables' select().
//
// How one source becomes many kernels in one translation unit:
// - `extern "C"` becomes `extern "C++"`: the entry points get C++ linkage, so the copies in
//   namespaces tune_tuned::<kernel>::v<N> are different functions (extern "C" ones would be one
//   function defined N times).
// - The parameters, and every macro the source defines, are saved (#pragma push_macro) and
//   #undef'd before the copies, defined per copy, #undef'd after it, and restored at the end: no
//   macro leaks into the includer, and an includer's `vector` or `group` macro cannot reach the
//   kernel.
// - The source's #include lines are hoisted before the namespaces (headers with include guards
//   then expand once, at global scope); `#pragma once` lines are dropped.
#include <regex>
#include <set>
#include <sstream>

#include "common/error.h"
#include "header/emit.h"
#include "header/header.h"
#include "header/text.h"
#include "header/wrap.h"
#include "run/dtype.h"
#include "spec/launch.h"

namespace tune::header {

namespace {

struct Source {
  std::string body;  // without #include and #pragma once lines
  std::vector<std::string> includes;
  std::set<std::string> macros;  // every name the source #defines
};

Source split(const std::string& text) {
  static const std::regex include(R"(^\s*#\s*include\b.*$)");
  static const std::regex once(R"(^\s*#\s*pragma\s+once\b.*$)");
  static const std::regex define(R"(^\s*#\s*define\s+([A-Za-z_][A-Za-z0-9_]*))");
  Source s;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::smatch m;
    if (std::regex_match(line, include)) {
      s.includes.push_back(line);
      continue;
    }
    if (std::regex_match(line, once)) continue;
    if (std::regex_search(line, m, define)) s.macros.insert(m[1]);
    s.body += line + '\n';
  }
  // extern "C" -> extern "C++" (also inside comments and strings, where it changes nothing).
  static const std::regex extern_c(R"(extern\s*"C")");
  s.body = std::regex_replace(s.body, extern_c, "extern \"C++\"");
  return s;
}

// The C++ type of an argument, as the kernel receives it.
std::string arg_type(const spec::Spec& spec, const spec::Argument& a) {
  const run::DType t = run::parse_dtype(a.type);
  static const char* kNames[] = {
      "bool",         "signed char", "unsigned char",      "short",  "unsigned short", "int",
      "unsigned int", "long long",   "unsigned long long", "__half", "float",          "double"};
  static const char* kVector[] = {nullptr, "char",     "uchar",     "short",  "ushort", "int",
                                  "uint",  "longlong", "ulonglong", "__half", "float",  "double"};
  const auto i = static_cast<std::size_t>(t.scalar);
  std::string name = kNames[i];
  if (t.lanes > 1) {
    const bool ok = kVector[i] != nullptr && (t.lanes <= 4 && (t.scalar != run::Scalar::half || t.lanes == 2));
    if (!ok)
      throw InputError(spec.path.string() + ": argument '" + a.name + "' of type " + comment(a.type, 40) +
                       ": the dispatch header has no CUDA type for it");
    name = std::string(kVector[i]) + std::to_string(t.lanes);
  }
  if (!a.scalar()) {
    const bool read_only = a.access == spec::Access::read_only || (a.access == spec::Access::unspecified && !a.output);
    return (read_only ? "const " : "") + name + "*";
  }
  return name;
}

// A macro body from a define's value: one line of printable text (it is the spec's own value).
std::string macro_body(const spec::Spec& spec, const std::string& name, const std::string& value) {
  for (char c : value)
    if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f || c == '\\')
      throw InputError(spec.path.string() + ": parameter '" + name + "' has the value " + comment(value, 60) +
                       ", which cannot be a one-line macro of the dispatch header");
  return value;
}

}  // namespace

std::string generate_dispatch(const Model& m, const std::string& kernel_source, const std::string& source) {
  const spec::Spec& spec = *m.spec;
  const bool hopper = detail::hopper_launch(spec);
  const Source src = split(kernel_source);
  std::set<std::string> macros = src.macros;
  macros.insert(m.params.begin(), m.params.end());
  bool half = false;
  std::vector<std::string> types;
  for (const auto& a : spec.kernel.arguments) {
    if (a.type == spec::kTensorMapType) {  // encoded by launch() from its buffer: not a parameter
      types.emplace_back();
      continue;
    }
    types.push_back(arg_type(spec, a));
    half = half || types.back().find("__half") != std::string::npos;
  }

  std::ostringstream h;
  h << detail::first_line(m, " --dispatch", source) << "// Kernel " << comment(m.kernel)
    << " compiled ahead of time: every distinct tuned configuration\n"
    << "// of every device below is instantiated once from " << comment(spec.kernel.file) << " in its own\n"
    << "// namespace (tune_tuned::" << m.ns << "::v<N>). Include this file from one .cu file compiled by nvcc\n"
    << "// for the devices you run on ("
    << (spec.launch.arch.empty() ? std::string("e.g. -arch=sm_90")
                                 : "the space's target " + spec.launch.arch + ": -gencode=arch=compute_" +
                                       spec.launch.arch.substr(3) + ",code=" + spec.launch.arch)
    << "). No NVRTC is needed at run time.\n"
    << "//   tune_tuned::" << m.ns << "::launch(stream, x, y, z, arguments...) launches the configuration\n"
    << "//   select() picks for the current device and size x*y*z; select_current(out, x, y, z) says which.\n"
    << "#pragma once\n#include <cuda_runtime.h>\n";
  if (half) h << "#include <cuda_fp16.h>\n";
  if (!spec.launch.tensor_maps.empty())
    h << "#include <cudaTypedefs.h>  // CUtensorMap, cuTensorMapEncodeTiled's type\n";
  h << "#include <mutex>\n";
  for (const auto& inc : src.includes) h << inc << "\n";
  h << "\n" << detail::table_section(m) << "\n";

  h << "// ---- the kernel, once per configuration ----\n";
  for (const auto& name : macros) h << "#pragma push_macro(\"" << name << "\")\n#undef " << name << "\n";
  for (std::size_t v = 0; v < m.variants.size(); ++v) {
    h << "\n// variant " << v << "\nnamespace tune_tuned {\nnamespace " << m.ns << " {\nnamespace v" << v << " {\n";
    for (const auto& [name, value] : m.variants[v].defines)
      h << "#define " << name << " " << macro_body(spec, name, value) << "\n";
    h << src.body;
    for (const auto& name : macros) h << "#undef " << name << "\n";
    h << "}  // namespace v" << v << "\n}  // namespace " << m.ns << "\n}  // namespace tune_tuned\n";
  }
  for (const auto& name : macros) h << "#pragma pop_macro(\"" << name << "\")\n";

  // The dispatch. Every argument is spelt arg_<name>: no name of the generated code (locals, grid,
  // variants, kernels, select, ...) begins so, and distinct names stay distinct.
  std::vector<std::string> arg_names;
  std::string params, names;
  for (std::size_t i = 0; i < types.size(); ++i) {
    if (types[i].empty()) continue;  // a tensor map
    const std::string& n = spec.kernel.arguments[i].name;
    arg_names.push_back("arg_" + n);
    params += ", " + types[i] + " " + arg_names.back();
    names += std::string(i ? ", " : "") + "&" + arg_names.back();
  }
  // The kernel's arguments on a line of their own: the signature stays within the source width.
  const std::string params_line = params.empty() ? "" : ",\n    " + params.substr(2);

  h << "\nnamespace tune_tuned {\nnamespace " << m.ns << " {\n\n"
    << "// The entry point of each variant, for cudaLaunchKernel.\ninline const void* const kernels[] = {\n";
  for (std::size_t v = 0; v < m.variants.size(); ++v)
    h << "    reinterpret_cast<const void*>(&v" << v << "::" << spec.kernel.name << "),\n";
  h << "};\n\n";
  if (hopper) h << detail::hopper_tables(m) << "\n";
  h << "// The selection for the current device at size x*y*z (the device's name and compute capability are\n"
       "// read once per device ordinal).\n"
       "inline cudaError_t select_current(Selection& out, long long x, long long y = 1, long long z = 1) {\n"
       "  struct Id {\n    cudaDeviceProp prop;\n    cudaError_t status;\n  };\n"
       "  constexpr int kMaxDevices = 64;\n"
       "  static Id ids[kMaxDevices];\n  static std::once_flag once[kMaxDevices];\n"
       "  int device = 0;\n  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;\n"
       "  if (device < 0 || device >= kMaxDevices) return cudaErrorInvalidDevice;\n"
       "  std::call_once(once[device], [device] { ids[device].status = cudaGetDeviceProperties(&ids[device].prop, "
       "device); });\n"
       "  if (ids[device].status != cudaSuccess) return ids[device].status;\n"
       "  out = select(ids[device].prop.name, ids[device].prop.major, ids[device].prop.minor, x, y, z);\n"
       "  return cudaSuccess;\n}\n\n"
       "// Launches the selected configuration at size x*y*z on `stream` (no synchronisation).\n"
       "inline cudaError_t launch(const Selection& s, cudaStream_t stream, long long x, long long y, long long z"
    << params_line << ") {\n";
  if (hopper)
    h << detail::hopper_launch_body(m);
  else
    h << "  if (s.variant >= num_variants) return cudaErrorInvalidValue;\n"
         "  const Variant& v = variants[s.variant];\n  const Dim g = grid(v, x, y, z);\n"
         "  void* args[] = {"
      << names
      << "};\n"
         "  return cudaLaunchKernel(kernels[s.variant], dim3(g.x, g.y, g.z), dim3(v.block.x, v.block.y, v.block.z), "
         "args, 0,\n"
         "                          stream);\n";
  h << "}\n\n"
       "// Selects for the current device and launches.\n"
       "inline cudaError_t launch(cudaStream_t stream, long long x, long long y, long long z"
    << params_line
    << ") {\n"
       "  Selection s{};\n  if (cudaError_t e = select_current(s, x, y, z); e != cudaSuccess) return e;\n"
       "  return launch(s, stream, x, y, z";
  for (const auto& n : arg_names) h << ", " << n;
  h << ");\n}\n\n}  // namespace " << m.ns << "\n}  // namespace tune_tuned\n";
  return wrap_code(h.str());
}

}  // namespace tune::header

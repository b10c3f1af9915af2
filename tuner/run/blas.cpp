#include "run/blas.h"

#include <string>
#include <type_traits>

#include "common/error.h"
#include "run/library.h"

#ifndef TUNE_CUDA_LIBRARY_DIR
#define TUNE_CUDA_LIBRARY_DIR ""
#endif

namespace tune::run {

namespace {

struct Loaded {
  Library lib;
  BlasApi api;
  std::string error;  // empty when api is complete
};

Loaded load(const std::string& name, const std::string& dir) {
  Loaded out;
  // never unloaded: a handle a Session still holds at exit stays valid while static objects go
  constexpr auto kUnload = Library::Unload::never;
  out.lib = Library::open(name, kUnload);
  std::string why = out.lib.error();
  if (!out.lib && !dir.empty()) {
    out.lib = Library::open(dir + "/" + name, kUnload);
    if (!out.lib) why += "; " + out.lib.error();
  }
  if (!out.lib) {
    out.error = "cuBLAS (" + name + ") could not be loaded, which the cuBLAS ceilings need: " + why +
                " (install CUDA's cuBLAS, or put its folder in LD_LIBRARY_PATH)";
    return out;
  }
  auto find = [&](auto& fn, const char* symbol) {
    fn = out.lib.function<std::remove_reference_t<decltype(fn)>>(symbol);
    if (fn == nullptr && out.error.empty()) out.error = name + " has no function " + symbol;
  };
  find(out.api.create, "cublasCreate_v2");
  find(out.api.destroy, "cublasDestroy_v2");
  find(out.api.set_math_mode, "cublasSetMathMode");
  find(out.api.sgeam, "cublasSgeam");
  find(out.api.sgemm, "cublasSgemm_v2");
  find(out.api.gemm_ex, "cublasGemmEx");
  out.api.set_emulation_strategy = out.lib.function<BlasApi::SetEmulationStrategy>("cublasSetEmulationStrategy");
  find(out.api.status_name, "cublasGetStatusName");
  find(out.api.status_string, "cublasGetStatusString");
  return out;
}

}  // namespace

std::string blas_library() { return "libcublas.so." + std::to_string(CUBLAS_VER_MAJOR); }

std::string blas_load_error(const std::string& name, const std::string& dir) { return load(name, dir).error; }

const BlasApi& blas() {
  static const Loaded loaded = load(blas_library(), TUNE_CUDA_LIBRARY_DIR);
  if (!loaded.error.empty()) throw Error(loaded.error);
  return loaded.api;
}

}  // namespace tune::run

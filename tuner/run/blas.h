// cuBLAS, loaded at run time with dlopen by the first ceiling that needs it. Linked, its static
// initialisation costs every tune process about 0.13 s of CPU time and 218 MB of memory at start,
// and a main job starts many of them (tune, its GPU worker, a compile server per core but one)
// for the few calls the cuBLAS ceilings make. The types and constants still come from
// cublas_v2.h; only the functions below are looked up.
#pragma once
#include <string>

#include <cublas_v2.h>

namespace tune::run {

struct BlasApi {
  decltype(&::cublasCreate_v2) create = nullptr;
  decltype(&::cublasDestroy_v2) destroy = nullptr;
  decltype(&::cublasSetMathMode) set_math_mode = nullptr;
  decltype(&::cublasSgeam) sgeam = nullptr;
  decltype(&::cublasSgemm_v2) sgemm = nullptr;
  // The C functions (cublas_api.h also declares C++ overloads of these names).
  using GemmEx = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int, const void*,
                                    const void*, cudaDataType, int, const void*, cudaDataType, int, const void*, void*,
                                    cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
  using SetEmulationStrategy = cublasStatus_t (*)(cublasHandle_t, cublasEmulationStrategy_t);
  GemmEx gemm_ex = nullptr;
  // Optional (nullptr in a library without emulation): the emulated-FP32 ceiling's strategy.
  SetEmulationStrategy set_emulation_strategy = nullptr;
  decltype(&::cublasGetStatusName) status_name = nullptr;
  decltype(&::cublasGetStatusString) status_string = nullptr;
};

// The library's soname, libcublas.so.<major> of the headers built against.
std::string blas_library();

// The loaded library, loaded on the first call (thread-safe; later calls return the same). The
// soname is looked up as the dynamic loader does (LD_LIBRARY_PATH, the cache), then in the CUDA
// toolkit's library folder found at build time. Throws Error naming the library, where it was
// looked for and dlerror()'s reason, or the missing function; every later call throws the same.
const BlasApi& blas();

// What loading `name` (the loader's search, then `dir` when not empty) would report: empty when it
// loads with every function above, else blas()'s error. Loads and releases it; for tests.
std::string blas_load_error(const std::string& name, const std::string& dir);

}  // namespace tune::run

// Helpers of the runtime tests: the table of the sweep recorded on an H200 (results/recorded/),
// written by the header module as `tune header --table` writes it; a GPU test's input and output.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "header/header.h"
#include "interop/interop.h"
#include "store/test_util.h"

namespace tune::runtime::testing {

inline std::string source_dir() { return TUNE_SOURCE_DIR; }
inline std::string spec_path() { return source_dir() + "/spaces/transpose.json"; }

// Eight sizes of the H200 sweep, also as an "NVIDIA H100 80GB HBM3" (compute capability 9.0) that
// has 512 and 1024 only; the database, the spec, the model and the table file.
struct Recorded {
  store::testing::TempDir dir;
  spec::Spec spec = spec::load(spec_path());
  store::Store db = store::Store::open((dir.path() / "r.db").string(), store::Store::Mode::read_write);
  std::filesystem::path table = dir.path() / "transpose_table.json";
  header::Model model;

  Recorded() {
    const std::string rec = source_dir() + "/results/recorded/transpose/";
    for (const char* s :
         {"128x128", "256x256", "306x306", "512x512", "1152x1152", "1664x1664", "2176x2176", "4096x4096"})
      interop::import_file(db, rec + s + ".json.gz", {std::nullopt, std::nullopt, &spec});
    for (const char* s : {"512x512", "1152x1152"})
      interop::import_file(db, rec + s + ".json.gz", {std::nullopt, std::string("NVIDIA H100 80GB HBM3"), &spec});
    for (const char* device : {"NVIDIA H200", "NVIDIA H100 80GB HBM3"}) {
      store::RunInfo info;
      info.kernel = "transpose";
      info.device = device;
      info.compute_capability = "9.0";
      db.finish_run(db.begin_run(info), store::RunStatus::completed);
    }
    model = header::build(db, "transpose", spec);
    std::ofstream(table) << header::generate_table(model, "r.db");
  }
};

// n floats of input, host[i] = (i % 9973) * scale, and n of output on the GPU, freed with the
// struct (so an ASSERT that returns early leaks nothing); ok when both are allocated and `in` holds
// `host`.
struct DeviceBuffers {
  std::size_t n;
  std::vector<float> host;
  float *in = nullptr, *out = nullptr;
  bool ok = false;
  DeviceBuffers(std::size_t count, float scale) : n(count), host(count) {
    for (std::size_t i = 0; i < n; ++i) host[i] = float(i % 9973) * scale;
    ok = cudaMalloc(reinterpret_cast<void**>(&in), n * sizeof(float)) == cudaSuccess &&
         cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(float)) == cudaSuccess &&
         cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
  }
  ~DeviceBuffers() {
    (void)cudaFree(in);
    (void)cudaFree(out);
  }
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  std::vector<float> read(const float* p) const {  // empty when the copy fails
    std::vector<float> v(n);
    if (cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) v.clear();
    return v;
  }
};

// A copy of `host` on the GPU, freed with the struct; ok when it was allocated and copied.
struct DeviceFloats {
  std::size_t n;
  float* p = nullptr;
  bool ok = false;
  explicit DeviceFloats(const std::vector<float>& host) : n(host.size()) {
    ok = cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)) == cudaSuccess && write(host);
  }
  ~DeviceFloats() { (void)cudaFree(p); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  bool write(const std::vector<float>& host) const {
    return host.size() == n && cudaMemcpy(p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
  }
  std::vector<float> read() const {  // empty when the copy fails
    std::vector<float> v(n);
    if (cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) v.clear();
    return v;
  }
};

// Holds all but about `leave` bytes of the device's free memory (rounded to 2 MiB), freed with the
// struct: how a test makes the GPU's memory scarce. ok when held.
struct MemoryHold {
  void* p = nullptr;
  bool ok = false;
  explicit MemoryHold(std::size_t leave) {
    std::size_t free = 0, total = 0;
    if (cudaMemGetInfo(&free, &total) != cudaSuccess || free <= leave) return;
    const std::size_t mib2 = std::size_t(2) << 20;
    ok = cudaMalloc(&p, (free - leave) / mib2 * mib2) == cudaSuccess;
  }
  ~MemoryHold() { (void)cudaFree(p); }
  MemoryHold(const MemoryHold&) = delete;
  MemoryHold& operator=(const MemoryHold&) = delete;
};

}  // namespace tune::runtime::testing

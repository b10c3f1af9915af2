// Helpers of the runtime tests: the table of the sweep recorded on an H200 (results/recorded/),
// written by the header module as `tune header --table` writes it; a GPU test's input and output.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
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

// Why a GPU test cannot run here: "" when there is a CUDA device.
inline std::string no_gpu() {
  int n = 0;
  const cudaError_t e = cudaGetDeviceCount(&n);
  if (e == cudaSuccess && n > 0) return "";
  (void)cudaGetLastError();
  return std::string("no GPU: ") + (e != cudaSuccess ? cudaGetErrorString(e) : "no CUDA device");
}

// n floats read back from the GPU; empty when the copy fails.
inline std::vector<float> read_floats(const float* p, std::size_t n) {
  std::vector<float> v(n);
  if (cudaMemcpy(v.data(), p, n * sizeof(float), cudaMemcpyDeviceToHost) != cudaSuccess) v.clear();
  return v;
}

// Where `got` first differs from `want`: want.size() when it does not at all (the shorter's size
// when only their sizes differ).
inline std::size_t first_difference(const std::vector<float>& got, const std::vector<float>& want) {
  const std::size_t n = std::min(got.size(), want.size());
  const auto at =
      static_cast<std::size_t>(std::mismatch(got.begin(), got.begin() + n, want.begin()).first - got.begin());
  return at < n || got.size() != want.size() ? at : want.size();
}

// n floats on the GPU, freed with the struct (so an ASSERT that returns early leaks nothing),
// uninitialised or a copy of `host`; ok when allocated (and copied).
struct DeviceFloats {
  std::size_t n;
  float* p = nullptr;
  bool ok = false;
  explicit DeviceFloats(std::size_t count) : n(count) {
    ok = cudaMalloc(reinterpret_cast<void**>(&p), n * sizeof(float)) == cudaSuccess;
  }
  explicit DeviceFloats(const std::vector<float>& host) : DeviceFloats(host.size()) { ok = ok && write(host); }
  ~DeviceFloats() { (void)cudaFree(p); }
  DeviceFloats(const DeviceFloats&) = delete;
  DeviceFloats& operator=(const DeviceFloats&) = delete;
  bool write(const std::vector<float>& host) const {
    return host.size() == n && cudaMemcpy(p, host.data(), n * sizeof(float), cudaMemcpyHostToDevice) == cudaSuccess;
  }
  std::vector<float> read() const { return read_floats(p, n); }
};

// A transpose's buffers: n floats of input, host[i] = (i % 9973) * scale, and n of output on the
// GPU; ok when both are allocated and `in` holds `host`.
struct DeviceBuffers {
  std::vector<float> host;
  DeviceFloats input, output;
  std::size_t n = host.size();
  float* in = input.p;
  float* out = output.p;
  bool ok = input.ok && output.ok;
  DeviceBuffers(std::size_t count, float scale) : host(pattern(count, scale)), input(host), output(count) {}
  std::vector<float> read(const float* p) const { return read_floats(p, n); }
  // What a transpose of `host`, rows of `cols`, writes: `rows` floats per row of the output.
  std::vector<float> transposed(long long cols, long long rows) const {
    std::vector<float> t(n);
    for (long long r = 0; r < rows; ++r)
      for (long long c = 0; c < cols; ++c) t[std::size_t(c * rows + r)] = host[std::size_t(r * cols + c)];
    return t;
  }

 private:
  static std::vector<float> pattern(std::size_t count, float scale) {
    std::vector<float> v(count);
    for (std::size_t i = 0; i < count; ++i) v[i] = float(i % 9973) * scale;
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

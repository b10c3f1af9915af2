// NVRTC compiles of the project's kernel templates for sm_90 (no GPU needed).
#include "compile/compile.h"
#include "compile/source.h"

#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <sstream>

#include "common/error.h"

namespace tune::compile {
namespace {

using Defines = std::vector<std::pair<std::string, std::string>>;

// The program as the sweep compiles it: the kernel file with its shared headers written in.
std::string read_source(const std::string& rel) {
  return read_kernel_source(std::string(TUNE_SOURCE_DIR) + "/" + rel, rel, {.name = rel}).text;
}

CompileRequest request(const std::string& file, const std::string& kernel, Defines defines) {
  CompileRequest r;
  r.source = read_source(file);
  r.source_name = file;
  r.kernel_name = kernel;
  r.defines = std::move(defines);
  return r;
}

void expect_cubin(const CompileResult& res, const std::string& what) {
  ASSERT_TRUE(res.ok()) << what << "\n" << res.log;
  ASSERT_GE(res.cubin.size(), 4u) << what;
  EXPECT_EQ(res.cubin.substr(0, 4), std::string("\x7f"
                                                "ELF"))
      << what;
  EXPECT_TRUE(res.resources.parsed) << what << "\n" << res.log;
  EXPECT_GT(res.resources.registers, 0) << what;
  EXPECT_LE(res.resources.registers, 255) << what;
  EXPECT_EQ(res.resources.spill_stores, 0) << what;
  EXPECT_GT(res.wall_ms, 0.0) << what;
}

struct TransposeCase {
  int bx, by, tsy, vec, shared, pad, diag, tiles, streaming, group = 1;
};

TEST(Compile, TransposeVariantsGiveCubinsWithTheirSharedTile) {
  const TransposeCase cases[] = {
      {32, 8, 4, 1, 1, 1, 0, 1, 0},       // seeds' transposeNoBankConflicts (32x32 tile, 32x8 threads)
      {32, 8, 4, 1, 1, 0, 0, 1, 0},       // seeds' transposeCoalesced (no padding)
      {32, 8, 4, 1, 0, 0, 0, 1, 0},       // seeds' transposeNaive
      {32, 8, 4, 1, 1, 1, 1, 1, 0},       // diagonal block mapping
      {64, 8, 8, 1, 1, 1, 0, 1, 0},       // 64x64 tile
      {16, 8, 8, 4, 1, 1, 0, 2, 0},       // float4, 64x64 tile, two tiles per block
      {8, 16, 2, 4, 1, 1, 1, 1, 1},       // float4, 32x32 tile, streaming hints
      {32, 4, 4, 2, 1, 1, 0, 1, 0},       // float2, rectangular 64x16 tile
      {16, 8, 4, 4, 0, 0, 0, 1, 0},       // float4 register transpose, no shared memory
      {64, 16, 4, 2, 1, 1, 0, 1, 1},      // float2, 128x64 tile, 1024 threads (best at 16384 on an H200)
      {16, 16, 4, 4, 1, 1, 0, 1, 0, 16},  // block swizzle over groups of 16 tile rows
  };
  for (const auto& c : cases) {
    const Defines d = {{"block_size_x", std::to_string(c.bx)},     {"block_size_y", std::to_string(c.by)},
                       {"tile_size_y", std::to_string(c.tsy)},     {"vector", std::to_string(c.vec)},
                       {"use_shared", std::to_string(c.shared)},   {"padding", std::to_string(c.pad)},
                       {"diagonal", std::to_string(c.diag)},       {"tiles", std::to_string(c.tiles)},
                       {"streaming", std::to_string(c.streaming)}, {"group", std::to_string(c.group)}};
    std::string what;
    for (const auto& [k, v] : d) what += k + "=" + v + " ";
    const CompileResult res = compile(request("kernels_src/transpose.cu", "transpose", d));
    expect_cubin(res, what);
    EXPECT_EQ(res.lowered_name, "transpose");
    const int tile_bytes = c.by * c.tsy * (c.bx * c.vec + c.pad) * 4;
    EXPECT_EQ(res.resources.static_shared, c.shared ? tile_bytes : 0) << what;
    EXPECT_EQ(res.resources.barriers, c.shared ? 1 : 0) << what;
  }
}

TEST(Compile, ReferencesCompileWithTheTemplatesDefaults) {
  // The tuner compiles a spec's reference kernel with every parameter at its Default; without any
  // define the templates fall back to the seeds' 32x32 tile with 32x8 threads.
  struct Case {
    const char* file;
    const char* kernel;
    int shared;
  };
  const Case cases[] = {{"kernels_src/transpose.cu", "transpose_reference", 0},
                        {"kernels_src/transpose.cu", "transpose", 32 * 33 * 4},
                        {"kernels_src/copy.cu", "copy_reference", 0},
                        {"kernels_src/copy.cu", "increment_reference", 0},
                        {"kernels_src/copy.cu", "copy_shared", 32 * 4}};
  for (const auto& c : cases) {
    const CompileResult res = compile(request(c.file, c.kernel, {}));
    expect_cubin(res, c.kernel);
    EXPECT_EQ(res.lowered_name, c.kernel);
    EXPECT_EQ(res.resources.static_shared, c.shared) << c.kernel;
  }
}

TEST(Compile, EveryCopyKernelCompiles) {
  struct Case {
    const char* kernel;
    Defines defines;
    int shared;
  };
  const Case cases[] = {
      {"copy", {{"block_size_x", "32"}, {"block_size_y", "8"}, {"tile_size_y", "4"}}, 0},
      {"copy", {{"block_size_x", "32"}, {"block_size_y", "8"}, {"tile_size_y", "4"}, {"vector", "4"}}, 0},
      {"copy_shared", {{"block_size_x", "32"}, {"block_size_y", "8"}, {"tile_size_y", "4"}}, 32 * 32 * 4},
      {"copy_shared",
       {{"block_size_x", "16"}, {"block_size_y", "8"}, {"tile_size_y", "8"}, {"vector", "4"}},
       64 * 64 * 4},
      {"copy_vec", {{"block_size_x", "256"}, {"block_size_y", "1"}, {"tile_size_y", "4"}, {"vector", "4"}}, 0},
      {"offset_access", {{"block_size_x", "256"}, {"access_offset", "7"}}, 0},
      {"stride_access", {{"block_size_x", "1024"}, {"access_stride", "32"}}, 0},
  };
  for (const auto& c : cases) {
    const CompileResult res = compile(request("kernels_src/copy.cu", c.kernel, c.defines));
    expect_cubin(res, c.kernel);
    EXPECT_EQ(res.lowered_name, c.kernel);
    EXPECT_EQ(res.resources.static_shared, c.shared) << c.kernel;
  }
}

TEST(Compile, BrokenDefineIsAFailedResultWithTheErrorInTheLog) {
  CompileResult res = compile(request("kernels_src/transpose.cu", "transpose", {{"vector", "abc"}}));
  EXPECT_EQ(res.status, Status::compile_failed);
  EXPECT_TRUE(res.cubin.empty());
  EXPECT_NE(res.log.find("error"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("\"abc\" is undefined"), std::string::npos) << res.log;

  res = compile(request("kernels_src/transpose.cu", "transpose", {{"vector", "3"}}));
  EXPECT_EQ(res.status, Status::compile_failed);
  EXPECT_NE(res.log.find("vector must be 1, 2 or 4"), std::string::npos) << res.log;
}

TEST(Compile, UnknownKernelNameFails) {
  const CompileResult res = compile(request("kernels_src/copy.cu", "no_such_kernel", {}));
  EXPECT_EQ(res.status, Status::compile_failed);
  EXPECT_NE(res.log.find("no_such_kernel"), std::string::npos) << res.log;
}

TEST(Compile, InvalidOptionIsAFailedResult) {
  CompileRequest req = request("kernels_src/copy.cu", "copy", {});
  req.options = {"--no-such-option"};
  const CompileResult res = compile(req);
  EXPECT_EQ(res.status, Status::compile_failed);
  EXPECT_NE(res.log.find("--no-such-option"), std::string::npos) << res.log;
}

TEST(Compile, SharedMemoryHungryTileFailsAndTheLogSaysWhy) {
  // 64 rows x (256 + 1) floats = 65792 B of static shared memory, over the 48 KiB limit.
  const CompileResult res =
      compile(request("kernels_src/transpose.cu", "transpose",
                      {{"block_size_x", "64"}, {"block_size_y", "16"}, {"tile_size_y", "4"}, {"vector", "4"}}));
  EXPECT_EQ(res.status, Status::compile_failed);
  EXPECT_TRUE(res.cubin.empty());
  EXPECT_EQ(res.resources.static_shared, 65792) << res.log;
  EXPECT_NE(res.log.find("uses too much shared data"), std::string::npos) << res.log;
  EXPECT_EQ(res.log.find('\0'), std::string::npos);
}

TEST(Compile, RegisterCapMakesSpillsThatTheReportShows) {
  // 32 live floats under a cap of 16 registers must spill (__launch_bounds__ would override
  // --maxrregcount, so this kernel has none).
  CompileRequest req;
  req.source =
      "extern \"C\" __global__ void heavy(float* out, const float* in) {\n"
      "  float a[32];\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 32; ++i) a[i] = in[i * 1024 + threadIdx.x];\n"
      "  float s = 0.0f;\n"
      "#pragma unroll\n"
      "  for (int i = 0; i < 32; ++i)\n"
      "#pragma unroll\n"
      "    for (int j = 0; j < 32; ++j) s += a[i] * a[31 - j] * (i ^ j);\n"
      "  out[threadIdx.x] = s;\n"
      "}\n";
  req.source_name = "heavy.cu";
  req.kernel_name = "heavy";
  const CompileResult free = compile(req);
  ASSERT_TRUE(free.ok()) << free.log;
  EXPECT_EQ(free.resources.spill_stores, 0) << free.log;
  EXPECT_GT(free.resources.registers, 32) << free.log;
  req.options = {"--maxrregcount=16"};
  const CompileResult capped = compile(req);
  ASSERT_TRUE(capped.ok()) << capped.log;
  EXPECT_LE(capped.resources.registers, 24) << capped.log;
  EXPECT_GT(capped.resources.spill_stores, 0) << capped.log;
  EXPECT_GT(capped.resources.spill_loads, 0) << capped.log;
  EXPECT_GT(capped.resources.stack_frame, 0) << capped.log;
}

TEST(Compile, NonRealTargetIsMisuse) {
  CompileRequest req = request("kernels_src/copy.cu", "copy", {});
  req.arch = "compute_90";
  EXPECT_THROW(compile(req), InputError);
  req.arch = "sm_90a";
  EXPECT_TRUE(compile(req).ok());
}

TEST(Compile, VersionLooksLikeMajorDotMinor) {
  const std::string v = nvrtc_version();
  EXPECT_TRUE(std::regex_match(v, std::regex(R"(\d+\.\d+)"))) << v;
  EXPECT_GE(std::stoi(v), 12);
}

TEST(Compile, CacheKeyCoversSourceOptionsTargetAndVersion) {
  const CompileRequest base =
      request("kernels_src/transpose.cu", "transpose", {{"vector", "4"}, {"block_size_x", "8"}});
  const std::string key = cache_key(base, "13.0");
  EXPECT_EQ(key.size(), 32u);
  EXPECT_EQ(key, cache_key(base, "13.0"));

  CompileRequest same = base;
  same.tag = 99;
  same.source_name = "elsewhere/transpose.cu";
  EXPECT_EQ(key, cache_key(same, "13.0"));

  EXPECT_NE(key, cache_key(base, "13.1"));
  CompileRequest r = base;
  r.defines[0].second = "2";
  EXPECT_NE(key, cache_key(r, "13.0"));
  r = base;
  std::swap(r.defines[0], r.defines[1]);
  EXPECT_NE(key, cache_key(r, "13.0"));
  r = base;
  r.arch = "sm_90a";
  EXPECT_NE(key, cache_key(r, "13.0"));
  r = base;
  r.options = {"-std=c++17"};
  EXPECT_NE(key, cache_key(r, "13.0"));
  r = base;
  r.source += "\n";
  EXPECT_NE(key, cache_key(r, "13.0"));
  r = base;
  r.kernel_name = "copy";
  EXPECT_NE(key, cache_key(r, "13.0"));
}

TEST(Compile, OptionsListTargetReportDefinesThenExtras) {
  CompileRequest req;
  req.defines = {{"a", "1"}, {"b", "x y"}};
  req.options = {"-std=c++17"};
  const std::vector<std::string> expected = {"--gpu-architecture=sm_90", "--ptxas-options=-v", "-Da=1", "-Db=x y",
                                             "-std=c++17"};
  EXPECT_EQ(nvrtc_options(req), expected);
}

}  // namespace
}  // namespace tune::compile

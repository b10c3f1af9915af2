// A kernel's program text: shared headers written in once, with #line markers that keep NVRTC's
// diagnostics on the header's lines; the bounds; the real kernels and their shared header.
#include "compile/source.h"

#include <gtest/gtest.h>

#include <algorithm>

#include "common/error.h"
#include "compile/compile.h"
#include "store/test_util.h"

namespace tune::compile {
namespace {

namespace fs = std::filesystem;

// The store tests' scratch directory, writing files into sub-folders too.
struct Dir : store::testing::TempDir {
  fs::path write(const std::string& name, const std::string& text) const {
    fs::path p = path() / name;
    fs::create_directories(p.parent_path());
    store::testing::write_bytes(p.string(), text);
    return p;
  }
};

std::string slurp(const fs::path& p) { return store::testing::read_bytes(p.string()); }

using Defines = std::vector<std::pair<std::string, std::string>>;

const fs::path kKernels = "kernels_src";  // the tests run in the source tree

SourceOptions bare() {
  SourceOptions o;
  o.line_markers = false;
  return o;
}

SourceOptions bounded(std::size_t max_bytes, std::size_t max_files, int max_depth) {
  SourceOptions o;
  o.max_bytes = max_bytes;
  o.max_files = max_files;
  o.max_depth = max_depth;
  return o;
}

TEST(KernelSource, AFileWithoutSharedHeadersIsItsTextByteForByte) {
  // copy.cu includes nothing of ours: its cubin cache key stays what it was
  for (const char* name : {"copy.cu"}) {
    const KernelSource s = read_kernel_source(kKernels / name, "test");
    EXPECT_EQ(s.text, slurp(kKernels / name)) << name;
    EXPECT_EQ(s.files.size(), 1u);
  }
  Dir d;
  const auto f = d.write("k.cu", "#include <cuda_fp16.h>\n#include \"absent.cuh\"\nint x;");  // no final newline
  EXPECT_EQ(read_kernel_source(f, "test").text, slurp(f));
}

TEST(KernelSource, HeadersAreWrittenInOnceWithLineMarkers) {
  Dir d;
  d.write("common/a.cuh", "#pragma once\n#include \"b.cuh\"\nint a;\n");
  d.write("common/b.cuh", "int b;");
  const auto k = d.write("k.cu", "// k\n#include \"common/a.cuh\"\n#include \"common/b.cuh\"\nint k;\n");
  const KernelSource s = read_kernel_source(k, "test", {.name = "kernels/k.cu"});
  EXPECT_EQ(s.text,
            "// k\n"
            "#line 1 \"common/a.cuh\"\n"
            "\n"
            "#line 1 \"common/b.cuh\"\n"
            "int b;\n"
            "#line 3 \"common/a.cuh\"\n"
            "int a;\n"
            "#line 3 \"kernels/k.cu\"\n"
            "\n"  // the second include of b: an empty line, so that "int k;" stays line 4
            "int k;\n");
  ASSERT_EQ(s.files.size(), 3u);
  EXPECT_EQ(s.files[1].filename(), "a.cuh");
  EXPECT_EQ(s.files[2].filename(), "b.cuh");
  // without markers: the same program, no #line
  const std::string plain = read_kernel_source(k, "test", bare()).text;
  EXPECT_EQ(plain, "// k\n\nint b;\nint a;\n\nint k;\n");
}

TEST(KernelSource, NvrtcNamesTheHeaderAndItsLineInAnError) {
  Dir d;
  d.write("common/h.cuh", "__device__ int twice(int x) { return 2 * x; }\n__device__ int broken() { return y; }\n");
  const auto k = d.write("k.cu",
                         "#include \"common/h.cuh\"\n"
                         "extern \"C\" __global__ void k(int* a) { a[0] = twice(a[0]); }\n"
                         "extern \"C\" __global__ void j(int* a) { a[0] = nope; }\n");
  CompileRequest r;
  r.source = read_kernel_source(k, "test", {.name = "k.cu"}).text;
  r.source_name = "k.cu";
  r.kernel_name = "k";
  const CompileResult res = compile(r);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.log.find("common/h.cuh(2)"), std::string::npos) << res.log;
  EXPECT_NE(res.log.find("k.cu(3)"), std::string::npos) << res.log;
}

TEST(KernelSource, TheCacheKeyFollowsTheHeadersText) {
  Dir d;
  d.write("h.cuh", "#define SCALE 2\n");
  const auto k = d.write("k.cu", "#include \"h.cuh\"\nextern \"C\" __global__ void k(int* a) { a[0] *= SCALE; }\n");
  CompileRequest r;
  r.kernel_name = "k";
  r.source = read_kernel_source(k, "test").text;
  const std::string before = cache_key(r, "13.0");
  d.write("h.cuh", "#define SCALE 3\n");
  r.source = read_kernel_source(k, "test").text;
  EXPECT_NE(cache_key(r, "13.0"), before);
}

TEST(KernelSource, BoundsAndMissingFilesAreInputErrorsNamingTheInclude) {
  Dir d;
  auto message = [](const fs::path& f, const SourceOptions& o) {
    try {
      read_kernel_source(f, "spec.json: KernelFile", o);
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("/nonexistent/k.cu", {}), "spec.json: KernelFile /nonexistent/k.cu is not a readable file");
  // a chain of 4 headers, each including the next
  for (int i = 0; i < 4; ++i)
    d.write("h" + std::to_string(i) + ".cuh", "#include \"h" + std::to_string(i + 1) + ".cuh\"\n");
  d.write("h4.cuh", "int deep;\n");
  const auto k = d.write("deep.cu", "#include \"h0.cuh\"\n");
  EXPECT_NE(read_kernel_source(k, "t").text.find("int deep;"), std::string::npos);
  std::string m = message(k, bounded(1 << 20, 64, 3));
  EXPECT_NE(m.find("nested more than 3 deep"), std::string::npos) << m;
  EXPECT_NE(m.find("h2.cuh:1: #include \"h3.cuh\""), std::string::npos) << m;
  m = message(k, bounded(1 << 20, 2, 16));
  EXPECT_NE(m.find("more than 2 files"), std::string::npos) << m;
  d.write("big.cuh", std::string(2000, ' ') + "\n");
  m = message(d.write("big.cu", "#include \"big.cuh\"\n#include \"big.cuh\"\nint k;\n"), bounded(1500, 64, 16));
  EXPECT_NE(m.find("larger than"), std::string::npos) << m;
  // a header that includes itself, and two that include each other: written in once each
  d.write("self.cuh", "#include \"self.cuh\"\nint s;\n");
  d.write("p.cuh", "#include \"q.cuh\"\nint p;\n");
  d.write("q.cuh", "#include \"p.cuh\"\nint q;\n");
  const std::string t =
      read_kernel_source(d.write("cyc.cu", "#include \"self.cuh\"\n#include \"p.cuh\"\n"), "t", bare()).text;
  EXPECT_EQ(t, "\nint s;\n\nint q;\nint p;\n");  // each include of a file already in: an empty line
}

// Both FP32 GEMMs verify against one reference: common/gemm_reference.cuh, no copy of its body.
TEST(KernelSource, TheGemmsShareTheirReference) {
  for (const char* file : {"gemm.cu", "gemm_wgmma.cu"}) {
    SCOPED_TRACE(file);
    const KernelSource s = read_kernel_source(kKernels / file, "test", {.name = file});
    bool found = false;
    for (const auto& f : s.files)
      found = found || f.lexically_relative(kKernels).generic_string() == "common/gemm_reference.cuh";
    EXPECT_TRUE(found);
    EXPECT_EQ(slurp(kKernels / file).find("__shared__ float as[16][17]"), std::string::npos) << "a copy is back";
  }
}

TEST(KernelSource, TheComputeKernelsShareTheirHelpersAndCompile) {
  struct Case {
    const char* file;
    std::vector<std::string> headers;
    Defines mma;  // a tensor-core configuration of the kernel's space
  };
  // a tensor-core configuration: the tile all three spaces share, and each kernel's own switches
  auto tensor_cores = [](Defines own) {
    Defines d = {{"block_size_x", "16"}, {"block_size_y", "8"}, {"tile_size_x", "4"}, {"tile_size_y", "4"},
                 {"tile_k", "16"},       {"padding", "4"},      {"mma", "1"}};
    d.insert(d.end(), own.begin(), own.end());
    return d;
  };
  const Case cases[] = {
      {"gemm.cu",
       {"common/mma_tf32.cuh", "common/gemm_reference.cuh"},
       tensor_cores({{"use_shared", "1"}, {"vector", "4"}})},
      {"matching.cu",
       {"common/match.cuh", "common/row_stages.cuh", "common/mma_tf32.cuh"},
       tensor_cores({{"chunk", "4"}})},
      {"pairwise.cu",
       {"common/row_stages.cuh", "common/mma_tf32.cuh"},
       tensor_cores({{"use_shared", "1"}, {"expand", "1"}})},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const KernelSource s = read_kernel_source(kKernels / c.file, "test", {.name = c.file});
    ASSERT_EQ(s.files.size(), c.headers.size() + 1);
    for (std::size_t i = 0; i < c.headers.size(); ++i)
      EXPECT_EQ(s.files[i + 1].lexically_relative(kKernels).generic_string(), c.headers[i]);
    std::vector<std::string> helpers = {"void split(", "void mma_tf32("};
    if (std::find(c.headers.begin(), c.headers.end(), "common/row_stages.cuh") != c.headers.end())
      helpers.insert(helpers.end(), {"struct Staged", "void load_stage(", "void store_rows("});
    for (const auto& helper : helpers)
      EXPECT_EQ(slurp(kKernels / c.file).find(helper), std::string::npos) << "a copy of " << helper << " is back";
    // the program compiles for Hopper with the defaults and on tensor cores, and only through the
    // written-in text: the source name points nowhere, so NVRTC could not find the headers itself
    const std::string kernel = std::filesystem::path(c.file).stem().string();
    for (const auto& defines : {Defines{}, c.mma}) {
      CompileRequest r;
      r.source = s.text;
      r.source_name = "/nonexistent/" + std::string(c.file);
      r.kernel_name = kernel;
      r.defines = defines;
      const CompileResult res = compile(r);
      EXPECT_TRUE(res.ok()) << res.log;
      EXPECT_EQ(res.resources.spill_stores, 0) << res.log;
    }
  }
}

}  // namespace
}  // namespace tune::compile

// A kernel's program text, read once for every compile of it: the kernel file with the shared
// device code it includes (`#include "common/mma_tf32.cuh"`, resolved from the including file's
// folder) written in place, as CLBlast assembles its kernels from shared parts. The text is then
// the whole program: NVRTC needs no include path, the cubin cache key (compile::cache_key) covers
// every header's text, and the dispatch header gets one self-contained body.
//
// Rules:
// - Only quoted includes are resolved, and only to files that exist beside the includer; an angle
//   include (<cuda_fp16.h>) or a quoted one not found there stays as written, for NVRTC.
// - Each file is written in once per program (a shared header behaves as `#pragma once`), and a
//   `#pragma once` line is dropped.
// - With line markers, `#line` directives keep NVRTC's diagnostics naming the header and its line,
//   then the includer's line again.
// - Bounds: 16 MiB of text in all, 64 files, includes nested 16 deep; beyond them, and for a file
//   that cannot be read, an InputError that names the file and the include.
#pragma once
#include <cstddef>
#include <filesystem>
#include <string>
#include <vector>

namespace tune::compile {

struct KernelSource {
  std::string text;                          // the program, headers written in
  std::vector<std::filesystem::path> files;  // the kernel file, then each header in the order written in
};

struct SourceOptions {
  std::string name;          // the kernel file's name in #line directives (default: the path)
  bool line_markers = true;  // false: no #line directives (the dispatch header's body)
  std::size_t max_bytes = std::size_t{16} << 20;
  std::size_t max_files = 64;
  int max_depth = 16;
};

// Reads `file` (named `what` in errors, e.g. "spaces/gemm.json: KernelFile") and writes in the
// headers it includes. Throws InputError for a file that is missing, unreadable or over a bound.
KernelSource read_kernel_source(const std::filesystem::path& file, const std::string& what,
                                const SourceOptions& options = {});

// The files a kernel's program is read from: `file` and the headers it includes, as far as they
// can be read (`file` alone when it cannot). An output may not replace any of them.
std::vector<std::filesystem::path> kernel_files(const std::filesystem::path& file);

}  // namespace tune::compile

// Every configuration of every shipped space compiles with NVRTC for sm_90 (no GPU needed), or
// fails for a resource reason that the tuner would store with the compiler's message. One test per
// space and shard (configurations c with c % kShards == shard), so that ctest spreads the ~1,600
// compiles over the cores and no single test runs for many minutes on a 2-core CI machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <ostream>

#include "compile/pool.h"
#include "compile/source.h"
#include "space/space.h"
#include "spec/bind.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

constexpr std::size_t kShards = 4;

std::vector<std::string> shipped_spaces() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(fs::path(TUNE_SOURCE_DIR) / "spaces"))
    if (entry.path().extension() == ".json") names.push_back(entry.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

struct Shard {
  std::string space;
  std::size_t index;
};
// How ctest and gtest name a shard ("gemm shard 2 of 4"), instead of its bytes.
void PrintTo(const Shard& s, std::ostream* os) { *os << s.space << " shard " << s.index << " of " << kShards; }

std::vector<Shard> shards() {
  std::vector<Shard> out;
  for (const auto& s : shipped_spaces())
    for (std::size_t i = 0; i < kShards; ++i) out.push_back({s, i});
  return out;
}

class SpacesCompile : public ::testing::TestWithParam<Shard> {};

}  // namespace

TEST(Spaces, EveryShippedSpaceIsCovered) {
  // The compute kernels and transpose must be among the spaces compiled below.
  const auto names = shipped_spaces();
  for (const char* k : {"transpose", "gemm", "matching", "pairwise"})
    EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << k;
}

TEST_P(SpacesCompile, EveryConfigurationCompilesForSm90) {
  const Shard& shard = GetParam();
  auto spec = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces" / (shard.space + ".json"));
  auto space = space::Space::build(spec);
  // the program as the sweep compiles it: the kernel file with its shared headers written in
  compile::SourceOptions options;
  options.name = spec.kernel.file;
  const std::string source =
      compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile", options).text;
  ASSERT_FALSE(source.empty()) << spec.kernel.file_path;
  compile::CompilePool pool;
  std::size_t submitted = 0;
  for (std::size_t c = shard.index; c < space.size(); c += kShards) {
    compile::CompileRequest r;
    r.source = source;
    r.source_name = spec.kernel.file;
    r.kernel_name = spec.kernel.name;
    r.defines = spec::defines(spec, space.config_values(c));
    r.options = spec.kernel.compiler_options;
    r.arch = "sm_90";
    r.tag = c;
    pool.submit(std::move(r));
    ++submitted;
  }
  const int rank = spec::problem_rank(spec);
  auto size = sizes::parse_one(rank == 1 ? "4097" : rank == 2 ? "4097x1000" : "1000x997x129");
  std::size_t total = 0, failed = 0;
  while (auto res = pool.next()) {
    ++total;
    if (!res->ok()) {
      // Only a resource limit may stop a configuration, and the log must say which.
      ++failed;
      EXPECT_TRUE(res->log.find("shared") != std::string::npos || res->log.find("registers") != std::string::npos)
          << space.params_json(res->tag) << ":\n"
          << res->log;
      continue;
    }
    EXPECT_EQ(res->cubin.substr(0, 4), std::string("\x7f"
                                                   "ELF",
                                                   4));
    auto g = spec::geometry(spec, spec::bind_config(spec, space.config_values(res->tag), size));
    EXPECT_EQ(compile::check_launch(res->resources, static_cast<int>(g.threads_per_block()), 0), "")
        << space.params_json(res->tag);
  }
  EXPECT_EQ(total, submitted);
  std::printf("%s shard %zu: %zu configurations compiled for sm_90, %zu stopped by resource limits\n",
              shard.space.c_str(), shard.index, total, failed);
}

INSTANTIATE_TEST_SUITE_P(Shipped, SpacesCompile, ::testing::ValuesIn(shards()),
                         [](const ::testing::TestParamInfo<Shard>& info) {
                           return info.param.space + "_" + std::to_string(info.param.index);
                         });

// Every shipped space compiles with NVRTC for sm_90, or its Tune.arch (sm_90a), (no GPU needed), or fails for a resource reason
// that the tuner would store with the compiler's message. Two tiers:
// - Shipped/SpacesCompile (ctest label `slow`): every configuration of every space, ~2,800
//   compiles (about half an hour on 2 cores): run on the GPU machine and before a release
//   (`bash scripts/test.sh --slow`).
// - Shipped/SpacesCompileFast (the default test command): one configuration per distinct
//   combination of the kernel's feature switches (the parameters that select code paths), plus
//   every configuration of a space whose spec, kernel file or shared header changed since the
//   branch left main (git; without history, the switch combinations alone).
// Both in shards (configurations c with c % kShards == shard), so that ctest spreads them over the
// cores and no single test runs for many minutes on a 2-core CI machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <ostream>
#include <regex>
#include <set>
#include <sstream>

#include "common/test_data.h"
#include "compile/pool.h"
#include "compile/source.h"
#include "space/space.h"
#include "spec/bind.h"
#include "spec/launch.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

constexpr std::size_t kShards = 4;

std::vector<std::string> shipped_spaces() {
  std::vector<std::string> names;
  for (const auto& entry : fs::directory_iterator(test_data::source_dir() / "spaces"))
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

std::string shard_name(const ::testing::TestParamInfo<Shard>& info) {
  return info.param.space + "_" + std::to_string(info.param.index);
}

// A shipped space as the sweep compiles it: the kernel file with its shared headers written in.
struct Shipped {
  spec::Spec spec;
  space::Space space;
  compile::KernelSource source;
};

Shipped load_shipped(const std::string& name) {
  auto spec = spec::load(test_data::source_dir() / "spaces" / (name + ".json"));
  auto space = space::Space::build(spec);
  compile::SourceOptions options;
  options.name = spec.kernel.file;
  auto source = compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile", options);
  return {std::move(spec), std::move(space), std::move(source)};
}

// Compiles configurations `configs` of the space for sm_90 and checks each result: a cubin whose
// resources fit its launch, or a failure for a resource limit whose log says which.
void expect_all_compile(const Shipped& s, const std::vector<std::size_t>& configs, const std::string& what) {
  ASSERT_FALSE(s.source.text.empty()) << s.spec.kernel.file_path;
  compile::CompilePool pool;
  for (std::size_t c : configs) {
    compile::CompileRequest r;
    r.source = s.source.text;
    r.source_name = s.spec.kernel.file;
    r.kernel_name = s.spec.kernel.name;
    r.defines = spec::defines(s.spec, s.space.config_values(c));
    r.options = s.spec.kernel.compiler_options;
    r.arch = spec::target_arch(s.spec, "sm_90");  // Tune.arch (sm_90a) where the space asks for it
    r.tag = c;
    pool.submit(std::move(r));
  }
  const int rank = spec::problem_rank(s.spec);
  auto size = sizes::parse_one(rank == 1 ? "4097" : rank == 2 ? "4097x1000" : "1000x997x129");
  // Shared memory that grows with the problem (a band of the input held whole) is budgeted by the
  // space's conditions at the space's own ProblemSize; at other sizes a configuration over the
  // device's limit is refused at its launch, as the runner does.
  if (const auto& dsm = s.spec.launch.dynamic_shared; dsm &&
                                                      dsm->program.source().find("ProblemSize") != std::string::npos &&
                                                      s.spec.kernel.problem_size.is_sequence()) {
    std::string own;
    for (const auto& v : s.spec.kernel.problem_size.items())
      own += (own.empty() ? "" : "x") + std::to_string(v.as_int());
    size = sizes::parse_one(own);
  }
  std::size_t total = 0, failed = 0;
  while (auto res = pool.next()) {
    ++total;
    if (!res->ok()) {
      // Only a resource limit may stop a configuration, and the log must say which.
      ++failed;
      EXPECT_TRUE(res->log.find("shared") != std::string::npos || res->log.find("registers") != std::string::npos)
          << s.space.params_json(res->tag) << ":\n"
          << res->log;
      continue;
    }
    EXPECT_EQ(res->cubin.substr(0, 4), std::string("\x7f"
                                                   "ELF",
                                                   4));
    auto g = spec::geometry(s.spec, spec::bind_config(s.spec, s.space.config_values(res->tag), size));
    compile::DeviceLimits limits = compile::hopper_limits();
    limits.shared_opt_in = true;  // as the runner launches (run::DeviceInfo::launch_limits)
    EXPECT_EQ(compile::check_launch(res->resources, static_cast<int>(g.threads_per_block()),
                                    static_cast<int>(g.dynamic_smem), limits),
              "")
        << s.space.params_json(res->tag);
  }
  EXPECT_EQ(total, configs.size());
  std::printf("%s: %zu configurations compiled for %s, %zu stopped by resource limits\n", what.c_str(), total,
              spec::target_arch(s.spec, "sm_90").c_str(), failed);
}

// The configurations of shard `index`, out of `configs`.
std::vector<std::size_t> shard_of(const std::vector<std::size_t>& configs, std::size_t index) {
  std::vector<std::size_t> out;
  for (std::size_t k = index; k < configs.size(); k += kShards) out.push_back(configs[k]);
  return out;
}

// The line without its // comment.
std::string code_of(const std::string& line) { return line.substr(0, line.find("//")); }

// The kernel's feature switches: the parameters that select code paths, found in the program
// text rather than listed per kernel: named in a preprocessor condition (#if, #elif; not the
// #ifndef that gives a default), in an `if` condition, or compared with == or != (`vector == 4`).
std::vector<std::size_t> feature_switches(const Shipped& s) {
  static const std::regex directive(R"(^\s*#\s*(if|elif)\b)"), cxx_if(R"(\bif\s*(constexpr\s*)?\()");
  std::vector<std::string> conditions, code;
  std::istringstream in(s.source.text);
  for (std::string line; std::getline(in, line);) {
    code.push_back(code_of(line));
    if (std::regex_search(code.back(), directive) || std::regex_search(code.back(), cxx_if))
      conditions.push_back(code.back());
  }
  std::vector<std::size_t> out;
  const auto& names = s.space.names();
  for (std::size_t p = 0; p < names.size(); ++p) {
    const std::regex word("\\b" + names[p] + "\\b");
    const std::regex compared("\\b" + names[p] + R"(\s*[!=]=|[!=]=\s*)" + names[p] + "\\b");
    auto named = [&](const std::string& line) { return std::regex_search(line, word); };
    auto compares = [&](const std::string& line) { return std::regex_search(line, compared); };
    if (std::any_of(conditions.begin(), conditions.end(), named) || std::any_of(code.begin(), code.end(), compares))
      out.push_back(p);
  }
  return out;
}

// The first valid configuration of each distinct combination of the switches' values.
std::vector<std::size_t> one_per_combination(const space::Space& space, const std::vector<std::size_t>& switches) {
  std::set<std::vector<space::Index>> seen;
  std::vector<std::size_t> out;
  for (std::size_t c = 0; c < space.size(); ++c) {
    const auto indices = space.indices(c);
    std::vector<space::Index> key;
    key.reserve(switches.size());
    for (std::size_t p : switches) key.push_back(indices[p]);
    if (seen.insert(std::move(key)).second) out.push_back(c);
  }
  return out;
}

// A command's standard output, or nullopt when it fails.
std::optional<std::string> output_of(const std::string& command) {
  FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r");
  if (pipe == nullptr) return std::nullopt;
  std::string out;
  std::array<char, 4096> buf{};
  for (std::size_t n; (n = std::fread(buf.data(), 1, buf.size(), pipe)) > 0;) out.append(buf.data(), n);
  if (::pclose(pipe) != 0) return std::nullopt;
  return out;
}

// $TUNE_COMPILE_BASE, when set and not empty: the commit the fast tier compares with.
const char* given_base() {
  const char* b = std::getenv("TUNE_COMPILE_BASE");
  return b != nullptr && *b != '\0' ? b : nullptr;
}

// The files (relative to the checkout) that differ between the base of this branch and the
// working tree: the base is $TUNE_COMPILE_BASE (a commit), else the merge base with origin/main,
// else with main. nullopt without git or history (a tarball, a shallow clone without main), or
// when TUNE_COMPILE_BASE names no commit (the test then fails).
struct Changes {
  std::string base;
  std::set<std::string> files;
};
const std::optional<Changes>& changes() {
  static const std::optional<Changes> found = []() -> std::optional<Changes> {
    const std::string git = "git -C '" + test_data::source_dir().string() + "' ";
    std::optional<std::string> base;
    if (const char* b = given_base()) {
      base = output_of(git + "rev-parse --verify '" + std::string(b) + "^{commit}'");
    } else {
      for (const char* main : {"origin/main", "main"})
        if (!base) base = output_of(git + "merge-base HEAD " + main);
    }
    if (!base) return std::nullopt;
    Changes c{base->substr(0, base->find('\n')), {}};
    auto diff = output_of(git + "diff --name-only " + c.base + " --");
    if (!diff) return std::nullopt;
    std::istringstream in(*diff);
    for (std::string f; std::getline(in, f);) c.files.insert(f);
    return c;
  }();
  return found;
}

// Whether the space's spec, kernel file or a header written into it changed since the base.
bool changed(const Shipped& s) {
  const auto& c = changes();
  if (!c) return false;
  std::vector<fs::path> files = s.source.files;
  files.push_back(s.spec.path);
  const fs::path root = fs::weakly_canonical(test_data::source_dir());
  return std::any_of(files.begin(), files.end(), [&](const fs::path& f) {
    return c->files.count(fs::weakly_canonical(f).lexically_relative(root).generic_string()) > 0;
  });
}

std::string joined(const Shipped& s, const std::vector<std::size_t>& params) {
  std::string out;
  for (std::size_t p : params) out += (out.empty() ? "" : ", ") + s.space.names()[p];
  return out.empty() ? "none" : out;
}

class SpacesCompile : public ::testing::TestWithParam<Shard> {};
class SpacesCompileFast : public ::testing::TestWithParam<Shard> {};

}  // namespace

TEST(Spaces, EveryShippedSpaceIsCovered) {
  // The compute kernels and transpose must be among the spaces compiled below.
  const auto names = shipped_spaces();
  for (const char* k : {"transpose", "gemm", "matching", "pairwise"})
    EXPECT_NE(std::find(names.begin(), names.end(), k), names.end()) << k;
}

// The switches found in the shipped kernels are the ones their files document as code paths.
TEST(Spaces, FeatureSwitchesAreFoundInTheKernelText) {
  const Shipped gemm = load_shipped("gemm");
  EXPECT_EQ(joined(gemm, feature_switches(gemm)),
            "use_shared, transpose_a, vector, padding, double_buffer, prefetch, unroll, group, mma");
  const Shipped transpose = load_shipped("transpose");
  EXPECT_EQ(joined(transpose, feature_switches(transpose)),  // tile_size_x: the lean tile's width
            "vector, use_shared, diagonal, tiles, streaming, cp_async, persist, group, bands, tile_size_x");
  // the Hopper GEMM (sm_90a): the fast tier compiles one configuration per wgmma width, consumer
  // count, block order and split ring (16 of 64)
  const Shipped wgmma = load_shipped("gemm_wgmma");
  EXPECT_EQ(joined(wgmma, feature_switches(wgmma)), "tile_m, consumers, group, split_ring");
  EXPECT_EQ(one_per_combination(wgmma.space, feature_switches(wgmma)).size(), 16u);
  const Shipped stride = load_shipped("copy_stride");
  EXPECT_EQ(joined(stride, feature_switches(stride)), "none");  // one code path: one configuration
  EXPECT_EQ(one_per_combination(stride.space, feature_switches(stride)).size(), 1u);
}

// The slow tier: every configuration.
TEST_P(SpacesCompile, EveryConfigurationCompilesForSm90) {
  const Shard& shard = GetParam();
  const Shipped s = load_shipped(shard.space);
  std::vector<std::size_t> all(s.space.size());
  for (std::size_t c = 0; c < all.size(); ++c) all[c] = c;
  expect_all_compile(s, shard_of(all, shard.index), shard.space + " shard " + std::to_string(shard.index));
}

INSTANTIATE_TEST_SUITE_P(Shipped, SpacesCompile, ::testing::ValuesIn(shards()), shard_name);

// The fast tier: one configuration per combination of the feature switches, or every
// configuration when the space or its kernel changed on this branch.
TEST_P(SpacesCompileFast, SwitchCombinationsOrChangedKernelsCompileForSm90) {
  const Shard& shard = GetParam();
  if (const char* b = given_base(); b != nullptr && !changes())
    FAIL() << "TUNE_COMPILE_BASE=" << b << " is not a commit of " << test_data::source_dir();
  const Shipped s = load_shipped(shard.space);
  const bool whole = changed(s);
  const auto switches = feature_switches(s);
  std::vector<std::size_t> configs = one_per_combination(s.space, switches);
  if (whole) {
    configs.resize(s.space.size());
    for (std::size_t c = 0; c < configs.size(); ++c) configs[c] = c;
  }
  const auto& c = changes();
  const std::string why = whole ? "every one, changed since " + c->base.substr(0, 12)
                          : c   ? "one per switch combination, unchanged since " + c->base.substr(0, 12)
                                : std::string("one per switch combination, no git history to compare with");
  std::printf("%s: %zu of %zu configurations: %s (switches: %s)\n", shard.space.c_str(), configs.size(), s.space.size(),
              why.c_str(), joined(s, switches).c_str());
  expect_all_compile(s, shard_of(configs, shard.index), shard.space + " shard " + std::to_string(shard.index));
}

INSTANTIATE_TEST_SUITE_P(Shipped, SpacesCompileFast, ::testing::ValuesIn(shards()), shard_name);

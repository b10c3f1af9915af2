#include "spec/bind.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_data.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

std::vector<expr::Value> config(const spec::Spec& s, std::initializer_list<std::pair<const char*, std::int64_t>> set) {
  std::vector<expr::Value> v;
  for (const auto& p : s.parameters) v.push_back(p.values.front());
  for (auto [name, value] : set) v[s.param_index(name)] = expr::Value::integer(value);
  return v;
}
}  // namespace

TEST(Launch, KernelTunerGridDivAtTheSweptSize) {
  auto s = spec::load(tune::test_data::file("kernel_tuner/test/test_T1_input.json"));
  auto c = config(s, {{"block_size_x", 32}, {"block_size_y", 4}, {"tile_size_x", 2}, {"tile_size_y", 3}});
  auto g = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("4096")));
  EXPECT_EQ(g.block, (std::array<std::uint32_t, 3>{32, 4, 1}));
  EXPECT_EQ(g.grid, (std::array<std::uint32_t, 3>{64, 342, 1}));  // 4096/64, ceil(4096/12)
  auto r = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("1000x500")));
  EXPECT_EQ(r.grid, (std::array<std::uint32_t, 3>{16, 42, 1}));  // ceil(1000/64), ceil(500/12)
}

TEST(Launch, OneDimensionalProblemSizeAndUnknownGridDiv) {
  auto s = spec::load(tune::test_data::file("kernel_tuner/test/test_cache_file_T1_input.json"));
  auto c = config(s, {{"block_size_x", 256}});
  auto g = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("1000000")));
  EXPECT_EQ(g.grid[0], 3907u);  // ceil(1e6 / 256)
  EXPECT_EQ(g.grid[1], 1u);
  EXPECT_EQ(g.block[0], 256u);
}

TEST(Launch, GlobalSizeWithoutGridDiv) {
  auto s = spec::load(tune::test_data::file("bat/GEMM-CAFF.json"));  // GlobalSize "4096 // MWG", CUDA grid
  auto c = config(s, {{"MWG", 64}, {"NWG", 32}, {"MDIMC", 16}, {"NDIMC", 8}});
  auto g = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("4096")));
  EXPECT_EQ(g.grid, (std::array<std::uint32_t, 3>{64, 128, 1}));
  EXPECT_EQ(g.block, (std::array<std::uint32_t, 3>{16, 8, 1}));
  // pnpoly has GridDivX, so Kernel Tuner's rule wins over its OpenCL GlobalSize
  auto p = spec::load(tune::test_data::file("bat/pnpoly-CAFF.json"));
  auto pc = config(p, {{"block_size_x", 256}, {"tile_size", 4}});
  auto pg = spec::geometry(p, spec::bind_config(p, pc, sizes::parse_one("20000000")));
  EXPECT_EQ(pg.grid[0], 19532u);  // ceil(20000000 / 1024)
}

TEST(Launch, ArgumentsSeeTheSizeAndParameterValueLists) {
  auto s = spec::load(tune::test_data::file("benchmark_hub/convolution_milo.json"));
  auto args = spec::arguments(s, sizes::parse_one("2048x1024"));
  ASSERT_EQ(args.size(), 3u);
  EXPECT_EQ(args[0].count, 2048u * 1024u);  // ProblemSize[0]*ProblemSize[1]
  EXPECT_TRUE(args[0].output);
  EXPECT_EQ(args[1].count, (2048u + 14) * (1024u + 14));  // + max(filter_width)-1
  EXPECT_EQ(args[2].count, 225u);
  EXPECT_EQ(args[1].fill, spec::Fill::random);
  auto v = spec::load(tune::test_data::file("kernel_tuner/test/test_cache_file_T1_input.json"));
  auto vargs = spec::arguments(v, sizes::parse_one("100"));
  ASSERT_EQ(vargs.size(), 4u);
  EXPECT_TRUE(vargs[3].scalar);
  EXPECT_EQ(vargs[3].fill_value.as_int(), 10000000);
}

TEST(Launch, NonPositiveSizeNamesTheExpression) {
  auto s = spec::load(tune::test_data::file("bat/GEMM-CAFF.json"));
  auto c = config(s, {});
  auto bound = spec::bind_config(s, c, sizes::parse_one("4096"));
  bound[s.param_index("MDIMC")] = expr::Value::integer(0);
  try {
    spec::geometry(s, bound);
    FAIL();
  } catch (const InputError& e) {
    std::string w = e.what();
    EXPECT_NE(w.find("KernelSpecification.LocalSize.X"), std::string::npos) << w;
    EXPECT_NE(w.find("MDIMC=0"), std::string::npos) << w;
  }
}

TEST(Launch, TransposeSpaceBindsRectangularSizes) {
  auto s = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces/transpose.json");
  auto args = spec::arguments(s, sizes::parse_one("4097x1000"));  // cols x rows
  ASSERT_EQ(args.size(), 4u);
  EXPECT_EQ(args[0].count, 4097u * 1000u);
  EXPECT_EQ(args[2].fill_value.as_int(), 1000);  // rows = ProblemSize[1], via Tune.fill_values
  EXPECT_EQ(args[3].fill_value.as_int(), 4097);
  auto c = config(s, {{"block_size_x", 32}, {"block_size_y", 8}, {"tile_size_y", 4}, {"vector", 4}});
  auto g = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("4097x1000")));
  EXPECT_EQ(g.grid, (std::array<std::uint32_t, 3>{33, 32, 1}));  // ceil(4097/128), ceil(1000/32)
}

// A 3-D ProblemSize whose third extent is a reduction length (GEMM's K): GridDivZ holds one number
// larger than any K, so the grid stays one block deep (without it, Kernel Tuner's default divisor
// block_size_z = 1 would launch K copies of every block).
TEST(Launch, ReductionDimensionKeepsTheGridFlat) {
  auto s = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces" / "gemm.json");
  auto c = config(s, {{"block_size_x", 16}, {"block_size_y", 16}, {"tile_size_x", 8}, {"tile_size_y", 8}});
  auto g = spec::geometry(s, spec::bind_config(s, c, sizes::parse_one("4096x2048x8192")));
  EXPECT_EQ(g.grid, (std::array<std::uint32_t, 3>{32, 16, 1}));  // N / 128, M / 128, 1
  // C is ReadWrite (C = alpha A B + beta C): verified, and restored rather than poisoned.
  auto plan = spec::arguments(s, sizes::parse_one("64x32x16"));
  ASSERT_EQ(plan.front().name, "C");
  EXPECT_TRUE(plan.front().output);
  EXPECT_TRUE(plan.front().read);
  EXPECT_EQ(plan.front().count, 64u * 32u);
  EXPECT_FALSE(plan[1].read);
}

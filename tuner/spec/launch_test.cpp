// Tune.arch, Tune.cluster, Tune.dynamic_shared_memory and Tune.tensor_maps (spec/launch.h), on
// the shipped Hopper test space spaces/tma_copy.json and variants of it.
#include "spec/launch.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/error.h"
#include "spec/bind.h"

namespace fs = std::filesystem;
using namespace tune;
using nlohmann::json;

namespace {

const fs::path kSpace = fs::path(TUNE_SOURCE_DIR) / "spaces" / "tma_copy.json";

json space_json() {
  std::ifstream f(kSpace);
  return json::parse(f);
}

std::string error_of(const json& j) {
  try {
    spec::parse(j.dump(), kSpace);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

// The values of the named parameters over the defaults.
std::vector<expr::Value> config(const spec::Spec& s, const std::map<std::string, std::int64_t>& set) {
  auto v = spec::default_values(s);
  for (const auto& [name, value] : set) v[s.param_index(name)] = expr::Value::integer(value);
  return v;
}

TEST(LaunchRules, TheShippedSpaceBindsClusterSharedMemoryAndTensorMap) {
  const spec::Spec s = spec::load(kSpace);
  EXPECT_EQ(s.launch.arch, "sm_90a");
  const auto values = config(s, {{"tile_x", 32}, {"tile_y", 256}, {"stages", 4}, {"swizzle", 128}, {"cluster_x", 2}});
  const auto g = spec::geometry(s, spec::bind_config(s, values, sizes::parse_one("1000x777")));
  EXPECT_EQ(g.cluster, (std::array<std::uint32_t, 3>{2, 1, 1}));
  EXPECT_TRUE(g.clustered());
  EXPECT_EQ(g.dynamic_smem, 4u * 32 * 256 * 4 + 1024);  // 129 KiB: over the 48 KiB default
  // ceil(1000 / 128) = 8 blocks of 4 tiles, a whole number of clusters of 2; ceil(777 / 256) = 4
  EXPECT_EQ(g.grid, (std::array<std::uint32_t, 3>{8, 4, 1}));
  ASSERT_EQ(g.tensor_maps.size(), 1u);
  const spec::TensorMapBinding& m = g.tensor_maps[0];
  EXPECT_EQ(s.kernel.arguments[m.argument].name, "in_map");
  EXPECT_EQ(s.kernel.arguments[m.buffer].name, "in");
  EXPECT_EQ(m.dims, (std::vector<std::uint64_t>{1000, 777}));
  EXPECT_EQ(m.box, (std::vector<std::uint32_t>{32, 256}));
  EXPECT_EQ(m.swizzle, 128u);
  // the grid is Kernel Tuner's GridDiv rule: 18 blocks of 32 columns, not a whole number of
  // clusters of 4, which the launch refuses (run/kernel.h) as an invalid configuration at this size
  const auto g4 = spec::geometry(
      s, spec::bind_config(s, config(s, {{"tile_x", 8}, {"stages", 4}, {"cluster_x", 4}}), sizes::parse_one("576x64")));
  EXPECT_EQ(g4.grid[0], 18u);
  EXPECT_NE(g4.grid[0] % g4.cluster[0], 0u);
}

TEST(LaunchRules, WithoutTheKeysALaunchIsPlain) {
  const spec::Spec s = spec::load(fs::path(TUNE_SOURCE_DIR) / "spaces" / "transpose.json");
  EXPECT_TRUE(s.launch.arch.empty());
  const auto g = spec::geometry(s, spec::bind_config(s, spec::default_values(s), sizes::parse_one("512")));
  EXPECT_FALSE(g.clustered());
  EXPECT_EQ(g.dynamic_smem, 0u);
  EXPECT_TRUE(g.tensor_maps.empty());
  EXPECT_EQ(spec::target_arch(s, "sm_90"), "sm_90");
}

TEST(LaunchRules, TargetArchMatchesTheDevice) {
  const spec::Spec s = spec::load(kSpace);
  EXPECT_EQ(spec::target_arch(s, "sm_90"), "sm_90a");
  EXPECT_THROW(spec::target_arch(s, "sm_89"), InputError);
  EXPECT_THROW(spec::target_arch(s, "sm_100"), InputError);
  EXPECT_TRUE(spec::valid_arch("sm_90a"));
  EXPECT_TRUE(spec::valid_arch("sm_100f"));
  EXPECT_TRUE(spec::valid_arch("sm_80"));
  EXPECT_FALSE(spec::valid_arch("compute_90a"));
  EXPECT_FALSE(spec::valid_arch("sm_9"));
  EXPECT_FALSE(spec::valid_arch("sm_90b"));
}

TEST(LaunchRules, MalformedKeysNameTheFileAndKey) {
  auto with = [](const std::function<void(json&)>& edit) {
    json j = space_json();
    edit(j);
    return error_of(j);
  };
  EXPECT_EQ(with([](json&) {}), "");
  EXPECT_NE(with([](json& j) { j["Tune"]["arch"] = "compute_90a"; }).find("Tune.arch"), std::string::npos);
  EXPECT_NE(with([](json& j) { j["Tune"]["arch"] = 90; }).find("Tune.arch"), std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["Tune"]["cluster"] = {{"W", "2"}};
            }).find("Tune.cluster.W: unknown axis"),
            std::string::npos);
  EXPECT_NE(
      with([](json& j) { j["Tune"]["dynamic_shared_memory"] = json::array(); }).find("Tune.dynamic_shared_memory"),
      std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["Tune"]["tensor_maps"]["in_map"]["buffer"] = "nope";
            }).find("Tune.tensor_maps.in_map.buffer: no kernel argument named 'nope'"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["Tune"]["tensor_maps"]["in_map"]["buffer"] = "cols"; }).find("is not a buffer"),
            std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["Tune"]["tensor_maps"]["in_map"]["box"] = {"tile_x"};
            }).find("Tune.tensor_maps.in_map.box: has 1 entries, dims has 2"),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["Tune"]["tensor_maps"]["in_map"]["pitch"] = 4; }).find("unknown key"),
            std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["Tune"]["tensor_maps"] = {{"out", j["Tune"]["tensor_maps"]["in_map"]}};
            }).find("must be a Scalar of Type \"CUtensorMap\""),
            std::string::npos);
  EXPECT_NE(with([](json& j) { j["Tune"].erase("tensor_maps"); }).find("described in Tune.tensor_maps.in_map"),
            std::string::npos);
  EXPECT_NE(with([](json& j) {
              j["Tune"]["tensor_maps"]["in_map"]["dims"] = json::array();
            }).find("expected a list of 1 to 5 expressions"),
            std::string::npos);
}

TEST(LaunchRules, BadValuesAtBindTimeAreInputErrors) {
  json j = space_json();
  j["Tune"]["cluster"]["X"] = "cluster_x - 1";  // 0 for cluster_x = 1
  const spec::Spec s = spec::parse(j.dump(), kSpace);
  EXPECT_THROW(spec::geometry(s, spec::bind_config(s, spec::default_values(s), sizes::parse_one("64x64"))), InputError);
  j = space_json();
  j["Tune"]["dynamic_shared_memory"] = "-1";
  const spec::Spec t = spec::parse(j.dump(), kSpace);
  EXPECT_THROW(spec::geometry(t, spec::bind_config(t, spec::default_values(t), sizes::parse_one("64x64"))), InputError);
}

// Bounds for every configuration (space::check_config_rules runs this over the space before any
// output): a cluster of more blocks than any GPU launches, or dynamic shared memory below 0 or over
// 16 MiB, is an input error naming the key and the configuration; the shipped space is within them
// (its 257 KiB configurations are refused at their launch, by the device's own limit).
TEST(LaunchRules, ClusterAndSharedMemoryBeyondAnyGpuAreInputErrors) {
  const spec::Spec shipped = spec::load(kSpace);
  EXPECT_NO_THROW(spec::check_launch_bounds(
      shipped, spec::bind_config(shipped, config(shipped, {{"tile_x", 64}, {"tile_y", 256}, {"stages", 4}}),
                                 sizes::parse_one("1"))));
  auto message = [](const std::string& key, const json& value) {
    json j = space_json();
    if (key == "cluster")
      j["Tune"]["cluster"]["X"] = value;
    else
      j["Tune"][key] = value;
    const spec::Spec s = spec::parse(j.dump(), kSpace);
    try {
      spec::check_launch_bounds(s, spec::bind_config(s, spec::default_values(s), sizes::parse_one("1")));
    } catch (const InputError& e) {
      return std::string(e.what());
    }
    return std::string();
  };
  EXPECT_NE(message("cluster", "10**30").find("Tune.cluster"), std::string::npos);
  EXPECT_NE(message("cluster", "17").find("more than 16 blocks"), std::string::npos);
  EXPECT_EQ(message("cluster", "16"), "");
  EXPECT_NE(message("dynamic_shared_memory", "-1").find("gives -1 bytes"), std::string::npos);
  EXPECT_NE(message("dynamic_shared_memory", "16 * 1024 * 1024 + 1").find("0 to 16777216 bytes"), std::string::npos);
  EXPECT_EQ(message("dynamic_shared_memory", "16 * 1024 * 1024"), "");
}

}  // namespace

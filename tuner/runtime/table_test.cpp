#include "runtime/table.h"

#include <gtest/gtest.h>

#include <sstream>

#include "header/test_util.h"
#include "query/query.h"
#include "runtime/test_util.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::testing::Recorded;

namespace {

struct Query {
  std::string device;
  int major, minor;
  long long x, y;
};

std::vector<Query> queries() {
  std::vector<Query> q;
  for (const char* dev : {"NVIDIA H200", "NVIDIA H100 80GB HBM3", "NVIDIA H100 PCIe", "NVIDIA A100-SXM4-80GB"})
    for (long long n : {1LL,   100LL,  128LL,  200LL,  256LL,  300LL,  384LL,  448LL,  512LL,  724LL,
                        768LL, 1024LL, 1100LL, 1536LL, 2000LL, 2048LL, 2896LL, 4096LL, 8192LL, 16384LL})
      q.push_back({dev, std::string(dev).find("A100") != std::string::npos ? 8 : 9, 0, n, n});
  for (auto [x, y] : {std::pair{4097LL, 1000LL}, {1000LL, 4097LL}, {128LL, 512LL}, {512LL, 128LL}, {256LL, 1024LL}})
    q.push_back({"NVIDIA H200", 9, 0, x, y});
  return q;
}

}  // namespace

// The runtime and the compiled header answer every query alike: same variant, same match, same
// measured size.
TEST(Table, SameRuleAsTheGeneratedHeader) {
  Recorded r;
  const auto table = runtime::detail::load_table(r.table, r.spec);
  const fs::path d = r.dir.path();
  std::ofstream(d / "t.h") << header::generate(r.model, "r.db");
  std::ostringstream prog;
  prog << "#include <cstdio>\n#include \"t.h\"\nint main() {\n  using namespace tune_tuned::transpose;\n";
  std::string expected;
  for (const auto& q : queries()) {
    prog << "  { auto s = select(\"" << q.device << "\", " << q.major << ", " << q.minor << ", " << q.x << ", " << q.y
         << "); std::printf(\"%u %d %lld %lld\\n\", s.variant, int(s.match), s.x, s.y); }\n";
    const auto p = runtime::detail::select(table, q.device, q.major, q.minor, {q.x, q.y, 1});
    expected += std::to_string(p.variant) + " " + std::to_string(int(p.match)) + " " + std::to_string(p.measured[0]) +
                " " + std::to_string(p.measured[1]) + "\n";
  }
  prog << "}\n";
  std::ofstream(d / "q.cpp") << prog.str();
  const std::string s = d.string();
  EXPECT_EQ(header::testing::run("g++ -std=c++17 -o " + s + "/q " + s + "/q.cpp && " + s + "/q"), expected);
  // and the rule itself: an unknown device of capability 9.0 gets the first 9.0 table (by name),
  // one of 8.0 the spec's Defaults
  const auto other = runtime::detail::select(table, "NVIDIA H100 PCIe", 9, 0, {4096, 4096, 1});
  EXPECT_EQ(other.match, runtime::Match::other_device);
  EXPECT_EQ(table.devices[static_cast<std::size_t>(other.device)].name, "NVIDIA H100 80GB HBM3");
  const auto none = runtime::detail::select(table, "NVIDIA A100-SXM4-80GB", 8, 0, {4096, 4096, 1});
  EXPECT_EQ(none.match, runtime::Match::default_config);
  EXPECT_EQ(none.variant, table.default_variant);
}

// The model's top candidates (for online tuning): ranked as select() ranks them, its pick first.
TEST(Table, TopCandidatesStartWithTheSelection) {
  Recorded r;
  const auto table = runtime::detail::load_table(r.table, r.spec);
  for (const auto& q : queries()) {
    const auto top = runtime::detail::top_candidates(table, q.device, q.major, q.minor, {q.x, q.y, 1}, 5);
    const auto pick = runtime::detail::select(table, q.device, q.major, q.minor, {q.x, q.y, 1});
    if (pick.match == runtime::Match::default_config) {
      EXPECT_TRUE(top.empty());
      continue;
    }
    ASSERT_FALSE(top.empty());
    EXPECT_LE(top.size(), 5u);
    EXPECT_EQ(top[0].variant, pick.variant) << q.x << "x" << q.y;
    for (std::size_t i = 1; i < top.size(); ++i) EXPECT_NE(top[i].variant, top[0].variant);
  }
  EXPECT_EQ(runtime::detail::top_candidates(table, "NVIDIA H200", 9, 0, {1000, 1000, 1}, 0).size(), 0u);
}

// Through the public API: at every measured size of the H200 the configuration `tune best` ranks
// first, with the spec's launch shape.
TEST(Table, KernelSelectsWhatTuneBestRecorded) {
  Recorded r;
  runtime::Options o;
  o.disk_cache = false;
  runtime::Kernel k(runtime::testing::spec_path(), r.table, o);
  EXPECT_EQ(k.name(), "transpose");
  for (long long n : {128, 256, 306, 512, 1152, 1664, 2176, 4096}) {
    const auto s = k.select({n, n}, "NVIDIA H200", 9, 0);
    EXPECT_EQ(s.match, runtime::Match::exact);
    EXPECT_EQ(s.device, "NVIDIA H200");
    const auto best =
        query::best(r.db, {"transpose", std::string("NVIDIA H200"), std::to_string(n) + "x" + std::to_string(n)});
    ASSERT_EQ(best.size(), 1u);
    const auto p = nlohmann::json::parse(best[0].params);
    std::string config;
    for (const auto& param : r.spec.parameters)
      config += (config.empty() ? "" : " ") + param.name + "=" + std::to_string(p[param.name].get<int>());
    EXPECT_EQ(s.config, config);
    ASSERT_EQ(s.options.size(), r.spec.parameters.size());
    EXPECT_EQ(s.options[0], "-Dblock_size_x=" + std::to_string(p["block_size_x"].get<int>()));
    const long long tx = p["block_size_x"].get<long long>() * p["vector"].get<long long>();
    const long long ty =
        p["block_size_y"].get<long long>() * p["tile_size_y"].get<long long>() * p["tiles"].get<long long>();
    EXPECT_EQ(s.grid, (std::array<unsigned, 3>{unsigned((n + tx - 1) / tx), unsigned((n + ty - 1) / ty), 1}));
    EXPECT_EQ(s.block[0], p["block_size_x"].get<unsigned>());
    EXPECT_EQ(s.block[1], p["block_size_y"].get<unsigned>());
  }
  const auto near = k.select({1000, 1000}, "NVIDIA H200", 9, 0);
  EXPECT_EQ(near.match, runtime::Match::predicted);
  EXPECT_EQ(near.measured.x, 1152);
  ASSERT_FALSE(near.evidence.empty());
  EXPECT_EQ(near.evidence[0].x, 1152);
  EXPECT_GE(near.regret, 1.0);
  EXPECT_STREQ(runtime::match_name(near.match), "predicted");
  EXPECT_EQ(k.select({100000, 100000}, "NVIDIA H200", 9, 0).match, runtime::Match::extrapolated);
  const auto dflt = k.select({1000, 1000}, "AMD MI300X", 9, 4);
  EXPECT_EQ(dflt.match, runtime::Match::default_config);
  EXPECT_EQ(dflt.config.substr(0, 32), "block_size_x=32 block_size_y=8 t");
  EXPECT_STREQ(runtime::match_name(dflt.match), "default");
}

TEST(Table, HostileTablesAreRefused) {
  Recorded r;
  std::ifstream f(r.table);
  const auto good = nlohmann::json::parse(f);
  const fs::path bad = r.dir.path() / "bad.json";
  auto error_of = [&](const std::string& text) -> std::string {
    std::ofstream(bad) << text;
    try {
      runtime::detail::load_table(bad, r.spec);
      return "";
    } catch (const InputError& e) {
      return e.what();
    }
  };
  auto edited = [&](auto edit) {
    auto j = good;
    edit(j);
    return j.dump();
  };
  using J = nlohmann::json;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"not json", "not a tune table"},
      {edited([](J& j) { j["format"] = "kt-cache"; }), "not a tune table"},
      {edited([](J& j) { j["version"] = 1; }), "table version 1, this library reads 2 (regenerate it"},
      {edited([](J& j) { j["kernel_name"] = "gemm"; }), "the table is for kernel \"gemm\""},
      {edited([](J& j) { j["space_hash"] = "0"; }), "another search space"},
      {edited([](J& j) { j["parameters"][0] = "x"; }), "parameters are not the spec's"},
      {edited([](J& j) { j["variants"][0][3] = "1; system(\"x\")"; }), "is not one of the spec's Values"},
      {edited([](J& j) { j["variants"][0][0] = 7; }), "is not one of the spec's Values"},
      {edited([](J& j) { j["variants"][0].erase(0); }), "one value per parameter"},
      {edited([](J& j) { j["default"] = 100000; }), "'default' is not a variant index"},
      {edited([](J& j) { j["devices"][0]["entries"][0][3] = -1; }), "variant is not a variant index"},
      {edited([](J& j) { j["devices"][0]["entries"][0][0] = 0; }), "a size is not a whole number"},
      {edited([](J& j) { j["devices"][0]["entries"][0][4] = -1.0; }), "not [x, y, z, variant, time_ms, best_ms]"},
      {edited([](J& j) { j["devices"][0]["entries"] = J::array(); }), "'entries' must be a list"},
      {edited([](J& j) { j["devices"][0]["candidates"][0][1] = 0; }), "a size is not a whole number"},
      {edited([](J& j) { j["devices"][0]["candidates"][0][0] = 100000; }), "a candidate's variant is not a variant"},
      {edited([](J& j) { j["devices"][0]["regret"][0].erase(0); }), "one value per candidate"},
      {edited([](J& j) { j["devices"][0]["regret"].erase(0); }), "one row per entry"},
      {edited([](J& j) { j["devices"][0]["regret"][0][0] = -3; }), "a regret is not a whole number"},
      {edited([](J& j) { j["devices"][0]["name"] = std::string(2000, 'x'); }), "without a name"},
      {edited([](J& j) { j["devices"][0]["compute_capability"] = {9}; }), "compute_capability"},
      {std::string(65 << 20, ' '), "larger than 64 MiB"},
  };
  for (const auto& [text, says] : cases) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find(says), std::string::npos) << "expected '" << says << "' in: " << e;
    EXPECT_NE(e.find("bad.json"), std::string::npos) << e;
  }
  EXPECT_EQ(error_of(good.dump()), "");
}

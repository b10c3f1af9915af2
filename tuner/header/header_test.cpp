#include "header/header.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "query/query.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  int rc = ::pclose(p);
  if (rc != 0) out = "FAILED(" + std::to_string(rc) + "): " + cmd + "\n" + out;
  return out;
}

// Two devices, sizes 128..1024 (square) and one rectangular size; winners change with size.
void fill(store::Store& db) {
  for (const char* device : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"}) {
    store::RunInfo info;
    info.kernel = "transpose";
    info.device = device;
    info.compute_capability = "9.0";
    auto run_id = db.begin_run(info);
    int salt = device[13] == '2' ? 1 : 0;
    for (long long n : {128LL, 256LL, 512LL, 1024LL}) {
      for (int tile : {16, 32, 64}) {
        store::Measurement m;
        nlohmann::ordered_json params{{"TILE_DIM", tile}, {"BLOCK_ROWS", tile / 4}, {"diagonal", n == 512}};
        m.config_id = db.upsert_configuration("transpose", "h", params);
        m.run_id = run_id;
        m.device = device;
        m.size = store::ProblemSize::of(n, n);
        // tile 16 wins small sizes, 64 large ones; the H200 prefers 32 at 512
        float t = float(std::abs(tile - (n <= 256 ? 16 : 64)) + 1) * float(n) / 1000.0f;
        if (salt && n == 512 && tile == 32) t = 0.001f;
        m.samples_ms = {t, t * 1.01f, t * 0.99f};
        db.record(m);
      }
    }
    store::Measurement r;
    r.config_id = db.upsert_configuration("transpose", "h", nlohmann::ordered_json{{"TILE_DIM", 32}, {"BLOCK_ROWS", 8}, {"diagonal", false}});
    r.run_id = run_id;
    r.device = device;
    r.size = store::ProblemSize::of(4097, 1000);
    r.samples_ms = {1.0f};
    db.record(r);
  }
}

}  // namespace

TEST(Header, RegenerationIsByteIdentical) {
  store::testing::TempDir t;
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  fill(db);
  std::string a = header::generate(db, {"transpose", "results/tuning.db"});
  std::string b = header::generate(db, {"transpose", "results/tuning.db"});
  EXPECT_EQ(a, b);
  EXPECT_NE(a.find("#if defined(TUNE_transpose_MACROS) || defined(TARGET_NVIDIA_H100_80GB_HBM3)"), std::string::npos);
  EXPECT_NE(a.find("#define TILE_DIM 16"), std::string::npos);
}

TEST(Header, CompiledSelectionsMatchTheDatabase) {
  store::testing::TempDir t;
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  fill(db);
  std::ofstream(t.path() / "transpose_tuned.h") << header::generate(db, {"transpose", "r.db"});

  // Sizes: every measured one, a nearest case, and the rectangular one.
  struct Q { long long x, y; };
  std::vector<Q> qs{{128, 128}, {256, 256}, {512, 512}, {1024, 1024}, {4097, 1000}, {300, 300}, {2000, 2000}};
  std::ostringstream prog;
  prog << "#include <cstdio>\n#include \"transpose_tuned.h\"\n"
          "int main() {\n  using namespace tune_tuned::transpose;\n"
          "  static_assert(select(devices[0], 128, 128).TILE_DIM == 16, \"constexpr selection\");\n";
  for (const char* dev : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"})
    for (const auto& q : qs)
      prog << "  { const Config& c = select(\"" << dev << "\", 9, 0, " << q.x << ", " << q.y
           << "); std::printf(\"%lld %lld %lld %lld\\n\", c.TILE_DIM, c.BLOCK_ROWS, c.diagonal, " << q.x << "LL); }\n";
  prog << "  return 0;\n}\n";
  std::ofstream(t.path() / "main.cpp") << prog.str();
  fs::copy_file(t.path() / "main.cpp", t.path() / "main.cu");

  std::string expected;
  for (const char* dev : {"NVIDIA H100 80GB HBM3", "NVIDIA H200"})
    for (const auto& q : qs) {
      auto best = query::best(db, {"transpose", std::string(dev), std::to_string(q.x) + "x" + std::to_string(q.y)});
      ASSERT_EQ(best.size(), 1u);
      auto p = nlohmann::json::parse(best[0].params);
      expected += std::to_string(p["TILE_DIM"].get<int>()) + " " + std::to_string(p["BLOCK_ROWS"].get<int>()) + " " +
                  (p["diagonal"].get<bool>() ? "1" : "0") + " " + std::to_string(q.x) + "\n";
    }

  std::string d = t.path().string();
  std::string gxx = run("g++ -std=c++17 -Wall -Wextra -Werror -o " + d + "/sel_gxx " + d + "/main.cpp && " + d + "/sel_gxx");
  EXPECT_EQ(gxx, expected);
  std::string nvcc_bin = fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
  std::string nvcc = run(nvcc_bin + " -std=c++17 -o " + d + "/sel_nvcc " + d + "/main.cu && " + d + "/sel_nvcc");
  EXPECT_EQ(nvcc, expected);
}

TEST(Header, MacroBlocksFollowTheTarget) {
  store::testing::TempDir t;
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  fill(db);
  std::ofstream(t.path() / "transpose_tuned.h") << header::generate(db, {"transpose", "r.db"});
  std::ofstream(t.path() / "m.cpp") << "#include <cstdio>\n#include \"transpose_tuned.h\"\n"
                                    "int main() { std::printf(\"%d %d\\n\", TILE_DIM, BLOCK_ROWS); }\n";
  std::string d = t.path().string();
  EXPECT_EQ(run("g++ -DTARGET_NVIDIA_H200 -o " + d + "/m " + d + "/m.cpp && " + d + "/m"), "16 4\n");
  // Without a target or the opt-in macro, no parameter macro leaks into the includer.
  EXPECT_NE(run("g++ -o " + d + "/m2 " + d + "/m.cpp").find("FAILED"), std::string::npos);
}

TEST(Header, NoResultsIsAnError) {
  store::testing::TempDir t;
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  EXPECT_THROW(header::generate(db, {"transpose", "r.db"}), InputError);
}

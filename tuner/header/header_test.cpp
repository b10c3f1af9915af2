#include "header/header.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/source.h"
#include "header/test_util.h"
#include "header/text.h"
#include "interop/interop.h"
#include "query/query.h"
#include "space/space.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;
using header::testing::run;

namespace {

const std::string kSpec = header::testing::source_dir() + "/spaces/transpose.json";
const std::string kRecorded = header::testing::source_dir() + "/results/recorded/transpose/";

// Six sizes of the sweep recorded on an H200 (every configuration of the space at each), imported
// as Kernel Tuner caches, plus the 512 and 1024 caches imported again as another device of the same
// compute capability and as one of another.
struct Recorded {
  store::testing::TempDir dir;
  spec::Spec spec = spec::load(kSpec);
  store::Store db = store::Store::open((dir.path() / "r.db").string(), store::Store::Mode::read_write);
  Recorded() {
    for (const char* s : {"128x128", "256x256", "512x512", "1152x1152", "2176x2176", "4096x4096"})
      interop::import_file(db, kRecorded + s + ".json.gz", {std::nullopt, std::nullopt, &spec});
    for (const char* s : {"512x512", "1152x1152"}) {
      interop::import_file(db, kRecorded + s + ".json.gz", {std::nullopt, std::string("NVIDIA H100 80GB HBM3"), &spec});
      interop::import_file(db, kRecorded + s + ".json.gz", {std::nullopt, std::string("NVIDIA A100-SXM4-80GB"), &spec});
    }
    // Caches record no compute capability; a run of each device does.
    for (auto [device, cc] :
         {std::pair{"NVIDIA H200", "9.0"}, {"NVIDIA H100 80GB HBM3", "9.0"}, {"NVIDIA A100-SXM4-80GB", "8.0"}}) {
      store::RunInfo info;
      info.kernel = "transpose";
      info.device = device;
      info.compute_capability = cc;
      db.finish_run(db.begin_run(info), store::RunStatus::completed);
    }
  }
};

std::string write(const fs::path& p, const std::string& text) {
  std::ofstream(p) << text;
  return p.string();
}

}  // namespace

TEST(Header, RegenerationIsByteIdentical) {
  Recorded r;
  const auto m = header::build(r.db, "transpose", r.spec);
  EXPECT_EQ(header::generate(m, "r.db"), header::generate(header::build(r.db, "transpose", r.spec), "r.db"));
  EXPECT_EQ(header::generate_table(m, "r.db"), header::generate_table(m, "r.db"));
  // Every distinct configuration once; the spec's Defaults among them.
  std::set<std::string> distinct;
  for (const auto& v : m.variants) {
    std::string key;
    for (const auto& x : v.values) key += x.repr() + ",";
    EXPECT_TRUE(distinct.insert(key).second) << key;
  }
  EXPECT_EQ(m.variants[m.default_variant].values[0].as_int(), 32);
  EXPECT_EQ(m.devices.size(), 3u);
}

// select() in the compiled header gives, at every measured size, the configuration query::best
// ranks first; at other sizes the selection model's choice, as query::best; another device of compute capability 9.0
// gets the first such table, reported; a device of another capability gets the spec's Defaults.
TEST(Header, CompiledSelectionsMatchTheDatabase) {
  Recorded r;
  const auto m = header::build(r.db, "transpose", r.spec);
  const fs::path d = r.dir.path();
  write(d / "transpose_tuned.h", header::generate(m, "r.db"));
  struct Q {
    const char* device;
    int major, minor;
    long long x, y;
  };
  std::vector<Q> qs;
  for (const char* dev : {"NVIDIA H200", "NVIDIA H100 80GB HBM3"})
    for (long long n : {128, 256, 512, 1024, 2048, 4096, 300, 1000, 3000, 100000}) qs.push_back({dev, 9, 0, n, n});
  qs.push_back({"NVIDIA H100 PCIe", 9, 0, 4096, 4096});  // unknown, same capability as the others
  qs.push_back({"NVIDIA H100 PCIe", 9, 0, 700, 700});
  qs.push_back({"NVIDIA A100-SXM4-80GB", 8, 0, 512, 512});
  qs.push_back({"NVIDIA GeForce RTX 4090", 8, 9, 512, 512});  // nothing of capability 8.9
  std::ostringstream prog;
  prog << "#include <cstdio>\n#include <vector>\n#include \"transpose_tuned.h\"\nstd::vector<int> after_the_header;\n"
          "int main() {\n  using namespace tune_tuned::transpose;\n";
  for (const auto& q : qs)
    prog << "  { const auto s = select(\"" << q.device << "\", " << q.major << ", " << q.minor << ", " << q.x << ", "
         << q.y << "); const Config& c = s.config(); const auto g = grid(s.get(), " << q.x << ", " << q.y
         << "); std::printf(\"%s %lld %lld %lld %lld %u %u %s\\n\", tune_tuned::match_name(s.match), c.block_size_x, "
            "c.block_size_y, c.tile_size_y, c.vector, g.x, g.y, s.device ? s.device->name : \"-\"); }\n";
  prog << "  return 0;\n}\n";
  write(d / "main.cpp", prog.str());
  fs::copy_file(d / "main.cpp", d / "main.cu");

  std::string expected;
  for (const auto& q : qs) {
    const std::string size = std::to_string(q.x) + "x" + std::to_string(q.y);
    std::string device = q.device, match;
    std::vector<expr::Value> v;
    if (device == "NVIDIA H100 PCIe") device = "NVIDIA H100 80GB HBM3", match = "other device";
    if (q.major == 8 && q.minor == 9) {
      match = "default";
      for (auto x : header::testing::kDefaults) v.push_back(expr::Value::integer(x));
    } else {
      auto best = query::best(r.db, {"transpose", device, size, header::alignment_of(r.spec)});
      ASSERT_EQ(best.size(), 1u);
      if (match.empty()) match = tune_select::how_name(best[0].match);
      auto p = nlohmann::json::parse(best[0].params);
      for (const auto& param : r.spec.parameters) v.push_back(expr::Value::integer(p[param.name].get<long long>()));
    }
    const long long gx = (q.x + v[0].as_int() * v[3].as_int() - 1) / (v[0].as_int() * v[3].as_int());
    const long long gy =
        (q.y + v[1].as_int() * v[2].as_int() * v[7].as_int() - 1) / (v[1].as_int() * v[2].as_int() * v[7].as_int());
    expected += match + " " + std::to_string(v[0].as_int()) + " " + std::to_string(v[1].as_int()) + " " +
                std::to_string(v[2].as_int()) + " " + std::to_string(v[3].as_int()) + " " + std::to_string(gx) + " " +
                std::to_string(gy) + " " + (match == "default" ? "-" : device) + "\n";
  }
  const std::string s = d.string();
  EXPECT_EQ(run("g++ -std=c++17 -Wall -Wextra -Werror -o " + s + "/sel " + s + "/main.cpp && " + s + "/sel"), expected);
  EXPECT_EQ(run(header::testing::nvcc() + " -std=c++17 -o " + s + "/seln " + s + "/main.cu && " + s + "/seln"),
            expected);
}

// Compile-time macros are prefixed and opt-in: a program may include <vector> after the header.
TEST(Header, MacrosArePrefixedAndOptIn) {
  Recorded r;
  const auto m = header::build(r.db, "transpose", r.spec);
  const fs::path d = r.dir.path();
  write(d / "transpose_tuned.h", header::generate(m, "r.db"));
  write(d / "m.cpp",
        "#include \"transpose_tuned.h\"\n#include <vector>\n#include <cstdio>\n"
        "int main() { std::vector<int> v{TUNE_transpose_vector, TUNE_transpose_group};\n"
        "  std::printf(\"%d %d\\n\", v[0], v[1]); }\n");
  const std::string s = d.string();
  const auto& fb = m.variants[m.devices[2].fallback].values;  // devices by name: A100, H100, H200
  EXPECT_EQ(run("g++ -std=c++17 -DTARGET_NVIDIA_H200 -o " + s + "/m " + s + "/m.cpp && " + s + "/m"),
            std::to_string(fb[3].as_int()) + " " + std::to_string(fb[11].as_int()) + "\n");
  EXPECT_EQ(run("g++ -std=c++17 -DTUNE_transpose_MACROS -o " + s + "/m " + s + "/m.cpp && " + s + "/m"), "1 1\n");
  // Without a target or the opt-in macro, no parameter macro reaches the includer.
  EXPECT_NE(run("g++ -std=c++17 -o " + s + "/m2 " + s + "/m.cpp").find("FAILED"), std::string::npos);
  const std::string h = header::generate(m, "r.db");
  EXPECT_EQ(h.find("#define vector"), std::string::npos);
  EXPECT_EQ(h.find("#define group"), std::string::npos);
}

TEST(Header, TableForTheRuntimeHoldsTheSameSelections) {
  Recorded r;
  const auto m = header::build(r.db, "transpose", r.spec);
  auto t = nlohmann::json::parse(header::generate_table(m, "r.db"));
  EXPECT_EQ(t["format"], "tune-table");
  EXPECT_EQ(t["version"], 2);
  EXPECT_EQ(t["space_hash"], spec::space_hash(r.spec));
  ASSERT_EQ(t["devices"].size(), 3u);
  EXPECT_EQ(t["devices"][2]["name"], "NVIDIA H200");
  EXPECT_EQ(t["devices"][2]["compute_capability"], nlohmann::json::array({9, 0}));
  for (const auto& e : t["devices"][2]["entries"]) {
    auto best =
        query::best(r.db, {"transpose", std::string("NVIDIA H200"),
                           std::to_string(e[0].get<long long>()) + "x" + std::to_string(e[1].get<long long>())});
    ASSERT_EQ(best.size(), 1u);
    auto p = nlohmann::json::parse(best[0].params);
    const auto& values = t["variants"][e[3].get<std::size_t>()];
    for (std::size_t i = 0; i < r.spec.parameters.size(); ++i) EXPECT_EQ(values[i], p[r.spec.parameters[i].name]);
    EXPECT_DOUBLE_EQ(e[4].get<double>(), best[0].time_ms);
    EXPECT_GT(e[5].get<double>(), 0);
    EXPECT_LE(e[5].get<double>(), e[4].get<double>() * 1.05);
  }
  // the model: every candidate with its alignment (Tune.alignment: vector on x and y)
  const auto& d = t["devices"][2];
  ASSERT_EQ(d["regret"].size(), d["entries"].size());
  for (const auto& c : d["candidates"]) {
    const auto vector = t["variants"][c[0].get<std::size_t>()][3];
    EXPECT_EQ(c[1], vector);
    EXPECT_EQ(c[2], vector);
    EXPECT_EQ(c[3], 1);
  }
}

TEST(Header, NoResultsIsAnError) {
  store::testing::TempDir t;
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  const auto spec = spec::load(kSpec);
  EXPECT_THROW(header::build(db, "transpose", spec), InputError);
}

// The dispatch header of a kernel that includes shared device code (gemm.cu: common/mma_tf32.cuh)
// holds that code, written in once per configuration's copy, and compiles with nvcc alone.
TEST(Header, DispatchOfAKernelWithSharedHeadersCompiles) {
  store::testing::TempDir dir;
  const spec::Spec spec = spec::load(header::testing::source_dir() + "/spaces/gemm.json");
  const space::Space space = space::Space::build(spec);
  auto db = store::Store::open((dir.path() / "g.db").string(), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "gemm";
  info.device = "NVIDIA H100 80GB HBM3";
  info.compute_capability = "9.0";
  const std::int64_t run_id = db.begin_run(info);
  // the first FMA and the first tensor-core configuration, each the best at one size
  std::size_t mma = 0;
  while (mma < spec.parameters.size() && spec.parameters[mma].name != "mma") ++mma;
  ASSERT_LT(mma, spec.parameters.size());
  std::vector<std::size_t> picked;
  for (long long want : {0, 1})
    for (std::size_t c = 0; c < space.size(); ++c)
      if (space.config_values(c)[mma].as_int() == want) {
        picked.push_back(c);
        break;
      }
  ASSERT_EQ(picked.size(), 2u);
  for (std::size_t i = 0; i < 2; ++i)
    for (std::size_t j = 0; j < 2; ++j) {
      store::Measurement m;
      m.config_id = db.upsert_configuration_text("gemm", spec::space_hash(spec), space.params_json(picked[j]));
      m.run_id = run_id;
      m.device = info.device;
      m.size = sizes::Size::of(i == 0 ? 256 : 4096, i == 0 ? 256 : 4096, i == 0 ? 256 : 4096);
      m.samples_ms = std::vector<float>(6, i == j ? 1.0f : 2.0f);
      db.record(m);
    }
  db.finish_run(run_id, store::RunStatus::completed);
  const auto model = header::build(db, "gemm", spec);
  // the two measured configurations, and the spec's defaults as the fallback
  ASSERT_EQ(model.variants.size(), 3u);
  int tensor_core = 0;
  for (const auto& v : model.variants)
    for (const auto& [name, value] : v.defines) tensor_core += name == "mma" && value == "1";
  EXPECT_EQ(tensor_core, 1);
  compile::SourceOptions bare;
  bare.line_markers = false;
  const std::string cuh =
      header::generate_dispatch(model, compile::read_kernel_source(spec.kernel.file_path, "gemm", bare).text, "g.db");
  EXPECT_EQ(cuh.find("#include \"common/"), std::string::npos);
  EXPECT_NE(cuh.find("mma.sync"), std::string::npos);
  const fs::path& d = dir.path();
  write(d / "gemm_dispatch.cuh", cuh);
  write(d / "app.cu",
        "#include \"gemm_dispatch.cuh\"\nint main() { return tune_tuned::gemm::num_variants == 3 ? 0 : 1; }\n");
  const std::string s = d.string();
  EXPECT_EQ(run(header::testing::nvcc() + " -std=c++17 -arch=sm_90 -o " + s + "/app " + s + "/app.cu && " + s + "/app"),
            "");
}

// Issue #43: the rough edges a first-time user meets, one test per item, through the binary at a
// 100-column terminal (front_door.h). TUNE_TEST_BINARY=/path/to/older/tune runs them against
// another build.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/front_door.h"
#include "store/store.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune::cli::testing;  // NOLINT

namespace {

std::size_t columns(const std::string& line) {
  std::size_t n = 0;
  for (const char c : line) n += (static_cast<unsigned char>(c) & 0xC0) != 0x80;
  return n;
}

std::string read(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

bool has(const std::string& text, const std::string& needle) { return text.find(needle) != std::string::npos; }

// A database of the whole recorded transpose sweep (44 sizes, brute force), replayed once.
struct Sweep : ::testing::Test {
  static inline tune::store::testing::TempDir* dir = nullptr;
  static inline std::string db;
  static inline Ran replayed;
  static void SetUpTestSuite() {
    dir = new tune::store::testing::TempDir();
    db = dir->file("sweep.db");
    replayed = run("--space " + kTranspose + " --replay " + kRecorded + "/*.json.gz --strategy brute_force --db " + db);
  }
  static void TearDownTestSuite() {
    delete dir;
    dir = nullptr;
  }
  void SetUp() override { ASSERT_EQ(replayed.code, 0) << replayed.err; }
};

}  // namespace

// Item 1: every command's output fits a 100-column terminal (JSON, CSV, HTML and --wide aside).
TEST_F(Sweep, EveryCommandFitsOneHundredColumns) {
  const std::string d = " --db " + db;
  std::vector<std::pair<std::string, Ran>> runs = {{"the replay", replayed}};
  for (const std::string& args : std::vector<std::string>{
           "--help",
           "run --help",
           "space --help",
           "best --help",
           "header --help",
           "report --help",
           "import --help",
           "export --help",
           "db --help",
           "evaluate --help",
           "space spaces/gemm.json",
           "space " + kTranspose,
           "best" + d,
           "best --size 100000" + d,
           "best --size 1000" + d,
           "db" + d,
           "db --schema" + d,
           "--space " + kTranspose + " --replay no-such-cache.json" + d,
           "header --out -" + d,
           "header --dispatch --out -" + d,
           "export --format kt-cache --out x.json" + d,
           "--space " + kTranspose + " --replay " + kRecorded + "/*.json.gz --strategy brute_force" + d,
           "evaluate --space " + kTranspose + " --replay " + two_caches() + " --strategy random_sample --repeats 2",
           "bset",
           "best --kernal transpose" + d,
           "--space " + kTranspose + " --sizes 128:4096:0"})
    runs.emplace_back(args, run(args));
  for (const auto& [args, r] : runs) {
    EXPECT_FALSE(r.out.empty() && r.err.empty()) << args;
    // The generated headers too (264 columns before), with the selection rule and the kernel
    // source they paste.
    for (const auto* text : {&r.out, &r.err})
      for (const auto& line : Ran::lines(*text)) EXPECT_LE(columns(line), 100u) << "tune " << args << ":\n" << line;
  }
}

// Item 2: times below a millisecond in µs ("us" in a locale that is not UTF-8), three digits.
TEST_F(Sweep, TimesInTheUnitOfTheColumn) {
  const Ran r = run("best --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out_lines().at(0), "mean \xC2\xB5s")) << r.out;
  EXPECT_FALSE(std::regex_search(r.out, std::regex(" 0\\.00\\d\\d "))) << "a sub-millisecond time in ms: " << r.out;
  const Ran c = run("best --db " + db + " | head -1; LC_ALL=C " + tune_binary() + " best --db " + db);
  EXPECT_TRUE(has(c.out, "mean us")) << c.out;
}

// Item 3: --out - writes to standard output, and no file named "-".
TEST_F(Sweep, OutDashIsStandardOutput) {
  const std::string cwd = dir->path().string();
  const Ran h = run("header --out - --db " + db, cwd);
  EXPECT_EQ(h.code, 0) << h.err;
  EXPECT_TRUE(has(h.out, "#ifndef")) << h.out.substr(0, 200);
  const Ran t = run("header --table --out - --db " + db, cwd);
  EXPECT_TRUE(nlohmann::json::accept(t.out)) << t.out.substr(0, 200);
  const Ran rep = run("report --out - --db " + db, cwd);
  EXPECT_TRUE(has(rep.out, "<html")) << rep.out.substr(0, 200);
  const Ran e = run("export --format csv --out - --db " + db, cwd);
  EXPECT_EQ(e.code, 0) << e.err;
  EXPECT_GT(std::count(e.out.begin(), e.out.end(), '\n'), 100);
  EXPECT_FALSE(fs::exists(dir->path() / "-"));
}

// Item 4: "did you mean" for commands and options; placeholders; the help texts.
TEST(FrontDoor, DidYouMeanForCommandsAndOptions) {
  for (const auto& [args, hint] : std::vector<std::pair<std::string, std::string>>{
           {"bset", "'best'"},
           {"best --kernal transpose", "'--kernel'"},
           {"header --dispach", "'--dispatch'"},
           {"db --shema", "'--schema'"},
           {"--space " + kTranspose + " --stratgy random_sample", "'--strategy'"},
           {"export --format cvs --out x", "'csv'"}}) {
    const Ran r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_TRUE(has(r.err, "did you mean " + hint)) << args << ": " << r.err;
  }
}

TEST(FrontDoor, HelpTexts) {
  for (const char* cmd : {"run", "space", "best", "header", "report", "import", "export", "db", "evaluate"}) {
    const Ran r = run(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_FALSE(std::regex_search(r.out, std::regex(" arg\\b"))) << cmd << " --help names a value `arg`:\n" << r.out;
  }
  EXPECT_TRUE(has(run("header --help").out, "[--kernel NAME]"));  // optional, as its option says
  const Ran import = run("import --help");
  EXPECT_FALSE(has(import.out, "--file")) << import.out;
  EXPECT_TRUE(has(import.out, "FILE...")) << import.out;
  const Ran help = run("run --help");
  EXPECT_FALSE(has(help.out, "--share") || has(help.out, "--decide-only")) << help.out;
  EXPECT_TRUE(has(run("--help").out, "--version"));
  const Ran space = run("space " + kTranspose);  // the spec as a positional argument
  EXPECT_EQ(space.code, 0) << space.err;
  EXPECT_TRUE(has(space.out, "block_size_x")) << space.out;
}

// Item 6: a replay that matches nothing fails and leaves no database; a replay again stores
// nothing new and says so; the preamble says what is done; a summary closes it.
TEST(FrontDoor, AReplayOfNoCacheAtTheSizesFailsWithoutADatabase) {
  tune::store::testing::TempDir t;
  const Ran r = run("--space " + kTranspose + " --replay " + kRecorded + "/128x128.json.gz --sizes 4096 --db " +
                    t.file("none.db"));
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_TRUE(has(r.err, "matches none")) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_FALSE(fs::exists(t.file("none.db")));
}

TEST(FrontDoor, AReplayAgainStoresNothingNew) {
  tune::store::testing::TempDir t;
  const std::string args = "--space " + kTranspose + " --replay " + kRecorded +
                           "/128x128.json.gz --strategy brute_force --db " + t.file("r.db");
  const Ran first = run(args);
  ASSERT_EQ(first.code, 0) << first.err;
  EXPECT_FALSE(has(first.err + first.out, "0 sizes")) << first.err;
  EXPECT_FALSE(has(first.out, "each size starts from")) << first.out;  // one cache, brute force
  EXPECT_TRUE(has(first.out, "Replayed 1 of 1 caches")) << first.out;
  const auto runs = [&] {
    return tune::store::Store::open(t.file("r.db"), tune::store::Store::Mode::read_only).runs();
  };
  const std::size_t before = runs().size();
  const Ran again = run(args);
  ASSERT_EQ(again.code, 0) << again.err;
  EXPECT_EQ(runs().size(), before);
  EXPECT_TRUE(has(again.out, "nothing new")) << again.out;
}

TEST_F(Sweep, TheReportOfReplayedDataClaimsNoCeilingsAndSortsItsTiming) {
  const std::string html = run("report --out - --db " + db).out;
  EXPECT_FALSE(has(html, "Ceilings were measured in the same runs")) << "no ceiling was measured";
  const auto small = html.find("256x256.json.gz"), large = html.find("1152x1152.json.gz");
  ASSERT_NE(small, std::string::npos);
  EXPECT_LT(small, large) << "Timing: lines in the order of the sizes";
}

TEST_F(Sweep, ASizeBeyondTheMeasuredRangeIsWarnedAndBorrowsNoThroughput) {
  const Ran r = run("best --size 100000 --db " + db);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "warning: 100000x100000 is beyond")) << r.out;
  const auto lines = r.out_lines();
  ASSERT_GE(lines.size(), 2u);
  const auto gbps = lines[0].find("GB/s");
  ASSERT_NE(gbps, std::string::npos) << lines[0];
  const std::size_t end = columns(lines[0].substr(0, gbps)) + 3;  // the column where "GB/s" ends (the row is ASCII)
  EXPECT_EQ(lines[1].substr(end, 1), "-") << "the GB/s column holds no number:\n" << lines[0] << "\n" << lines[1];
  const Ran j = run("best --size 100000 --json --db " + db);
  EXPECT_TRUE(nlohmann::json::parse(j.out)["sizes"][0]["gbps"].is_null()) << j.out;
}

// Item 7: every input validated before the first byte of output.
TEST(FrontDoor, BadStrategyOptionValuesAreRefusedBeforeAnything) {
  tune::store::testing::TempDir t;
  const Ran gpu = run("--space " + kTranspose +
                      " --sizes 1024 --strategy genetic_algorithm "
                      "--strategy-option popsize=abc --db " +
                      t.file("g.db"));
  EXPECT_EQ(gpu.code, 2) << gpu.err;  // not the no-GPU exit 3
  EXPECT_TRUE(has(gpu.err, "popsize=abc")) << gpu.err;
  const Ran replay = run("--space " + kTranspose + " --replay " + kRecorded +
                         "/128x128.json.gz "
                         "--strategy genetic_algorithm --strategy-option popsize=abc --db " +
                         t.file("r.db"));
  EXPECT_EQ(replay.code, 2) << replay.err;
  EXPECT_TRUE(replay.out.empty()) << "printed before the bad option was refused: " << replay.out;
  EXPECT_FALSE(fs::exists(t.file("r.db")));
}

TEST(FrontDoor, AMissingReplayedCacheIsRefusedBeforeAnything) {
  tune::store::testing::TempDir t;
  const Ran r = run("--space " + kTranspose + " --replay " + kRecorded + "/128x128.json.gz no-such-cache.json --db " +
                    t.file("m.db"));
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(r.err_lines().size(), 1u) << "the spec's line before the refusal:\n" << r.err;
  EXPECT_TRUE(has(r.err, "no-such-cache.json: no such file")) << r.err;
  EXPECT_FALSE(fs::exists(t.file("m.db")));
}

TEST(FrontDoor, TheBadPartOfAnInputIsNamed) {
  const Ran step = run("--space " + kTranspose + " --sizes 128:4096:0");
  EXPECT_EQ(step.code, 2);
  EXPECT_TRUE(has(step.err, "step '0'")) << step.err;
  const Ran format = run("export --format xls");
  EXPECT_EQ(format.code, 2);
  EXPECT_TRUE(has(format.err, "--format 'xls'")) << format.err;
}

// An absurd value in a spec is one readable line and exit 2, before anything is printed: a cluster
// or shared memory beyond any GPU at `tune space` (not first at launch), and an echoed 5,000-digit
// value cut in the message.
TEST(FrontDoor, AbsurdSpecValuesAreOneShortLineAtTuneSpace) {
  tune::store::testing::TempDir t;
  auto variant = [&](const std::string& name, const std::string& key, const nlohmann::json& value) {  // NOLINT
    std::ifstream in(kSource + "/spaces/tma_copy.json");
    nlohmann::json j = nlohmann::json::parse(in);
    if (key == "cluster")
      j["Tune"]["cluster"]["X"] = value;
    else
      j["Tune"][key] = value;
    j["KernelSpecification"]["KernelFile"] = kSource + "/kernels_src/tma_copy.cu";
    std::ofstream(t.file(name)) << j.dump();
    return run("space " + t.file(name));
  };
  for (const auto& [name, key, value] :
       {std::tuple{std::string("c.json"), std::string("cluster"), nlohmann::json("10**30")},
        std::tuple{std::string("d.json"), std::string("dynamic_shared_memory"), nlohmann::json("-1")},
        std::tuple{std::string("a.json"), std::string("arch"), nlohmann::json("sm_" + std::string(5000, '9'))}}) {
    SCOPED_TRACE(name);
    const Ran r = variant(name, key, value);
    EXPECT_EQ(r.code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_LE(r.err_lines().size(), std::size_t{3}) << r.err.substr(0, 400);  // wrapped at 100 columns
    EXPECT_LE(r.err.size(), 300U) << r.err.substr(0, 400);
    EXPECT_TRUE(has(r.err, "Tune." + key)) << r.err;
  }
}

TEST(FrontDoor, WithoutAGpuTheMessagePointsToTheReplay) {
  tune::store::testing::TempDir t;
  const Ran r = run("--space " + kTranspose + " --sizes 1024 --db " + t.file("g.db"));
  if (r.code != 3) GTEST_SKIP() << "a GPU is present";
  EXPECT_TRUE(has(r.err, "--replay")) << r.err;
  EXPECT_TRUE(has(r.err, "results/recorded/transpose")) << r.err;
  const std::regex spec_line("configurations valid");
  EXPECT_EQ(std::distance(std::sregex_iterator(r.err.begin(), r.err.end(), spec_line), std::sregex_iterator()), 1)
      << "the spec line once (not again by the worker process):\n"
      << r.err;
}

TEST_F(Sweep, ExportFindsTheSizeBestFinds) {
  const Ran best = run("best --size 1152 --json --db " + db);
  ASSERT_EQ(best.code, 0) << best.err;
  EXPECT_EQ(nlohmann::json::parse(best.out)["sizes"][0]["match"], "exact");
  const Ran e = run("export --format kt-cache --size 1152 --out " + dir->file("1152.json") + " --db " + db);
  EXPECT_EQ(e.code, 0) << e.err;
  EXPECT_TRUE(has(e.out, "1152x1152")) << e.out;
}

// Item 8: `tune header` from outside the repository finds the spec its runs recorded, and the
// generated header names the kernel file by a path that works from anywhere.
TEST_F(Sweep, HeaderWorksOutsideTheRepository) {
  const Ran h = run("header --out - --db " + db, fs::temp_directory_path().string());  // outside the root
  ASSERT_EQ(h.code, 0) << h.err;
  const std::smatch m = [&] {
    std::smatch s;
    std::regex_search(h.out, s, std::regex("kernel_path = \"([^\"]+)\""));
    return s;
  }();
  ASSERT_FALSE(m.empty()) << "no kernel_path in the header";
  EXPECT_TRUE(fs::path(m[1].str()).is_absolute());
  EXPECT_TRUE(fs::exists(m[1].str()));
}

TEST(FrontDoor, TheQuickStartBuildsWhatTheInstallStepInstalls) {
  const std::string main_sh = read(kSource + "/scripts/main.sh");
  EXPECT_TRUE(std::regex_search(main_sh, std::regex("build\\.sh[^\\n]*tune_runtime"))) << "scripts/main.sh";
  const std::string example = read(kSource + "/examples/transpose/README.md");
  EXPECT_TRUE(has(example, "cmake --install")) << "examples/transpose/README.md";
  const std::string cmake = read(kSource + "/examples/transpose/CMakeLists.txt");
  EXPECT_FALSE(has(cmake, "set(CMAKE_CUDA_ARCHITECTURES 90)")) << "built for one architecture";
  EXPECT_FALSE(has(cmake, "tune::runtime CUDA::cublas)")) << "cuBLAS required";
}

// Item 9: every schema or file that spaces/README.md cites by path is in the repository.
TEST(FrontDoor, SpacesReadmeCitesOnlyFilesInTheRepository) {
  const std::string text = read(kSource + "/spaces/README.md");
  const std::regex path("`([A-Za-z0-9_./-]+/[A-Za-z0-9_.-]+\\.json)`");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), path); it != std::sregex_iterator(); ++it)
    EXPECT_TRUE(fs::exists(kSource + "/" + (*it)[1].str()) || fs::exists(kSource + "/spaces/" + (*it)[1].str()))
        << (*it)[1].str();
}

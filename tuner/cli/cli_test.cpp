// The `tune` binary end to end: every bad input gives one clear line, a non-zero exit, and leaves
// the database unchanged.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "common/test_data.h"
#include "store/test_util.h"

namespace fs = std::filesystem;

namespace {

struct Result {
  int code = -1;
  std::string out, err;
};

Result run_tune(const std::string& args) {
  static int n = 0;
  fs::path err = fs::temp_directory_path() / ("tune_cli_err_" + std::to_string(::getpid()) + "_" + std::to_string(n++));
  std::string cmd = std::string(TUNE_BINARY) + " " + args + " 2>" + err.string();
  Result r;
  FILE* p = ::popen(cmd.c_str(), "r");
  char buf[4096];
  while (p && std::fgets(buf, sizeof buf, p)) r.out += buf;
  int status = p ? ::pclose(p) : -1;
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  std::ifstream e(err);
  std::stringstream ss;
  ss << e.rdbuf();
  r.err = ss.str();
  fs::remove(err);
  return r;
}

// A scratch directory (the store tests' one) that can also write files into itself.
struct TempDir : tune::store::testing::TempDir {
  fs::path write(const std::string& name, const std::string& text) const {
    tune::store::testing::write_bytes(file(name), text);
    return path() / name;
  }
};

std::string file_hash(const fs::path& p) { return tune::store::testing::file_hash(p.string()); }

int lines(const std::string& s) {
  int n = 0;
  for (char c : s) n += c == '\n';
  return n;
}

const char* kKernel = "extern \"C\" __global__ void k(float* a) { a[threadIdx.x] = 1.0f; }\n";

std::string spec(const std::string& params, const std::string& conds = "[]") {
  return R"({"ConfigurationSpace": {"TuningParameters": )" + params + R"(, "Conditions": )" + conds +
         R"(}, "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
         "GlobalSize": {"X": "1"}, "LocalSize": {"X": "block_size_x"}, "ProblemSize": [1024],
         "Arguments": [{"Name": "a", "Type": "float", "MemoryType": "Vector", "Size": "ProblemSize[0]", "Output": 1}]}})";
}
const std::string kParams = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])";

// Runs `tune run` against a copy of a database and checks the failure contract.
void expect_clean_failure(const TempDir& t, const std::string& args, const std::string& needle) {
  fs::path db = t.path() / "results.db";
  bool had_db = fs::exists(db);
  std::string before = had_db ? file_hash(db) : "";
  Result r = run_tune(args + " --db " + db.string());
  EXPECT_NE(r.code, 0) << args;
  EXPECT_NE(r.code, 1) << "an internal error instead of a clear one: " << r.err;
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find(needle), std::string::npos) << "expected '" << needle << "' in: " << r.err;
  if (had_db)
    EXPECT_EQ(file_hash(db), before) << "the database changed";
  else
    EXPECT_FALSE(fs::exists(db)) << "a database was created";
}

}  // namespace

TEST(Cli, HelpForEveryCommand) {
  Result top = run_tune("--help");
  EXPECT_EQ(top.code, 0);
  EXPECT_NE(top.out.find("tune --space spaces/transpose.json --sizes 128:4096"), std::string::npos);
  for (const char* cmd : {"run", "space", "best", "header", "db"}) {
    Result r = run_tune(std::string(cmd) + " --help");
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find(std::string("usage: tune ")), std::string::npos) << cmd;
  }
}

TEST(Cli, SpaceJsonCountsMatchPython) {
  Result r = run_tune("space --space " + tune::test_data::file("bat/GEMM-CAFF.json").string() + " --json");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"cartesian\":20736"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"valid\":10312"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\"build_s\":"), std::string::npos) << r.out;
  Result text = run_tune("space --space " + tune::test_data::file("benchmark_hub/dedispersion_milo.json").string());
  ASSERT_EQ(text.code, 0);
  EXPECT_NE(text.out.find("cartesian 22272, valid 11130"), std::string::npos) << text.out;
}

TEST(Cli, SpaceProgramIsTheKernelWithItsSharedHeadersWrittenIn) {
  const std::string gemm = (fs::path(TUNE_SOURCE_DIR) / "spaces" / "gemm.json").string();
  Result r = run_tune("space --space " + gemm + " --program");
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("void mma_tf32("), std::string::npos);  // from kernels_src/common/mma_tf32.cuh
  EXPECT_EQ(r.out.find("#include \"common/"), std::string::npos);
  EXPECT_NE(r.out.find("#line 1 \"common/mma_tf32.cuh\""), std::string::npos);
  EXPECT_NE(r.out.find("extern \"C\" __global__"), std::string::npos);
  // a kernel that includes nothing of ours is printed as it is
  std::ifstream f(fs::path(TUNE_SOURCE_DIR) / "kernels_src" / "copy.cu", std::ios::binary);
  std::stringstream copy;
  copy << f.rdbuf();
  Result t = run_tune("space --space " + (fs::path(TUNE_SOURCE_DIR) / "spaces" / "copy.json").string() + " --program");
  EXPECT_EQ(t.out, copy.str());
  Result both = run_tune("space --space " + gemm + " --program --json");
  EXPECT_EQ(both.code, 2);
  EXPECT_NE(both.err.find("exclude each other"), std::string::npos) << both.err;
}

// The compile servers' marker (compile/processes.h) set by hand, or inherited by a command that no
// tune run started: one clear error, exit 2, and nothing read from standard input.
TEST(CliBadInput, AStrayCompileServerVariableIsOneError) {
  for (const char* value : {"1 sm_90", "garbage", "999999999 sm_90; rm -rf /"}) {
    ::setenv("TUNE_COMPILE_SERVER", value, 1);
    const Result r = run_tune("--help </dev/null");
    ::unsetenv("TUNE_COMPILE_SERVER");
    EXPECT_EQ(r.code, 2) << value;
    EXPECT_NE(r.err.find("TUNE_COMPILE_SERVER is set"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "") << value;
  }
}

TEST(CliBadInput, MalformedJson) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", "{\"ConfigurationSpace\": [");
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "malformed JSON");
}

TEST(CliBadInput, MissingRequiredKey) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json",
                   R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": "[1]"}]}})");
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "missing required key \"KernelSpecification\"");
}

TEST(CliBadInput, UnknownParameterInACondition) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write(
      "s.json", spec(kParams, R"([{"Expression": "block_size_x * tile_x <= 1024", "Parameters": ["block_size_x"]}])"));
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "unknown name 'tile_x'");
}

TEST(CliBadInput, EmptySpace) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s =
      t.write("s.json", spec(kParams, R"([{"Expression": "block_size_x > 1024", "Parameters": ["block_size_x"]}])"));
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "the space is empty");
  Result r = run_tune("space --space " + s.string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
}

TEST(CliBadInput, BadSizes) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  for (const char* sizes : {"4096:128", "abc", "12x", "0"})
    expect_clean_failure(t, "--space " + s.string() + " --sizes " + sizes, "bad --sizes");
}

TEST(CliBadInput, MissingKernelFile) {
  TempDir t;
  auto s = t.write("s.json", spec(kParams));
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "KernelFile: kernel file");
}

TEST(CliBadInput, UnwritableDatabase) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  t.write("plainfile", "not a directory");
  Result r = run_tune("--space " + s.string() + " --sizes 1024 --db " + (t.path() / "plainfile" / "x.db").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(lines(r.err), 1) << r.err;
  EXPECT_NE(r.err.find("cannot create the database"), std::string::npos) << r.err;
}

TEST(CliBadInput, CorruptDatabase) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  std::string junk(8192, '\0');
  for (std::size_t i = 0; i < junk.size(); ++i) junk[i] = static_cast<char>((i * 7919) % 251);
  t.write("results.db", junk);
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "results.db");
  Result b = run_tune("best --kernel k --db " + (t.path() / "results.db").string());
  EXPECT_EQ(b.code, 2);
  EXPECT_EQ(lines(b.err), 1) << b.err;
}

TEST(CliBadInput, NewerSchemaDatabase) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  fs::path db = t.path() / "results.db";
  ASSERT_EQ(std::system(("sqlite3 " + db.string() +
                         " 'PRAGMA user_version=99; CREATE TABLE x(a);' 2>/dev/null || "
                         "python3 -c \"import sqlite3; c=sqlite3.connect('" +
                         db.string() +
                         "'); c.execute('create table x(a)'); c.execute('pragma user_version=99'); c.commit()\"")
                            .c_str()),
            0);
  expect_clean_failure(t, "--space " + s.string() + " --sizes 1024", "schema version 99");
}

TEST(CliBadInput, UnknownCommandAndOption) {
  Result r = run_tune("frobnicate");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown command 'frobnicate'"), std::string::npos);
  Result o = run_tune("space --spaec x.json");
  EXPECT_EQ(o.code, 2);
  EXPECT_EQ(lines(o.err), 1) << o.err;
}

TEST(Cli, NoGpuIsOneClearMessage) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  Result r = run_tune("--space " + s.string() + " --sizes 1024 --db " + (t.path() / "r.db").string());
  if (r.code == 0) GTEST_SKIP() << "a GPU is present: this test is for machines without one";
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_NE(r.err.find("no CUDA GPU available"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(t.path() / "r.db"));
}

// Without --seed, a search draws a fresh seed per run (repeated runs are independent samples, as
// Kernel Tuner's are; before, every run used seed 1, so ten runs were one run ten times), prints it
// and stores it; --seed with that number repeats the search exactly.
TEST(Cli, ASearchWithoutSeedDrawsOneAndSeedRepeatsIt) {
  TempDir t;
  const std::string base = "--space " + tune::test_data::file("benchmark_hub/convolution_milo.json").string() +
                           " --replay " +
                           tune::test_data::file("benchmark_hub/convolution_milo/A100.json.gz").string() +
                           " --strategy random_sample --max-fevals 10 --json --db ";
  auto run = [&](const std::string& db, const std::string& extra) {
    Result r = run_tune(base + t.file(db) + extra);
    EXPECT_EQ(r.code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  const auto a = run("a.db", ""), b = run("b.db", "");
  const auto seed = a.at("seed").get<std::uint64_t>();
  EXPECT_NE(seed, b.at("seed").get<std::uint64_t>());
  EXPECT_NE(a.at("sizes")[0].at("first_evaluated"), b.at("sizes")[0].at("first_evaluated"));
  const auto again = run("c.db", " --seed " + std::to_string(seed));
  EXPECT_EQ(again.at("seed").get<std::uint64_t>(), seed);
  EXPECT_EQ(again.at("sizes")[0].at("first_evaluated"), a.at("sizes")[0].at("first_evaluated"));
  EXPECT_EQ(again.at("sizes")[0].at("params"), a.at("sizes")[0].at("params"));
  // The text output names the drawn seed and how to repeat it.
  const Result text =
      run_tune("--space " + tune::test_data::file("benchmark_hub/convolution_milo.json").string() + " --replay " +
               tune::test_data::file("benchmark_hub/convolution_milo/A100.json.gz").string() +
               " --strategy random_sample --max-fevals 3 --db " + t.file("d.db"));
  EXPECT_NE(text.out.find("drawn for this run: --seed repeats it"), std::string::npos) << text.out;
}

// --parallel: a replay on K simulated GPUs; outside its range, or for a GPU run, one clear error and
// nothing written.
TEST(CliBadInput, ParallelIsForReplaysWithinItsRange) {
  TempDir t;
  const std::string replay = "--space " + tune::test_data::file("benchmark_hub/convolution_milo.json").string() +
                             " --replay " +
                             tune::test_data::file("benchmark_hub/convolution_milo/A100.json.gz").string();
  for (const char* k : {"0", "-3", "257"}) expect_clean_failure(t, replay + " --parallel " + k, "bad --parallel");
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  expect_clean_failure(t, "--space " + s.string() + " --sizes 256 --parallel 2", "--parallel simulates");
  const Result ok =
      run_tune(replay + " --strategy greedy_ils --max-fevals 24 --seed 2 --parallel 4 --db " + t.file("p.db"));
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_NE(ok.out.find("4 simulated GPUs evaluating batches at once"), std::string::npos) << ok.out;
  EXPECT_NE(ok.out.find(": 24 evaluations"), std::string::npos) << ok.out;
}

// --share I/K and --decide-only (the parts of a size split over MPI ranks): a malformed or
// out-of-range share, both parts at once, a part of a replay, or a budget smaller than the shares:
// one clear error, exit 2, nothing written.
TEST(CliBadInput, SharesWithinTheirRange) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  const std::string run = "--space " + s.string() + " --sizes 256";
  for (const char* v : {"1", "2/2", "0/1", "0/0", "a/2", "1/-2", "0/4097", "0/99999999999999999999", "/2", "0/"})
    expect_clean_failure(t, run + " --share " + std::string(v), "bad --share");
  expect_clean_failure(t, run + " --share 0/2 --decide-only", "different parts");
  expect_clean_failure(t, run + " --share 1/3 --max-fevals 2", "leaves some shares nothing");
  auto cache = t.write("c.json", "{}");
  expect_clean_failure(t, "--space " + s.string() + " --replay " + cache.string() + " --decide-only",
                       "not with --replay");
}

// --compile-threads: outside 1..1024 one clear error and nothing written.
TEST(CliBadInput, CompileThreadsWithinItsRange) {
  TempDir t;
  t.write("k.cu", kKernel);
  auto s = t.write("s.json", spec(kParams));
  for (const char* n : {"0", "-1", "1025"})
    expect_clean_failure(t, "--space " + s.string() + " --sizes 256 --compile-threads " + n, "bad --compile-threads");
}

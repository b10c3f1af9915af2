// One selection source: at 1,000 random sizes (odd, rectangular, inside and beyond the measured
// range, and measured ones; a fixed seed), `tune best`'s library path (query::best), the compiled
// generated .h (g++), the compiled --dispatch .cuh (nvcc; selection runs on the host, no GPU) and
// tune::runtime's table choose the same configuration, from the recorded H200 transpose sweep.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "compile/source.h"
#include "header/header.h"
#include "header/model.h"
#include "interop/interop.h"
#include "query/query.h"
#include "runtime/table.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

const std::string kRoot = TUNE_SOURCE_DIR;
const char* kDevice = "NVIDIA H200";

std::string run(const std::string& cmd) {
  std::string out;
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (!p) return "popen failed";
  char buf[4096];
  std::size_t n = 0;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  if (::pclose(p) != 0) out = "FAILED: " + cmd + "\n" + out;
  return out;
}

std::vector<std::array<long long, 2>> random_sizes() {
  std::mt19937_64 rng(41);
  auto log_uniform = [&](double lo, double hi) {
    return static_cast<long long>(
        std::exp(std::uniform_real_distribution<double>(std::log(lo), std::log(hi))(rng)));
  };
  std::vector<std::array<long long, 2>> out;
  for (int i = 0; i < 1000; ++i) {
    switch (i % 5) {
      case 0:  // inside the range, any extents
        out.push_back({log_uniform(128, 4096), log_uniform(128, 4096)});
        break;
      case 1: {  // squares, odd ones half the time
        long long n = log_uniform(128, 4096);
        if (i % 2) n |= 1;
        out.push_back({n, n});
        break;
      }
      case 2: {  // rectangles up to 16:1 both ways, near multiples of 4
        const long long a = log_uniform(128, 4096), b = std::max(1LL, a / (1 + i % 16));
        const long long off = i % 3 - 1;
        out.push_back(i % 2 ? std::array<long long, 2>{a + off, b}
                            : std::array<long long, 2>{b, a + off});
        break;
      }
      case 3:  // beyond the range
        out.push_back({log_uniform(1, 65536), log_uniform(1, 65536)});
        break;
      default:  // measured sizes and their neighbours
        const long long n = 128 * (1 + i % 32) + (i % 3 - 1) * (i % 7 == 0);
        out.push_back({n, n});
    }
  }
  return out;
}

// The variant indices a compiled selection program printed, one per line.
std::vector<std::size_t> variants_of(const std::string& output) {
  std::vector<std::size_t> out;
  std::istringstream in(output);
  std::size_t v = 0;
  while (in >> v) out.push_back(v);
  return out;
}

const char* kMain = R"(#include <chrono>
#include <cstdio>
int main(int argc, char** argv) {
  std::FILE* f = std::fopen(argv[1], "r");
  long long x = 0, y = 0;
  while (f && std::fscanf(f, "%lld %lld", &x, &y) == 2)
    std::printf("%u\n", tune_tuned::transpose::select("NVIDIA H200", 9, 0, x, y).variant);
  return argc > 1 ? 0 : 1;
}
)";

}  // namespace

TEST(Agreement, EveryConsumerChoosesTheSameAtRandomSizes) {
  store::testing::TempDir dir;
  const spec::Spec spec = spec::load(kRoot + "/spaces/transpose.json");
  auto db = store::Store::open((dir.path() / "r.db").string(), store::Store::Mode::read_write);
  for (const auto& e : fs::directory_iterator(kRoot + "/results/recorded/transpose"))
    interop::import_file(db, e.path(), {std::nullopt, std::nullopt, &spec});
  store::RunInfo info;  // caches record no compute capability; a run does
  info.kernel = "transpose";
  info.device = kDevice;
  info.compute_capability = "9.0";
  db.finish_run(db.begin_run(info), store::RunStatus::completed);

  const header::Model m = header::build(db, "transpose", spec);
  const auto sizes = random_sizes();
  const fs::path& d = dir.path();
  {
    std::ofstream f(d / "sizes.txt");
    for (const auto& s : sizes) f << s[0] << " " << s[1] << "\n";
    std::ofstream(d / "transpose_tuned.h") << header::generate(m, "r.db");
    compile::SourceOptions options;
    options.line_markers = false;
    const std::string source =
        compile::read_kernel_source(spec.kernel.file_path, "KernelFile", options).text;
    std::ofstream(d / "transpose_dispatch.cuh") << header::generate_dispatch(m, source, "r.db");
    std::ofstream(d / "transpose_table.json") << header::generate_table(m, "r.db");
    std::ofstream(d / "h.cpp") << "#include \"transpose_tuned.h\"\n" << kMain;
    std::ofstream(d / "cuh.cu") << "#include \"transpose_dispatch.cuh\"\n" << kMain;
  }
  const std::string s = d.string();
  const auto from_h = variants_of(run("g++ -std=c++17 -Wall -Wextra -Werror -o " + s + "/h " + s +
                                      "/h.cpp && " + s + "/h " + s + "/sizes.txt"));
  const std::string nvcc =
      fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "nvcc";
  // PTX only: the selection runs on the host, and no GPU is needed to run it
  const auto t0 = std::chrono::steady_clock::now();
  const auto from_cuh =
      variants_of(run(nvcc + " -std=c++17 -arch=compute_90 -code=compute_90 -Xcicc -O0 -o " + s +
                      "/cuh " + s + "/cuh.cu && " + s + "/cuh " + s + "/sizes.txt"));
  std::printf("the .cuh (%zu variants) compiled by nvcc in %.1f s\n", m.variants.size(),
              std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  const auto table = runtime::detail::load_table(d / "transpose_table.json", spec);
  const select::Alignment alignment = header::alignment_of(spec);
  ASSERT_EQ(from_h.size(), sizes.size());
  ASSERT_EQ(from_cuh.size(), sizes.size());
  std::string list;  // `tune best --size` takes the list at once
  for (const auto& [x, y] : sizes)
    list += (list.empty() ? "" : ",") + std::to_string(x) + "x" + std::to_string(y);
  const auto best = query::best(db, {"transpose", std::string(kDevice), list, alignment});
  ASSERT_EQ(best.size(), sizes.size());
  std::map<std::string, int> how;
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    const auto [x, y] = sizes[i];
    const std::string label = std::to_string(x) + "x" + std::to_string(y);
    const auto pick = runtime::detail::select(table, kDevice, 9, 0, {x, y, 1});
    EXPECT_EQ(best[i].size, label);
    ++how[tune_select::how_name(best[i].match)];
    const auto params = nlohmann::json::parse(best[i].params);
    std::vector<expr::Value> values;
    for (const auto& p : spec.parameters)
      values.push_back(expr::Value::integer(params[p.name].get<long long>()));
    ASSERT_EQ(from_h[i], pick.variant) << label;
    ASSERT_EQ(from_cuh[i], pick.variant) << label;
    ASSERT_EQ(m.variants.at(pick.variant).values, values) << label;
  }
  // every kind of match was asked
  EXPECT_GT(how["exact"], 50);
  EXPECT_GT(how["predicted"], 300);
  EXPECT_GT(how["extrapolated"], 100);
}

// bench/online_sizes.sh's driver: at sizes the main job did not measure, the table's pick, the
// result of online tuning after N launches and the brute-force best, each against cublasSgeam,
// from one run on one GPU. Times come from the brute-force database (every configuration of
// the space measured at each size by `tune --strategy brute_force`, cuBLAS as its ceiling), so the
// three picks are compared under the same measurement.
//
//   online_bench --spec spaces/transpose.json --main-db results/tuning.db --bf-db BF.db
//                --sizes 1023x1023,1920x1080,... [--launches 64] [--out FILE.md]
//
// The table's pick is tune::runtime's selection from the table `tune header --table` makes of
// the main database; online tuning runs in tune::runtime (Options::online) with that table,
// `--launches` launches, then reads its events once and launches again so the rotation settles.
// Each size's output of the settled winner is checked against the transpose on the CPU.
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "common/error.h"
#include "header/header.h"
#include "sizes/sizes.h"
#include "store/store.h"
#include "tune/runtime.h"

namespace {

namespace fs = std::filesystem;
using tune::runtime::Arg;

[[noreturn]] void die(const std::string& why, int code = 1) {
  std::fprintf(stderr, "online_bench: %s\n", why.c_str());
  std::exit(code);
}

void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) die(std::string(what) + ": " + cudaGetErrorString(e));
}

struct Args {
  std::string spec, main_db, bf_db, sizes, out;
  int launches = 64;
  tune::runtime::OnlineOptions online;  // --candidates, --min-samples, --finalists, --batch (the runtime's defaults)
};

// An option's whole value as an integer in [lo, hi]; else one line and exit 2.
int int_option(const std::string& key, const std::string& v, int lo, int hi) {
  std::size_t used = 0;
  long long n = 0;
  try {
    n = std::stoll(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != v.size() || n < lo || n > hi)
    die("option " + key + " needs a whole number in " + std::to_string(lo) + ".." + std::to_string(hi) + " (got '" +
            v.substr(0, 40) + "')",
        2);
  return static_cast<int>(n);
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    if (i + 1 >= argc) die("option " + k + " needs a value", 2);
    const std::string v = argv[++i];
    if (k == "--spec")
      a.spec = v;
    else if (k == "--main-db")
      a.main_db = v;
    else if (k == "--bf-db")
      a.bf_db = v;
    else if (k == "--sizes")
      a.sizes = v;
    else if (k == "--out")
      a.out = v;
    else if (k == "--launches")
      a.launches = int_option(k, v, 8, 64);
    else if (k == "--candidates")
      a.online.candidates = int_option(k, v, 1, 64);
    else if (k == "--min-samples")
      a.online.min_samples = int_option(k, v, 1, 64);
    else if (k == "--finalists")
      a.online.finalists = int_option(k, v, 0, 64);
    else if (k == "--batch")
      a.online.batch = int_option(k, v, 0, 64);
    else
      die("unknown option " + k, 2);
  }
  if (a.spec.empty() || a.main_db.empty() || a.bf_db.empty() || a.sizes.empty())
    die("usage: online_bench --spec S --main-db M --bf-db B --sizes LIST [--launches N] [--candidates N]"
        " [--min-samples N] [--finalists N] [--batch N] [--out FILE]",
        2);
  return a;
}

// "block_size_x=32 block_size_y=8 ..." (Selection::config) as the store's canonical params:
// compact JSON of the spec's parameters, in the spec's order.
std::string canonical(const tune::spec::Spec& spec, const std::string& config) {
  std::map<std::string, std::string> given;
  std::istringstream in(config);
  std::string item;
  while (in >> item) {
    const auto eq = item.find('=');
    if (eq != std::string::npos) given[item.substr(0, eq)] = item.substr(eq + 1);
  }
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& p : spec.parameters) {
    if (!given.count(p.name)) die("configuration '" + config + "' lacks parameter " + p.name);
    j[p.name] = nlohmann::ordered_json::parse(given[p.name]);
  }
  return tune::store::canonical_params(j);
}

struct Row {
  std::string size, match, table_config, online_config;
  double table_ms = 0, online_ms = 0, best_ms = 0, cublas_ms = 0, extra_ms = 0, wait_ms = 0;
  double host_ms = 0;  // the application's host time in the rotation's launches (compiles included)
  bool held_out = true, settled = false;
};

std::string ratio(double num, double den) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", den > 0 && num > 0 ? num / den : 0.0);
  return b;
}

}  // namespace

int main(int argc, char** argv) try {
  const Args a = parse(argc, argv);
  const auto spec = tune::spec::load(a.spec);
  const fs::path work = fs::temp_directory_path() / ("online_bench_" + std::to_string(::getpid()));
  fs::create_directories(work);
  const fs::path table = work / "table.json";
  {
    auto main_db = tune::store::Store::open(a.main_db, tune::store::Store::Mode::read_only);
    std::ofstream(table) << tune::header::generate_table(tune::header::build(main_db, spec.kernel.name, spec),
                                                         a.main_db);
  }
  auto bf = tune::store::Store::open(a.bf_db, tune::store::Store::Mode::read_only);
  tune::runtime::Options o;
  o.online = a.online;
  o.online.enabled = true;
  o.online.dir = work / "online";
  o.online.launches = a.launches;
  tune::runtime::Kernel plain(a.spec, table, {});
  tune::runtime::Kernel online(a.spec, table, o);
  cudaDeviceProp prop{};
  check(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties");

  std::vector<Row> rows;
  std::istringstream list(a.sizes);
  std::string item;
  std::mt19937 rng(7);
  while (std::getline(list, item, ',')) {
    const auto size = tune::sizes::Size::parse_label(item);
    const long long cols = size.dims[0], nrows = size.dims[1];
    const std::size_t n = static_cast<std::size_t>(cols * nrows);
    Row r;
    r.size = size.label();
    const auto pick = plain.select({cols, nrows}, prop.name, prop.major, prop.minor);
    r.match = tune::runtime::match_name(pick.match);
    r.held_out = pick.match != tune::runtime::Match::exact;
    r.table_config = pick.config;

    std::vector<float> host(n), back(n);
    std::uniform_real_distribution<float> dist(-1, 1);
    for (auto& x : host) x = dist(rng);
    float *in = nullptr, *out = nullptr;
    check(cudaMalloc(reinterpret_cast<void**>(&in), n * sizeof(float)), "cudaMalloc");
    check(cudaMalloc(reinterpret_cast<void**>(&out), n * sizeof(float)), "cudaMalloc");
    check(cudaMemcpy(in, host.data(), n * sizeof(float), cudaMemcpyHostToDevice), "cudaMemcpy");
    const double extra_before = online.stats().online_extra_ms, wait_before = online.stats().online_wait_ms;
    auto launch = [&] {
      return online.launch(nullptr, {cols, nrows},
                           {Arg::buffer(out, n), Arg::buffer(static_cast<const float*>(in), n),
                            Arg::scalar(static_cast<int>(nrows)), Arg::scalar(static_cast<int>(cols))});
    };
    const auto host_start = std::chrono::steady_clock::now();
    for (int i = 0; i < a.launches; ++i) launch();
    r.host_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - host_start).count();
    check(cudaDeviceSynchronize(), "the online launches");  // the benchmark's, not the runtime's
    check(cudaMemset(out, 0, n * sizeof(float)), "cudaMemset");
    const auto settled = launch();
    r.settled = settled.online;  // false where the table has fewer than two candidates
    r.online_config = settled.config;
    r.extra_ms = online.stats().online_extra_ms - extra_before;
    r.wait_ms = online.stats().online_wait_ms - wait_before;
    check(cudaMemcpy(back.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost), "cudaMemcpy");
    for (long long y = 0; y < nrows; ++y)
      for (long long x = 0; x < cols; ++x)
        if (back[x * nrows + y] != host[y * cols + x])
          die(r.size + ": the online winner (" + r.online_config + ") transposed wrongly at row " + std::to_string(y));
    cudaFree(in);
    cudaFree(out);

    std::map<std::string, double> times;
    for (const auto& m :
         bf.measurements({.kernel = spec.kernel.name, .device = std::string(prop.name), .size = r.size}))
      if (m.objective) times[m.params] = *m.objective;
    if (times.empty()) die(r.size + ": no brute-force measurements in " + a.bf_db);
    r.best_ms =
        std::min_element(times.begin(), times.end(), [](auto& x, auto& y) { return x.second < y.second; })->second;
    auto time_of = [&](const std::string& config) {
      const auto it = times.find(canonical(spec, config));
      if (it == times.end()) die(r.size + ": " + config + " was not measured by the brute-force run");
      return it->second;
    };
    r.table_ms = time_of(r.table_config);
    r.online_ms = time_of(r.online_config);
    for (const auto& c : bf.ceilings(prop.name, r.size))
      if (c.name == "cublas_sgeam") r.cublas_ms = c.time_ms;
    std::fprintf(stderr, "%s: table %s, online %s, best %.4f ms\n", r.size.c_str(),
                 ratio(r.table_ms, r.best_ms).c_str(), ratio(r.online_ms, r.best_ms).c_str(), r.best_ms);
    rows.push_back(r);
  }

  std::ostringstream md;
  md << "| size | table's match | table / best | online / best | best ms | cuBLAS ms | table vs cuBLAS | online vs "
        "cuBLAS | best vs cuBLAS | rotation cost ms | cut wait ms |\n|---|---|---|---|---|---|---|---|---|---|---|\n";
  std::vector<double> table_r, online_r, host_ms;
  int below_cublas = 0;
  for (const auto& r : rows) {
    char best[32], lib[32], extra[32], wait[32];
    std::snprintf(best, sizeof best, "%.4f", r.best_ms);
    std::snprintf(lib, sizeof lib, "%.4f", r.cublas_ms);
    std::snprintf(extra, sizeof extra, "%.3f", r.extra_ms);
    std::snprintf(wait, sizeof wait, "%.3f", r.wait_ms);
    md << "| " << r.size << (r.held_out ? "" : " (measured)") << " | " << r.match
       << (r.settled ? "" : ", not tuned online") << " | " << ratio(r.table_ms, r.best_ms) << " | "
       << ratio(r.online_ms, r.best_ms) << " | " << best << " | " << lib << " | " << ratio(r.cublas_ms, r.table_ms)
       << " | " << ratio(r.cublas_ms, r.online_ms) << " | " << ratio(r.cublas_ms, r.best_ms) << " | " << extra
       << " | " << wait << " |\n";
    if (r.table_ms > 0) table_r.push_back(r.table_ms / r.best_ms);
    if (r.online_ms > 0) online_r.push_back(r.online_ms / r.best_ms);
    if (r.table_ms > r.cublas_ms) ++below_cublas;
    host_ms.push_back(r.host_ms);
  }
  std::sort(host_ms.begin(), host_ms.end());
  char host[160] = "-";
  if (!host_ms.empty())
    std::snprintf(host, sizeof host, "median %.1f ms, worst %.1f ms, in all %.0f ms", host_ms[host_ms.size() / 2],
                  host_ms.back(), std::accumulate(host_ms.begin(), host_ms.end(), 0.0));
  auto summary = [](std::vector<double> v) {
    if (v.empty()) return std::string("-");
    std::sort(v.begin(), v.end());
    char b[96];
    std::snprintf(b, sizeof b, "median %.3f, worst %.3f", v[v.size() / 2], v.back());
    return std::string(b);
  };
  md << "\nTimes: the brute-force run's objective per configuration (`tune --strategy brute_force`, its ms "
        "column), cuBLAS Sgeam measured in it as the ceiling. "
        "x / best: the pick's time over the best configuration's at that size (1.000 is the best); vs cuBLAS: "
        "cuBLAS's time over the pick's (above 1 is faster than cuBLAS). Rotation cost: the GPU time of the "
     << a.launches << " online launches (their timed batches on scratch outputs included) beyond " << a.launches
     << " launches of the eventual winner. Cut wait: the host time the launch that starts the second round "
        "waited for the first round's timings.\n\n"
     << "Online rule: up to " << o.online.candidates << " candidates, " << o.online.min_samples
     << " samples each, then the best " << o.online.finalists << " (by median) share the launches left, "
     << (o.online.batch == 0 ? std::string("batches sized per size") : "batch " + std::to_string(o.online.batch))
     << "; NVRTC compiles of the online candidates: " << online.stats().compiled << " in "
     << static_cast<long>(online.stats().compile_ms) << " ms of compile time; the application's host time in the "
     << a.launches << " launches per size (compiles and the cut's wait included): " << host << ".\n\n"
     << "Table's pick: " << summary(table_r) << "; online after " << a.launches << " launches: " << summary(online_r)
     << ", within 1.02 at " << std::count_if(online_r.begin(), online_r.end(), [](double x) { return x <= 1.02; })
     << " of " << online_r.size() << "; table's pick slower than cuBLAS at " << below_cublas << " of " << rows.size()
     << " sizes.\n";
  if (a.out.empty())
    std::fputs(md.str().c_str(), stdout);
  else
    std::ofstream(a.out) << md.str();
  // ONLINE_KEEP=DIR keeps the online result files (every candidate's samples) for analysis.
  if (const char* keep = std::getenv("ONLINE_KEEP"); keep != nullptr && *keep != '\0') {
    fs::create_directories(keep);
    if (fs::exists(work / "online"))
      for (const auto& e : fs::directory_iterator(work / "online"))
        fs::copy_file(e.path(), fs::path(keep) / e.path().filename(), fs::copy_options::overwrite_existing);
  }
  fs::remove_all(work);
  return 0;
} catch (const std::exception& e) {
  die(e.what());
}

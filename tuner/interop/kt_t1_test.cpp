// Kernel Tuner itself reads our T1 files. testdata/kt_t1_check.py has Kernel Tuner's own T1 reader
// (interface.tune_kernel_T1, run without a GPU: simulation mode, nothing compiled or launched)
// convert every spaces/*.json and every third-party T1 file in data/, and these tests compare what
// it made of them with what tune makes of them: the parameters (names, order, values), the
// restrictions and the exact set of valid configurations, the problem size, the grid divisors and
// the grid and thread block Kernel Tuner would launch each configuration with, and the kernel
// arguments; and that Kernel Tuner's kernel string of a few configurations of each of our spaces
// compiles as its NVRTC backend would compile it. Then tune_kernel_T1 replays, in simulation mode,
// caches that tune exported.
// Needs $TUNE_KT_PYTHON, a Python with kernel_tuner (scripts/kernel_tuner.sh installs the pinned
// version; scripts/test.sh sets the variable); skipped when it is unset.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;
using Dims = std::array<std::int64_t, 3>;

const fs::path kSource = test_data::source_dir();
const std::string kCheck = (kSource / "tuner" / "interop" / "testdata" / "kt_t1_check.py").string();

std::string quote(const std::string& s) { return "'" + s + "'"; }

ojson to_ojson(const expr::Value& v) { return ojson::parse(spec::to_json(v).dump()); }

class KernelTunerT1 : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* env = std::getenv("TUNE_KT_PYTHON");
    if (env == nullptr || *env == '\0') {
      GTEST_SKIP() << "TUNE_KT_PYTHON is not set: these tests need a Python with kernel_tuner "
                      "(bash scripts/kernel_tuner.sh installs the pinned version and prints its path)";
    }
    python_ = env;
    Shell r = shell(quote(python_) + " -c 'import kernel_tuner'");
    ASSERT_EQ(r.code, 0) << "TUNE_KT_PYTHON=" << python_ << " cannot import kernel_tuner:\n" << r.err;
  }

  // Runs kt_t1_check.py; its report, or null (with a failure recorded).
  ojson check(const std::string& args) {
    Shell r = shell(quote(python_) + " " + quote(kCheck) + " " + args);
    if (r.code != 0) {
      ADD_FAILURE() << "kt_t1_check.py " << args << " exited " << r.code << ":\n" << r.err;
      return nullptr;
    }
    try {
      return ojson::parse(r.out);
    } catch (const std::exception& e) {
      ADD_FAILURE() << "kt_t1_check.py " << args << " printed no report (" << e.what() << "):\n" << r.out << r.err;
      return nullptr;
    }
  }

  std::string python_;
};

// Slot values for tune's launch expressions: the configuration, then ProblemSize.
std::vector<expr::Value> bind(const spec::Spec& s, std::vector<expr::Value> config) {
  config.push_back(s.kernel.problem_size);
  return config;
}

std::int64_t eval_or_1(const std::optional<spec::Expression>& e, const std::vector<expr::Value>& bound) {
  return e ? e->program.eval(bound).as_int() : 1;
}

// Our own files: the grid and block they declare (GlobalSize in blocks, LocalSize).
std::pair<Dims, Dims> declared_geometry(const spec::Spec& s, const std::vector<expr::Value>& bound) {
  Dims grid, block;
  for (int d = 0; d < 3; ++d) {
    grid[d] = eval_or_1(s.kernel.global_size[d], bound);
    block[d] = eval_or_1(s.kernel.local_size[d], bound);
  }
  return {grid, block};
}

// Third-party files: the grid from tune's reading of GridDiv by Kernel Tuner's documented rule
// (ceil(ProblemSize[d] / product(GridDiv_d)), default divisor block_size_x/y/z), block LocalSize.
std::pair<Dims, Dims> griddiv_geometry(const spec::Spec& s, const std::vector<expr::Value>& bound) {
  static const char* kBlock[3] = {"block_size_x", "block_size_y", "block_size_z"};
  Dims problem{1, 1, 1}, grid, block;
  const expr::Value& ps = s.kernel.problem_size;
  if (ps.is_sequence()) {
    for (std::size_t d = 0; d < std::min<std::size_t>(3, ps.items().size()); ++d) problem[d] = ps.items()[d].as_int();
  } else {
    problem[0] = ps.as_int();
  }
  for (int d = 0; d < 3; ++d) {
    std::int64_t div = 1;
    if (s.kernel.grid_div[d].empty()) {
      for (std::size_t p = 0; p < s.parameters.size(); ++p)
        if (s.parameters[p].name == kBlock[d]) div = bound[p].as_int();
    }
    for (const auto& e : s.kernel.grid_div[d]) div *= e.program.eval(bound).as_int();
    grid[d] = (problem[d] + div - 1) / div;
    block[d] = eval_or_1(s.kernel.local_size[d], bound);
  }
  return {grid, block};
}

using GeometryRule = std::pair<Dims, Dims> (*)(const spec::Spec&, const std::vector<expr::Value>&);

Dims parse_dims(const std::string& text) {
  Dims d{0, 0, 0};
  std::istringstream in(text);
  std::string item;
  for (int i = 0; i < 3 && std::getline(in, item, ','); ++i) d[i] = std::stoll(item);
  return d;
}

// Every line of Kernel Tuner's key file names a distinct configuration of tune's space, and
// there are as many as tune has valid configurations: the two valid sets are equal. With a rule,
// each line's grid and block (what Kernel Tuner would launch) must equal the rule's.
void expect_same_valid_set(const std::string& file, const spec::Spec& s, const space::Space& sp,
                           const std::string& keys_file, GeometryRule rule) {
  std::vector<std::unordered_map<std::string, space::Index>> index_of(sp.num_params());
  for (std::size_t p = 0; p < sp.num_params(); ++p)
    for (std::size_t i = 0; i < sp.values(p).size(); ++i)
      index_of[p][sp.values(p)[i].str()] = static_cast<space::Index>(i);
  std::vector<bool> seen(sp.size());
  std::size_t lines = 0, failures = 0;
  std::ifstream in(keys_file);
  std::vector<space::Index> indices(sp.num_params());
  // Reports the first few differences; a line that differs counts as a failure either way.
  auto fail = [&](const std::string& what) {
    if (failures++ < 5) ADD_FAILURE() << file << ": " << what;
  };
  for (std::string line; std::getline(in, line); ++lines) {
    std::istringstream fields(line);
    std::string key, grid, block;
    fields >> key >> grid >> block;
    std::istringstream values(key);
    std::string v;
    bool known = true;
    for (std::size_t p = 0; p < sp.num_params(); ++p) {
      if (!std::getline(values, v, ',') || !index_of[p].count(v)) {
        known = false;
        break;
      }
      indices[p] = index_of[p][v];
    }
    std::optional<std::size_t> c = known ? sp.find(indices) : std::nullopt;
    if (!c) {
      fail("Kernel Tuner's valid configuration " + key + " is not in tune's space");
      continue;
    }
    if (seen[*c]) fail("Kernel Tuner lists " + key + " twice");
    seen[*c] = true;
    if (rule != nullptr) {
      auto [want_grid, want_block] = rule(s, bind(s, sp.config_values(*c)));
      auto text = [](const Dims& d) {
        return std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]);
      };
      if (parse_dims(grid) != want_grid || parse_dims(block) != want_block)
        fail(key + ": Kernel Tuner launches grid " + grid + " block " + block + ", tune's reading gives grid " +
             text(want_grid) + " block " + text(want_block));
    }
  }
  EXPECT_EQ(lines, sp.size()) << file << ": Kernel Tuner's and tune's valid sets differ in size";
  EXPECT_EQ(failures, 0u) << file << ": lines of Kernel Tuner's " << keys_file << " that differ from tune";
}

// What Kernel Tuner's T1 reader made of `file` equals what tune makes of it.
void expect_reads_like_tune(const std::string& file, ojson kt, const std::string& keys_file, GeometryRule rule) {
  ASSERT_TRUE(kt.is_object());
  ASSERT_EQ(kt["accepted"], true) << file << ": Kernel Tuner rejected it: " << kt.dump();
  EXPECT_EQ(kt["warnings"], ojson::array()) << file;
  const spec::Spec s = spec::load(file);
  const space::Space sp = space::Space::build(s);
  EXPECT_EQ(kt["kernel_name"], s.kernel.name) << file;
  EXPECT_EQ(kt["lang"], s.kernel.language) << file;

  ojson params = ojson::object();  // names in declaration order, values in file order
  for (const auto& p : s.parameters) {
    params[p.name] = ojson::array();
    for (const auto& v : p.values) params[p.name].push_back(to_ojson(v));
  }
  EXPECT_EQ(kt["tune_params"].dump(), params.dump()) << file;
  ojson conditions = ojson::array();
  for (const auto& c : s.conditions) conditions.push_back(c.program.source());
  EXPECT_EQ(kt["restrictions"], conditions) << file;
  EXPECT_EQ(kt["valid"], sp.size()) << file << ": Kernel Tuner's Searchspace and tune's valid counts";
  EXPECT_EQ(kt["max_threads"], 1000000000) << file << ": the simulated device must not cut the space";
  // On a GPU Kernel Tuner also drops configurations over 1024 threads per block; none of these
  // spaces has any (the check is left out for spaces too large to build twice in Python).
  if (kt.contains("valid_at_1024_threads")) {
    EXPECT_EQ(kt["valid_at_1024_threads"], sp.size()) << file;
  }

  EXPECT_EQ(kt["problem_size"], to_ojson(s.kernel.problem_size)) << file;
  const ojson& raw_kernel = s.raw["KernelSpecification"];
  static const char* kGridDiv[3] = {"GridDivX", "GridDivY", "GridDivZ"};
  for (int d = 0; d < 3; ++d) {
    // Kernel Tuner takes the list as written; an absent or empty one means its default.
    const bool listed = raw_kernel.contains(kGridDiv[d]) && !raw_kernel[kGridDiv[d]].empty();
    EXPECT_EQ(kt["grid_div"][d], listed ? ojson::parse(raw_kernel[kGridDiv[d]].dump()) : ojson(nullptr))
        << file << " " << kGridDiv[d];
  }

  // Arguments: Size and FillValue with every parameter bound to the list of its values.
  std::vector<expr::Value> lists;
  for (const auto& p : s.parameters) lists.push_back(expr::Value::list(p.values));
  lists = bind(s, lists);
  ASSERT_EQ(kt["arguments"].size(), s.kernel.arguments.size()) << file;
  ojson cmem = ojson::array();
  for (std::size_t i = 0; i < s.kernel.arguments.size(); ++i) {
    const spec::Argument& a = s.kernel.arguments[i];
    const ojson& k = kt["arguments"][i];
    if (a.mem_type == "Constant") cmem.push_back(a.name);
    EXPECT_EQ(k["dtype"], a.type == "float" ? "float32" : a.type) << file << " argument " << a.name;
    if (a.memory == spec::Memory::vector) {
      EXPECT_EQ(k["size"], a.size->program.eval(lists).as_int()) << file << " argument " << a.name;
    } else {
      ASSERT_TRUE(a.fill_value) << file << " argument " << a.name;
      EXPECT_EQ(k["value"].get<double>(), a.fill_value->program.eval(lists).as_float())
          << file << " argument " << a.name;
    }
  }
  EXPECT_EQ(kt["cmem_args"], cmem) << file;
  expect_same_valid_set(file, s, sp, keys_file, rule);
}

TEST_F(KernelTunerT1, ReadsEveryShippedSpaceAsTuneDoes) {
  std::vector<std::string> files;
  std::vector<std::string> tune_only;
  for (const auto& e : fs::directory_iterator(kSource / "spaces")) {
    if (e.path().extension() != ".json") continue;
    // Kernel Tuner has no tensor-map arguments: such a space is tune's own (spaces/README.md).
    if (!spec::load(e.path()).launch.tensor_maps.empty())
      tune_only.push_back(e.path().filename().string());
    else
      files.push_back(e.path().string());
  }
  std::sort(files.begin(), files.end());
  std::sort(tune_only.begin(), tune_only.end());
  ASSERT_FALSE(files.empty());
  EXPECT_EQ(tune_only, (std::vector<std::string>{"gemm_wgmma.json", "matching_wgmma.json", "tma_copy.json"}));
  TempDir dir;
  for (const auto& file : files) {
    SCOPED_TRACE(file);
    const std::string keys = dir.file("keys.txt");
    ojson kt = check("read " + quote(file) + " --keys " + quote(keys) + " --geometry --compile 6");
    ASSERT_TRUE(kt.is_object());
    // Kernel Tuner's kernel string (its #defines before the file's text) compiles as its NVRTC
    // backend compiles it, shared headers (kernels_src/common/) found from the kernel's folder
    ASSERT_TRUE(kt["compiled"].is_array()) << kt.dump();
    EXPECT_FALSE(kt["compiled"].empty());
    for (const auto& c : kt["compiled"]) EXPECT_TRUE(c["ok"].get<bool>()) << c["config"] << ":\n" << c.value("log", "");
    // Our kernels are there, and Kernel Tuner checked the arguments against their signatures.
    EXPECT_EQ(kt["placeholder_kernel_file"], false);
    EXPECT_EQ(kt["signatures_checked"], 1);
    EXPECT_FALSE(kt.contains("geometry_error")) << kt["geometry_error"];
    EXPECT_TRUE(kt.contains("valid_at_1024_threads"));
    expect_reads_like_tune(file, kt, keys, declared_geometry);
  }
}

// Every third-party T1 file in data/ and what Kernel Tuner 1.5's reader does with it.
TEST_F(KernelTunerT1, ReadsTheThirdPartyT1FilesAsTuneDoes) {
  struct Expect {
    bool accepted;
    const char* json_path = "";       // where Kernel Tuner's schema validation rejects the file
    bool geometry = true;             // false: too many configurations to launch-plan them in Python
    const char* geometry_error = "";  // why Kernel Tuner cannot compute a launch, if it cannot
  };
  const std::map<std::string, Expect> expected = {
      {"kernel_tuner/test/test_T1_input.json", {.accepted = true, .geometry = false}},
      // GridDivY ["block_size_y"] in a space without that parameter: Kernel Tuner evaluates the
      // name (util.get_grid_dimensions) and fails; tune treats the divisor as 1.
      {"kernel_tuner/test/test_cache_file_T1_input.json",
       {.accepted = true, .geometry_error = "NameError: name 'block_size_y' is not defined"}},
      {"benchmark_hub/convolution_milo.json", {.accepted = true}},
      {"benchmark_hub/dedispersion_milo.json", {.accepted = true}},
      {"bat/convolution-CAFF.json", {.accepted = true}},
      {"bat/GEMM-CAFF.json", {.accepted = false, .json_path = R"(["Budget"])"}},  // an object, not a list
      {"bat/pnpoly-CAFF.json", {.accepted = false, .json_path = R"(["General","FormatVersion"])"}},  // "0.0.1"
  };
  // The list is complete: every JSON file there with a KernelSpecification is a T1 file.
  std::vector<std::string> found;
  for (const auto& e : fs::recursive_directory_iterator(test_data::dir())) {
    if (e.path().extension() != ".json") continue;
    std::ifstream in(e.path());
    const ojson doc = ojson::parse(in, nullptr, false);
    if (doc.is_object() && doc.contains("KernelSpecification"))
      found.push_back(fs::relative(e.path(), test_data::dir()).string());
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> listed;
  listed.reserve(expected.size());
  for (const auto& [file, _] : expected) listed.push_back(file);
  EXPECT_EQ(found, listed);

  TempDir dir;
  for (const auto& [relative, want] : expected) {
    SCOPED_TRACE(relative);
    const std::string file = external(relative), keys = dir.file("keys.txt");
    ojson kt = check("read " + quote(file) + " --keys " + quote(keys) + (want.geometry ? " --geometry" : ""));
    ASSERT_TRUE(kt.is_object());
    if (want.accepted) {
      const std::string error = want.geometry_error;
      EXPECT_EQ(kt.value("geometry_error", ""), error);
      expect_reads_like_tune(file, kt, keys, want.geometry && error.empty() ? griddiv_geometry : nullptr);
    } else {
      EXPECT_EQ(kt["accepted"], false) << kt.dump();
      EXPECT_EQ(kt["error"], "ValidationError") << kt.dump();
      EXPECT_EQ(kt["json_path"], ojson::parse(want.json_path)) << kt.dump();
      EXPECT_NO_THROW(space::Space::build(spec::load(file))) << "tune reads it";
    }
  }
}

// The argument check is live: an argument list that does not fit the kernel is reported.
TEST_F(KernelTunerT1, ReportsArgumentsThatDoNotMatchTheKernel) {
  TempDir dir;
  ojson doc = raw_json((kSource / "spaces" / "copy.json").string());
  doc["KernelSpecification"]["KernelFile"] = (kSource / "kernels_src" / "copy.cu").string();
  doc["KernelSpecification"]["Arguments"].erase(doc["KernelSpecification"]["Arguments"].size() - 1);
  const std::string file = dir.file("copy_missing_argument.json");
  store::testing::write_bytes(file, doc.dump(2));
  ojson kt = check("read " + quote(file));
  ASSERT_TRUE(kt.is_object());
  EXPECT_EQ(kt["accepted"], true);
  EXPECT_EQ(kt["signatures_checked"], 1);
  ASSERT_EQ(kt["warnings"].size(), 1u) << kt.dump();
  EXPECT_NE(kt["warnings"][0].get<std::string>().find("do not match in size"), std::string::npos) << kt.dump();
}

// Python's str() of a JSON parameter value: the cache key's spelling.
std::string py_str(const ojson& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  return v.dump();
}

// tune imports a Kernel Tuner cache and exports it; Kernel Tuner's T1 runner replays the export
// in simulation mode (brute force: every valid configuration of the T1 file must be in it).
TEST_F(KernelTunerT1, ReplaysCachesTuneExportedThroughTheT1Runner) {
  const std::vector<std::pair<std::string, std::string>> pairs = {
      {"kernel_tuner/test/test_cache_file_T1_input.json", "kernel_tuner/test/test_cache_file.json"},
      {"benchmark_hub/convolution_milo.json", "benchmark_hub/convolution_milo/A100.json.gz"},
      {"benchmark_hub/dedispersion_milo.json", "benchmark_hub/dedispersion_milo/MI250X.json.gz"},
  };
  for (const auto& [t1, cache] : pairs) {
    SCOPED_TRACE(cache);
    TempDir dir;
    auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
    import_file(db, external(cache), {});
    ojson raw = raw_json(external(cache));
    const std::string out = dir.file("exported.json");
    export_file(db, {.format = ExportFormat::kt_cache, .kernel = raw["kernel_name"].get<std::string>()}, out);

    ojson kt = check("simulate " + quote(external(t1)) + " " + quote(out));
    ASSERT_TRUE(kt.is_object());
    ASSERT_EQ(kt["accepted"], true) << kt.dump();
    EXPECT_EQ(kt["simulated"], true);
    EXPECT_EQ(kt["device_name"], raw["device_name"]);
    EXPECT_EQ(kt["results"], raw["cache"].size());
    std::size_t failed = 0;
    std::optional<double> best;
    for (const auto& [key, entry] : raw["cache"].items()) {
      if (entry["time"].is_string() || entry.contains("__error__")) {
        ++failed;
      } else if (!best || entry["time"].get<double>() < *best) {
        best = entry["time"].get<double>();
      }
    }
    EXPECT_EQ(kt["errors"], failed);
    ASSERT_TRUE(best && kt["best"].is_object()) << kt.dump();
    EXPECT_EQ(kt["best"]["time"].get<double>(), *best);
    // The configuration Kernel Tuner found best is one whose recorded time is the best.
    std::string key;
    for (const auto& name : raw["tune_params_keys"]) {
      if (!key.empty()) key += ',';
      key += py_str(kt["best"][name.get<std::string>()]);
    }
    ASSERT_TRUE(raw["cache"].contains(key)) << key;
    EXPECT_EQ(raw["cache"][key]["time"].get<double>(), *best) << key;
  }
}

// Energy: Kernel Tuner reads a cache tune exported with NVMLObserver fields (nvml_energy,
// nvml_power) as its own, every result with them and the same least-energy configuration.
TEST_F(KernelTunerT1, ReadsTheEnergyOfCachesTuneExported) {
  const std::string cache = (kSource / "tuner" / "interop" / "testdata" / "kt_nvml_cache.json").string();
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, cache, {});
  const std::string out = dir.file("exported.json");
  export_file(db, {.format = ExportFormat::kt_cache, .kernel = "vector_add"}, out);
  ojson kt = check("simulate " + quote(external("kernel_tuner/test/test_cache_file_T1_input.json")) + " " + quote(out));
  ASSERT_EQ(kt["accepted"], true) << kt.dump();
  const ojson raw = raw_json(cache);
  EXPECT_EQ(kt["with_energy"], raw["cache"].size());
  ASSERT_TRUE(kt["best_energy"].is_object()) << kt.dump();
  EXPECT_EQ(kt["best_energy"]["block_size_x"], 448);
  EXPECT_EQ(kt["best_energy"]["nvml_energy"].get<double>(), raw["cache"]["448"]["nvml_energy"].get<double>());
  EXPECT_EQ(kt["best_energy"]["nvml_power"].get<double>(), raw["cache"]["448"]["nvml_power"].get<double>());
}

}  // namespace
}  // namespace tune::interop

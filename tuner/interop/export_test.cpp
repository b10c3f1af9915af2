// Export formats: T4 files that validate against Kernel Tuner's T4 schemas (checked by Python's
// jsonschema), a T4 import exported back exactly, CSV rows, the choice of one device and size,
// and a cache that Kernel Tuner itself replays in simulation mode (when Kernel Tuner is installed).
#include <gtest/gtest.h>

#include <cstdlib>

#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;

// 0: valid; 1: invalid (printed); 3: no jsonschema module.
int validate_with_python(const std::string& file) {
  const std::string schemas = test_data::file("kernel_tuner/schema/T4").string();
  const std::string script =
      "import json, sys\n"
      "try:\n    import jsonschema\nexcept ImportError:\n    sys.exit(3)\n"
      "doc = json.load(open(sys.argv[1]))\n"
      "res = json.load(open(sys.argv[2] + '/results-schema.json'))\n"
      "meta = json.load(open(sys.argv[2] + '/metadata-schema.json'))\n"
      "jsonschema.Draft202012Validator(res).validate(doc)\n"
      "jsonschema.Draft202012Validator(meta).validate({'schema_version': doc['schema_version'], 'metadata': "
      "doc['metadata']})\n"
      "# the validator must be able to fail: a broken copy is rejected\n"
      "doc['results'][0]['invalidity'] = 'exploded'\n"
      "try:\n    jsonschema.Draft202012Validator(res).validate(doc)\n    sys.exit(1)\nexcept "
      "jsonschema.ValidationError:\n    pass\n";
  store::testing::write_bytes(file + ".py", script);
  int rc = std::system(("python3 '" + file + ".py' '" + file + "' '" + schemas + "'").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

TEST(ExportT4, FromACacheValidatesAgainstTheT4Schemas) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {});
  const std::string out = dir.file("a100_t4.json");
  ExportResult r = export_file(db, {.format = ExportFormat::t4, .kernel = "convolution_kernel"}, out);
  EXPECT_EQ(r.rows, 4362u);
  int rc = validate_with_python(out);
  if (rc == 3) GTEST_SKIP() << "python3 has no jsonschema module";
  EXPECT_EQ(rc, 0) << "T4 export of " << out << " does not validate";

  // What Kernel Tuner's get_t4_results makes of the same cache entries.
  const ojson doc = ojson::parse(store::testing::read_bytes(out));
  const ojson cache = raw_json(external("benchmark_hub/convolution_milo/A100.json.gz"))["cache"];
  EXPECT_EQ(doc["metadata"]["device_name"], "NVIDIA A100-PCIE-40GB");
  EXPECT_EQ(doc["metadata"]["problem_size"], ojson::array({4096, 4096}));
  ASSERT_EQ(doc["results"].size(), cache.size());
  auto e = cache.begin();
  for (const auto& res : doc["results"]) {
    const ojson& entry = e.value();
    EXPECT_EQ(res["times"]["compilation"], entry["compile_time"]);
    EXPECT_EQ(res["times"]["framework"], entry["framework_time"]);
    EXPECT_EQ(res["timestamp"], entry["timestamp"]);
    if (entry["time"].is_string()) {
      EXPECT_EQ(res["invalidity"], entry["time"] == "CompilationFailedConfig" ? "compile" : "runtime");
    } else {
      EXPECT_EQ(res["invalidity"], "correct");
      EXPECT_EQ(res["times"]["runtimes"], entry["times"]);
      EXPECT_EQ(res["measurements"][0], (ojson{{"name", "time"}, {"value", entry["time"]}, {"unit", "ms"}}));
    }
    ++e;
  }
}

TEST(ExportT4, AT4ImportExportsBackExactly) {
  const std::string file = external("benchmark_hub/convolution_milo/A100_T4.json.gz");
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, file, {.kernel = "conv", .device = "A100"});
  const std::string out = dir.file("t4.json");
  export_file(db, {.format = ExportFormat::t4, .kernel = "conv"}, out);
  const ojson original = raw_json(file);
  const ojson exported = ojson::parse(store::testing::read_bytes(out));
  EXPECT_EQ(exported["metadata"], original["metadata"]);
  EXPECT_EQ(exported["schema_version"], original["schema_version"]);
  ASSERT_EQ(exported["results"].size(), original["results"].size());
  for (std::size_t i = 0; i < original["results"].size(); ++i) {
    ASSERT_EQ(exported["results"][i].dump(), original["results"][i].dump()) << "results[" << i << "]";
  }
  if (validate_with_python(out) == 3) GTEST_SKIP() << "python3 has no jsonschema module";
  EXPECT_EQ(validate_with_python(out), 0);
}

TEST(ExportCsv, OneRowPerMeasurementWithParameterColumns) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, external("kernel_tuner/test/strategies_test_cache_file.json"), {});
  import_file(db, external("kernel_tuner/test/test_cache_file.json"), {.kernel = "vector_add", .device = "other"});
  // CSV spans devices; the header names every parameter once.
  std::string csv = export_text(db, {.format = ExportFormat::csv, .kernel = "vector_add"});
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = csv.find('\n', at)) != std::string::npos; at = nl + 1)
    lines.push_back(csv.substr(at, nl - at));
  ASSERT_EQ(lines.size(), 1u + 15u + 15u);
  EXPECT_EQ(lines[0].rfind("kernel,device,size,block_size_x,test_string,test_single,test_bool,test_mixed,status,error,"
                           "objective,median_ms",
                           0),
            0u)
      << lines[0];
  // The strategies cache: string, bool and float parameters in their columns.
  bool found = false;
  for (const auto& l : lines)
    found = found || l.find("NVIDIA RTX A4000,1,128,alg_2,15,true,2.45,ok,") != std::string::npos;
  EXPECT_TRUE(found) << csv.substr(0, 600);
  // kt-cache and T4 hold one device: asked for both, the export says which there are.
  try {
    export_text(db, {.format = ExportFormat::kt_cache, .kernel = "vector_add"});
    ADD_FAILURE() << "exported two devices into one cache";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("NVIDIA RTX A4000 at 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("other at 100"), std::string::npos) << e.what();
  }
  EXPECT_THROW(export_text(db, {.format = ExportFormat::csv, .kernel = "nothing"}), InputError);
}

// Kernel Tuner itself loads the exported caches and replays them in simulation mode. Runs with
// $TUNE_KT_PYTHON (a Python with kernel_tuner installed), or python3 if that has it; skipped if none.
TEST(ExportKtCache, KernelTunerReplaysTheExportInSimulationMode) {
  const char* env = std::getenv("TUNE_KT_PYTHON");
  const std::string python = env != nullptr ? env : "python3";
  if (shell(python + " -c 'import kernel_tuner'").code != 0) {
    GTEST_SKIP() << "no kernel_tuner module in " << python << " (set TUNE_KT_PYTHON to a Python that has it)";
  }
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  import_file(db, external("benchmark_hub/convolution_milo/A100.json.gz"), {});
  import_file(db, external("kernel_tuner/test/test_cache_file.json"), {});
  const std::string script = dir.file("replay.py");
  store::testing::write_bytes(
      script,
      "import json, sys, numpy as np\n"
      "from kernel_tuner import tune_kernel\n"
      "cache, restrictions = sys.argv[1], json.loads(sys.argv[2])\n"
      "d = json.load(open(cache))\n"
      "src = '__global__ void %s(float *a) {}' % d['kernel_name']\n"
      "res, env = tune_kernel(d['kernel_name'], src, d['problem_size'], [np.zeros(1, dtype=np.float32)], "
      "d['tune_params'],\n"
      "    restrictions=restrictions or None, cache=cache, simulation_mode=True, strategy='brute_force', quiet=True)\n"
      "ok = [e for e in d['cache'].values() if not isinstance(e['time'], str)]\n"
      "best = min(ok, key=lambda e: e['time'])\n"
      "got = min((r for r in res if '__error__' not in r and not isinstance(r.get('time'), str)), key=lambda r: "
      "r['time'])\n"
      "assert len(res) == len(d['cache']), (len(res), len(d['cache']))\n"
      "assert got['time'] == best['time'], (got['time'], best['time'])\n"
      "print('replayed', len(res), 'best', got['time'])\n");
  struct Case {
    const char* kernel;
    const char* restrictions;
  };
  for (
      const Case& c :
      {Case{"vector_add", "[]"},
       Case{
           "convolution_kernel",
           R"(["use_padding==0 or block_size_x % 32 != 0", "block_size_x*block_size_y<=1024", "use_padding==0 or use_shmem != 0", "use_shmem == 0 or (((block_size_x*tile_size_x+(filter_width-1)))*((block_size_y*tile_size_y+(filter_height-1)))) < 12*1024"])"}}) {
    const std::string out = dir.file(std::string(c.kernel) + ".json");
    export_file(db, {.format = ExportFormat::kt_cache, .kernel = c.kernel}, out);
    Shell r = shell(python + " '" + script + "' '" + out + "' '" + c.restrictions + "'");
    EXPECT_EQ(r.code, 0) << c.kernel << ":\n" << r.out << r.err;
    EXPECT_NE(r.out.find("replayed"), std::string::npos) << r.out << r.err;
  }
}

}  // namespace
}  // namespace tune::interop

// Entries unlike the vendored caches' (built from a real one): Kernel Tuner >= 1.4 failures marked
// "__error__" with no "time", observer fields before "time", integer times, samples that are not
// float32, unknown failure texts, nested observer values. Each imports with the right status and
// exports back exactly; and measurements recorded by a tuning run (not imported) export as
// Kernel Tuner writes them.
#include <gtest/gtest.h>

#include "interop/entry.h"
#include "interop/interop.h"
#include "interop/test_util.h"

namespace tune::interop {
namespace {

using namespace testing;
using store::MeasurementStatus;

TEST(UnusualEntries, ImportWithTheirStatusAndExportExactly) {
  ojson c = raw_json(external("kernel_tuner/test/test_cache_file.json"));
  ojson& cache = c["cache"];
  auto entry = [&](const char* key) -> ojson& { return cache[key]; };
  // 1.4+: the failure in "__error__", no "time", no "times".
  entry("128").erase("time");
  entry("128").erase("times");
  entry("128")["__error__"] = "CompilationFailedConfig";
  // Observer values first, as an NVML/energy observer writes them; a nested value too.
  ojson observed = ojson::object();
  observed["block_size_x"] = 192;
  observed["temperature"] = 45.0;
  observed["ps_energy"] = 0.237;
  observed["clocks"] = {{"sm", 1080}, {"mem", 7000}};
  for (const auto& [k, v] : entry("192").items())
    if (!observed.contains(k)) observed[k] = v;
  entry("192") = observed;
  entry("256")["time"] = 3;        // an integer time
  entry("320")["times"][2] = 0.1;  // not a float32 value
  entry("384")["time"] = "SomeNewFailure";
  entry("448")["time"] = "InvalidConfig";
  entry("512")["GB/s"] = 12;  // an integer metric
  TempDir dir;
  const std::string file = dir.file("unusual.json");
  store::testing::write_bytes(file, c.dump(2));
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  ImportResult r = import_file(db, file, {});
  EXPECT_EQ(r.statuses[MeasurementStatus::compile_failed], 1u);
  EXPECT_EQ(r.statuses[MeasurementStatus::restricted], 1u);
  EXPECT_EQ(r.statuses[MeasurementStatus::runtime_error], 1u);  // SomeNewFailure
  EXPECT_EQ(r.statuses[MeasurementStatus::ok], 12u);

  auto rows = db.measurements({.kernel = "vector_add", .ok_only = false, .with_samples = true});
  for (const auto& m : rows) {
    const ojson extra = ojson::parse(m.extra);
    const std::string key = extra["kernel_tuner"]["key"];
    if (key == "192") {
      EXPECT_EQ(extra["clocks"]["sm"], 1080);
      EXPECT_TRUE(extra["kernel_tuner"].contains("order")) << "observer fields come before time";
    } else if (key == "320") {
      EXPECT_EQ(m.samples_ms[2], 0.1f);
      EXPECT_EQ(extra["times"][2].get<double>(), 0.1) << "the exact samples are kept";
    } else if (key == "256") {
      EXPECT_EQ(m.objective, 3.0);
    } else if (key == "640" || key == "704") {
      EXPECT_FALSE(extra["kernel_tuner"].contains("order")) << key;
      EXPECT_FALSE(extra["kernel_tuner"].contains("raw")) << key;
    }
  }
  // Exported back: every entry equal to the file's, field order and JSON types included.
  std::string text = export_text(db, {.format = ExportFormat::kt_cache, .kernel = "vector_add"});
  ojson back = ojson::parse(text);
  ASSERT_EQ(back["cache"].size(), cache.size());
  for (const auto& [key, e] : cache.items()) {
    EXPECT_TRUE(detail::same_json(back["cache"][key], e)) << key << "\n"
                                                          << back["cache"][key].dump() << "\n"
                                                          << e.dump();
  }
}

TEST(NativeMeasurements, ExportAsKernelTunerWritesThem) {
  TempDir dir;
  auto db = store::Store::open(dir.file("t.db"), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "k";
  info.device = "NVIDIA H100";
  const auto run = db.begin_run(info);
  struct Row {
    ojson params;
    std::vector<float> samples;
    store::MeasurementStatus status;
  };
  const std::vector<Row> rows = {
      {{{"block", 128}, {"algo", "tiled"}, {"fast", true}, {"ratio", 0.5}},
       {1.5f, 1.25f, 1.75f},
       MeasurementStatus::ok},
      {{{"block", 256}, {"algo", "naive"}, {"fast", false}, {"ratio", 1.0}}, {}, MeasurementStatus::compile_failed},
  };
  for (const auto& row : rows) {
    store::Measurement m;
    m.config_id = db.upsert_configuration("k", "native-space", row.params);
    m.run_id = run;
    m.device = "NVIDIA H100";
    m.size = sizes::Size::of(4096, 4096);
    m.status = row.status;
    m.samples_ms = row.samples;
    m.compile_ms = 12.5;
    m.gbps = 800.0;
    m.measured_at = "2025-01-31T12:34:56.789Z";
    db.record(m);
  }
  ojson cache = ojson::parse(export_text(db, {.format = ExportFormat::kt_cache}));
  EXPECT_EQ(cache["device_name"], "NVIDIA H100");
  EXPECT_EQ(cache["kernel_name"], "k");
  EXPECT_EQ(cache["problem_size"], ojson::array({4096, 4096}));
  EXPECT_EQ(cache["tune_params_keys"], ojson::array({"block", "algo", "fast", "ratio"}));
  EXPECT_EQ(cache["tune_params"]["ratio"], ojson::array({0.5, 1.0}));
  // Keys as Python's ",".join(str(v)) writes them; fields as Kernel Tuner's runner does.
  ASSERT_TRUE(cache["cache"].contains("128,tiled,True,0.5")) << cache["cache"].dump();
  ASSERT_TRUE(cache["cache"].contains("256,naive,False,1.0")) << cache["cache"].dump();
  const ojson ok = cache["cache"]["128,tiled,True,0.5"];
  EXPECT_EQ(ok["time"], 1.5);  // the median, the objective of a tuning run
  EXPECT_EQ(ok["times"], ojson::array({1.5, 1.25, 1.75}));
  EXPECT_EQ(ok["compile_time"], 12.5);
  EXPECT_EQ(ok["GB/s"], 800.0);
  EXPECT_EQ(ok["verification_time"], 0);
  EXPECT_EQ(ok["timestamp"], "2025-01-31 12:34:56.789000+00:00");
  EXPECT_EQ(cache["cache"]["256,naive,False,1.0"]["time"], "CompilationFailedConfig");
  // Imported again, it is the same data under Kernel Tuner's layout.
  const std::string file = dir.file("native.json");
  export_file(db, {.format = ExportFormat::kt_cache}, file);
  auto db2 = store::Store::open(dir.file("t2.db"), store::Store::Mode::read_write);
  ImportResult r = import_file(db2, file, {});
  EXPECT_EQ(r.size, "4096x4096");
  EXPECT_EQ(r.statuses[MeasurementStatus::ok], 1u);
  EXPECT_EQ(r.statuses[MeasurementStatus::compile_failed], 1u);
  EXPECT_EQ(export_text(db2, {.format = ExportFormat::kt_cache}), store::testing::read_bytes(file));
}

}  // namespace
}  // namespace tune::interop

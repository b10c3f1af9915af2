// CPU-side tests of the run module: they run on a machine without a GPU (and also on the GPU
// machine, where the device branch of the first tests takes over).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "common/test_data.h"
#include "run/device_check.h"
#include "run/run.h"

namespace tune::run {
namespace {

TEST(Device, NoGpuIsAnUnavailableErrorWithOneClearLine) {
  if (gpu_available()) {
    const DeviceInfo info = open_device(0);
    EXPECT_EQ(info.arch, "sm_" + std::to_string(info.cc_major) + std::to_string(info.cc_minor));
    EXPECT_EQ(gpu_unavailable_reason(), "");
    EXPECT_THROW(open_device(1000), InputError);
    return;
  }
  const std::string reason = gpu_unavailable_reason();
  EXPECT_EQ(reason.rfind("no CUDA GPU available: ", 0), 0u) << reason;
  EXPECT_NE(reason.find("; CPU-only commands still work"), std::string::npos) << reason;
  EXPECT_EQ(reason.find('\n'), std::string::npos);
  try {
    open_device(0);
    FAIL() << "open_device succeeded without a GPU";
  } catch (const UnavailableError& e) {
    EXPECT_EQ(std::string(e.what()), reason);
  }
  EXPECT_THROW(Session session(0), UnavailableError);
}

TEST(Device, FormatsCudaVersions) {
  EXPECT_EQ(format_cuda_version(13000), "13.0");
  EXPECT_EQ(format_cuda_version(12080), "12.8");
  EXPECT_EQ(format_cuda_version(0), "none");
}

TEST(Status, ClassifiesLaunchErrors) {
  const LaunchStatus resources = classify(cudaErrorLaunchOutOfResources, "kernel 'k'");
  EXPECT_EQ(resources.outcome, Outcome::out_of_resources);
  EXPECT_FALSE(resources.sticky());
  EXPECT_NE(resources.message.find("kernel 'k': too many resources"), std::string::npos) << resources.message;
  EXPECT_EQ(classify(cudaErrorInvalidConfiguration, "k").outcome, Outcome::invalid_config);
  const LaunchStatus fault = classify(cudaErrorIllegalAddress, "kernel 'k'");
  EXPECT_TRUE(fault.sticky());
  EXPECT_NE(fault.message.find("(cudaErrorIllegalAddress)"), std::string::npos);
  EXPECT_NE(fault.message.find("Session::recover()"), std::string::npos);
  EXPECT_TRUE(classify(cudaErrorMisalignedAddress, "k").sticky());
  EXPECT_TRUE(classify(cudaErrorLaunchTimeout, "k").sticky());
  EXPECT_EQ(classify(cudaErrorInvalidValue, "k").outcome, Outcome::error);
  EXPECT_TRUE(classify(cudaSuccess, "k").ok());
  EXPECT_STREQ(outcome_name(Outcome::fault), "fault");
}

TEST(Timing, SummaryStatistics) {
  const std::vector<double> even = {3.0, 1.0, 2.0, 4.0};
  const Summary s = summarize(even);
  EXPECT_EQ(s.count, 4u);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 4.0);
  EXPECT_NEAR(s.stddev, std::sqrt(5.0 / 3.0), 1e-12);  // sample (n - 1) deviation
  const std::vector<double> odd = {0.5, 10.0, 0.25};
  EXPECT_DOUBLE_EQ(summarize(odd).median, 0.5);
  const std::vector<double> one = {7.0};
  EXPECT_DOUBLE_EQ(summarize(one).stddev, 0.0);
  EXPECT_DOUBLE_EQ(summarize(one).median, 7.0);
  EXPECT_EQ(summarize({}).count, 0u);
}

TEST(DType, ParsesT1NamesAndCSpellings) {
  EXPECT_EQ(parse_dtype("float"), (DType{Scalar::float32, 1}));
  EXPECT_EQ(parse_dtype("double"), (DType{Scalar::float64, 1}));
  EXPECT_EQ(parse_dtype("char"), (DType{Scalar::int8, 1}));
  EXPECT_EQ(parse_dtype("unsigned int"), (DType{Scalar::uint32, 1}));
  EXPECT_EQ(parse_dtype("int"), (DType{Scalar::int32, 1}));
  EXPECT_EQ(parse_dtype("float4"), (DType{Scalar::float32, 4}));
  EXPECT_EQ(parse_dtype("half2").size(), 4u);
  EXPECT_EQ(parse_dtype("double16").size(), 128u);
  EXPECT_EQ(parse_dtype("float16"), (DType{Scalar::float32, 16}));  // T1: a vector, not binary16
  EXPECT_EQ(parse_dtype("int64").size(), 8u);
  EXPECT_EQ(parse_dtype("bool").size(), 1u);
  EXPECT_EQ(parse_dtype("float4").name(), "float4");
  EXPECT_EQ(parse_dtype("unsigned char").name(), "uint8");
  for (const char* bad : {"float3", "float32x", "custom", "", "Float"}) {
    try {
      parse_dtype(bad);
      ADD_FAILURE() << "accepted '" << bad << "'";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
    }
  }
}

// Every element type of Kernel Tuner's T1 input schema except "custom" parses, with its size.
TEST(DType, AcceptsEveryTypeOfTheT1Schema) {
  const std::filesystem::path schema = test_data::file("kernel_tuner/schema/T1/input-schema.json");
  const nlohmann::json j = nlohmann::json::parse(std::ifstream(schema));
  const nlohmann::json& types =
      j["properties"]["KernelSpecification"]["properties"]["Arguments"]["items"]["properties"]["Type"]["enum"];
  ASSERT_GE(types.size(), 20u);
  std::set<std::string> parsed;
  for (const auto& t : types) {
    const std::string name = t.get<std::string>();
    if (name == "custom") {
      EXPECT_THROW(parse_dtype(name), InputError);
      continue;
    }
    const DType d = parse_dtype(name);
    EXPECT_EQ(d.name(), name);  // canonical names are the T1 names
    parsed.insert(name);
  }
  EXPECT_TRUE(parsed.count("float4") && parsed.count("uint16") && parsed.count("half"));
}

// The arguments of the real third-party T1 files in data/ map to valid ArgSpecs.
TEST(ArgSpec, RealT1ArgumentsValidate) {
  int checked = 0;
  for (const char* file : {"bat/GEMM-CAFF.json", "bat/pnpoly-CAFF.json", "bat/convolution-CAFF.json",
                           "kernel_tuner/test/test_T1_input.json", "benchmark_hub/convolution_milo.json"}) {
    const nlohmann::json j = nlohmann::json::parse(std::ifstream(test_data::file(file)));
    for (const auto& a : j["KernelSpecification"]["Arguments"]) {
      ArgSpec spec;
      spec.name = a.value("Name", "arg");
      spec.dtype = a["Type"].get<std::string>();
      spec.scalar = a["MemoryType"] == "Scalar";
      spec.fill = a.value("FillType", "Constant") == "Random" ? FillKind::random : FillKind::constant;
      spec.fill_value = a.value("FillValue", 0.0);
      spec.output = a.value("Output", 0) != 0;
      // Symbolic sizes are the integrator's business (they need the problem size); count 1 here.
      spec.count = a.contains("Size") && a["Size"].is_number_integer() ? a["Size"].get<std::size_t>() : 1;
      EXPECT_NO_THROW(validate(spec)) << file << " argument " << spec.name;
      if (spec.scalar) {
        const std::vector<std::byte> bytes = scalar_bytes(spec);
        ASSERT_EQ(bytes.size(), 4u);
        std::int32_t v;
        std::memcpy(&v, bytes.data(), 4);
        EXPECT_EQ(v, static_cast<std::int32_t>(spec.fill_value));
      }
      ++checked;
    }
  }
  EXPECT_GE(checked, 15);
}

TEST(ArgSpec, ValidationNamesTheArgumentAndTheCause) {
  auto base = [] {
    ArgSpec s;
    s.name = "a";
    s.dtype = "float";
    s.count = 16;
    return s;
  };
  struct Case {
    ArgSpec spec;
    const char* expect;
  };
  std::vector<Case> cases;
  {
    ArgSpec s = base();
    s.dtype = "float3";
    cases.push_back({s, "unknown argument data type 'float3'"});
  }
  {
    ArgSpec s = base();
    s.count = 0;
    cases.push_back({s, "count of at least 1"});
  }
  {
    ArgSpec s = base();
    s.scalar = true;
    s.count = 2;
    cases.push_back({s, "a scalar has count 2"});
  }
  {
    ArgSpec s = base();
    s.scalar = true;
    s.count = 1;
    s.output = true;
    cases.push_back({s, "cannot be an output"});
  }
  {
    ArgSpec s = base();
    s.scalar = true;
    s.count = 1;
    s.fill = FillKind::random;
    cases.push_back({s, "constant value"});
  }
  {
    ArgSpec s = base();
    s.scalar = true;
    s.count = 1;
    s.dtype = "float4";
    cases.push_back({s, "vector type float4"});
  }
  {
    ArgSpec s = base();
    s.dtype = "int32";
    s.fill_value = 1.5;
    cases.push_back({s, "not an integer"});
  }
  {
    ArgSpec s = base();
    s.dtype = "uint8";
    s.fill_value = 256;
    cases.push_back({s, "out of range for type uint8"});
  }
  {
    ArgSpec s = base();
    s.dtype = "uint32";
    s.fill_value = -1;
    cases.push_back({s, "out of range"});
  }
  {
    ArgSpec s = base();
    s.dtype = "int64";
    s.fill_value = 0x1.0p63;
    cases.push_back({s, "out of range"});
  }
  {
    ArgSpec s = base();
    s.fill = FillKind::random;
    s.fill_value = -1;
    cases.push_back({s, "negative"});
  }
  {
    ArgSpec s = base();
    s.fill_value = NAN;
    cases.push_back({s, "not finite"});
  }
  {
    ArgSpec s = base();
    s.dtype = "double16";
    s.count = SIZE_MAX / 64;
    cases.push_back({s, "overflows"});
  }
  for (const Case& c : cases) {
    try {
      validate(c.spec);
      ADD_FAILURE() << "accepted a spec that should fail with: " << c.expect;
    } catch (const InputError& e) {
      const std::string what = e.what();
      EXPECT_EQ(what.rfind("kernel argument 'a': ", 0), 0u) << what;
      EXPECT_NE(what.find(c.expect), std::string::npos) << what;
    }
  }
  ArgSpec unnamed = base();
  unnamed.name.clear();
  EXPECT_THROW(validate(unnamed), InputError);
  // Edges that are valid.
  ArgSpec ok = base();
  ok.dtype = "int64";
  ok.fill_value = -0x1.0p63;
  EXPECT_NO_THROW(validate(ok));
  ok.dtype = "uint8";
  ok.fill_value = 255;
  EXPECT_NO_THROW(validate(ok));
}

TEST(ArgSpec, ScalarBytesHaveTheKernelParameterLayout) {
  ArgSpec s;
  s.name = "n";
  s.scalar = true;
  s.count = 1;
  s.dtype = "int32";
  s.fill_value = -4096;
  std::vector<std::byte> b = scalar_bytes(s);
  ASSERT_EQ(b.size(), 4u);
  std::int32_t i32;
  std::memcpy(&i32, b.data(), 4);
  EXPECT_EQ(i32, -4096);
  s.dtype = "uint64";
  s.fill_value = 0x1.0p40;
  b = scalar_bytes(s);
  ASSERT_EQ(b.size(), 8u);
  std::uint64_t u64;
  std::memcpy(&u64, b.data(), 8);
  EXPECT_EQ(u64, std::uint64_t{1} << 40);
  s.dtype = "double";
  s.fill_value = 0.1;
  b = scalar_bytes(s);
  double d;
  std::memcpy(&d, b.data(), 8);
  EXPECT_EQ(d, 0.1);
  s.dtype = "half";
  s.fill_value = 1.0;
  b = scalar_bytes(s);
  ASSERT_EQ(b.size(), 2u);
  std::uint16_t h;
  std::memcpy(&h, b.data(), 2);
  EXPECT_EQ(h, 0x3C00);
}

// A Tune.check kernel takes the kernel's arguments as they are launched: a CUtensorMap by value
// (128 bytes), a scalar its type's bytes, a buffer a pointer; then the outputs' and the result's
// pointers (matching_wgmma_check's parameters).
TEST(CheckParameters, TensorMapsByValueScalarsByTypeBuffersByPointer) {
  ArgSpec map, buffer, n;
  map.name = "set1_map";
  map.scalar = true;
  map.tensor_map = true;
  buffer.name = "set1";
  buffer.count = 16;
  n.name = "n1";
  n.scalar = true;
  n.dtype = "int32";
  EXPECT_EQ(check_parameter_sizes({map, buffer, n}, 1), (std::vector<std::size_t>{128, 8, 4, 8, 8}));
}

}  // namespace
}  // namespace tune::run

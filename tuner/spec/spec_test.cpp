#include "spec/spec.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "common/test_data.h"
#include "spec/bind.h"

namespace fs = std::filesystem;
using tune::spec::load;
using tune::spec::parse;

namespace {

std::string error_of(const std::string& text) {
  try {
    parse(text, "bad.json");
  } catch (const tune::InputError& e) {
    return e.what();
  }
  return "";
}

// A minimal valid T1 document with the given ConfigurationSpace and KernelSpecification extras.
std::string doc(const std::string& params, const std::string& conds = "[]", const std::string& extra = "") {
  return R"({"ConfigurationSpace": {"TuningParameters": )" + params + R"(, "Conditions": )" + conds +
         R"(}, "KernelSpecification": {"Language": "CUDA", "KernelName": "k", "KernelFile": "k.cu",
         "GlobalSize": {"X": "1024"}, "LocalSize": {"X": "block_size_x"})" +
         extra + "}}";
}
}  // namespace

TEST(Spec, LoadsEveryExternalT1File) {
  for (const char* f : {"bat/GEMM-CAFF.json", "bat/convolution-CAFF.json", "bat/pnpoly-CAFF.json",
                        "benchmark_hub/convolution_milo.json", "benchmark_hub/dedispersion_milo.json",
                        "kernel_tuner/test/test_T1_input.json", "kernel_tuner/test/test_cache_file_T1_input.json"}) {
    SCOPED_TRACE(f);
    auto s = load(tune::test_data::file(f));
    EXPECT_FALSE(s.parameters.empty());
    EXPECT_FALSE(s.kernel.name.empty());
    EXPECT_EQ(s.content_hash.size(), 32u);
  }
}

TEST(Spec, ToleratesRealFileQuirks) {
  auto gemm = load(tune::test_data::file("bat/GEMM-CAFF.json"));  // Budget as an object
  ASSERT_TRUE(gemm.budget.is_array());
  ASSERT_EQ(gemm.budget.size(), 1u);
  EXPECT_EQ(gemm.budget[0]["BudgetValue"], 200);
  EXPECT_EQ(gemm.objective, "GFLOPs");
  EXPECT_FALSE(gemm.minimize);
  auto pnpoly = load(tune::test_data::file("bat/pnpoly-CAFF.json"));  // FormatVersion as a string
  EXPECT_EQ(pnpoly.parameters[1].values.size(), 11u);                 // [1] + [2*i for i in range(1,11)]
  EXPECT_EQ(pnpoly.kernel.global_size_type, "OpenCL");
  auto conv = load(tune::test_data::file("kernel_tuner/test/test_T1_input.json"));
  EXPECT_EQ(conv.parameters[0].values.size(), 16u);          // range(3,35,2)
  EXPECT_EQ(conv.parameters[3].values.back().as_int(), 32);  // 2**5
  EXPECT_EQ(conv.kernel.grid_div[0].size(), 2u);
  EXPECT_EQ(conv.kernel.problem_size.items().size(), 2u);
  ASSERT_EQ(conv.kernel.arguments.size(), 3u);
  EXPECT_TRUE(conv.kernel.arguments[0].output);
  EXPECT_EQ(conv.kernel.arguments[2].mem_type, "Constant");
  // GridDivY names block_size_y, which vector_add does not have: ignored, as Kernel Tuner does.
  auto vadd = load(tune::test_data::file("kernel_tuner/test/test_cache_file_T1_input.json"));
  EXPECT_TRUE(vadd.kernel.grid_div[1].empty());
}

TEST(Spec, ArgumentSizeExpressionsSeeProblemSizeAndValueLists) {
  auto s = load(tune::test_data::file("kernel_tuner/test/test_T1_input.json"));
  std::vector<tune::expr::Value> vars(s.parameters.size() + 1);
  for (std::size_t p = 0; p < s.parameters.size(); ++p) vars[p] = tune::expr::Value::list(s.parameters[p].values);
  vars.back() = s.kernel.problem_size;
  EXPECT_EQ(s.kernel.arguments[1].size->program.eval(vars).as_int(), (4096 + 33 - 1) * (4096 + 33 - 1));
  EXPECT_EQ(s.kernel.arguments[2].size->program.eval(vars).as_int(), 33 * 33);
}

TEST(Spec, SpaceHashIgnoresFormattingButNotValues) {
  auto a = parse(doc(R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])"), "a.json");
  auto b = parse(doc(R"([{"Name":"block_size_x","Type":"int","Values":"[32,64]"}])"), "b.json");
  auto c = parse(doc(R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 128]"}])"), "c.json");
  EXPECT_EQ(tune::spec::space_hash(a), tune::spec::space_hash(b));
  EXPECT_NE(tune::spec::space_hash(a), tune::spec::space_hash(c));
}

TEST(SpecErrors, MissingFile) {
  try {
    load("/nonexistent/space.json");
    FAIL();
  } catch (const tune::InputError& e) {
    EXPECT_STREQ(e.what(), "/nonexistent/space.json: no such file");
  }
}

// Issue #16: a spec path that is not a regular file is refused at once (/dev/zero was read
// forever, a directory read as an empty document).
TEST(SpecErrors, DevicesAndDirectoriesAreNotSpecs) {
  for (const char* path : {"/dev/zero", "/tmp"}) {
    try {
      load(path);
      FAIL() << path;
    } catch (const tune::InputError& e) {
      EXPECT_EQ(std::string(e.what()), std::string(path) + ": not a regular file (a directory, device or pipe)");
    }
  }
}

// Found by spec_fuzz: a number beyond double's range escaped as nlohmann's out_of_range.
TEST(SpecErrors, ANumberBeyondDoubleIsAnInputError) {
  EXPECT_NE(error_of(doc(R"([{"Name": "a", "Type": "int", "Values": "[1]", "Default": 1e99999}])"))
                .find("bad.json: JSON: unreadable JSON"),
            std::string::npos);
}

TEST(SpecErrors, MalformedJson) {
  EXPECT_NE(error_of("{\"ConfigurationSpace\": ").find("bad.json: JSON: malformed JSON"), std::string::npos);
}

TEST(SpecErrors, MissingRequiredKeys) {
  EXPECT_EQ(error_of(R"({"KernelSpecification": {}})"),
            "bad.json: top level: missing required key \"ConfigurationSpace\"");
  EXPECT_EQ(error_of(doc(R"([{"Name": "block_size_x", "Type": "int"}])")),
            "bad.json: ConfigurationSpace.TuningParameters[0]: missing required key \"Values\"");
  std::string no_kernel =
      R"({"ConfigurationSpace": {"TuningParameters": [{"Name": "a", "Type": "int", "Values": "[1]"}]},
      "KernelSpecification": {"Language": "CUDA", "KernelFile": "k.cu", "GlobalSize": {"X": "1"}, "LocalSize": {"X": "1"}}})";
  EXPECT_EQ(error_of(no_kernel), "bad.json: KernelSpecification: missing required key \"KernelName\"");
}

TEST(SpecErrors, UnknownParameterInACondition) {
  std::string params = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])";
  std::string listed =
      error_of(doc(params, R"([{"Expression": "block_size_x > 1", "Parameters": ["block_size_x", "tile"]}])"));
  EXPECT_EQ(listed, "bad.json: ConfigurationSpace.Conditions[0].Parameters[1]: unknown parameter 'tile'");
  try {
    parse(doc(params, R"([{"Expression": "block_size_x > tile", "Parameters": ["block_size_x"]}])"), "bad.json");
    FAIL();
  } catch (const tune::expr::Error& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("bad.json: ConfigurationSpace.Conditions[0].Expression"), std::string::npos) << what;
    EXPECT_NE(what.find("tile"), std::string::npos) << what;
    EXPECT_EQ(e.column(), 16u) << what;
  }
}

TEST(SpecErrors, BadValues) {
  EXPECT_EQ(error_of(doc(R"([{"Name": "a", "Type": "int", "Values": "[]"}])")),
            "bad.json: ConfigurationSpace.TuningParameters[0].Values: parameter 'a' has no values (the space would be "
            "empty)");
  EXPECT_EQ(error_of(doc(R"([{"Name": "a", "Type": "int", "Values": "5"}])")),
            "bad.json: ConfigurationSpace.TuningParameters[0].Values: parameter 'a': \"5\" evaluates to 5, not a list");
  EXPECT_EQ(error_of(doc(
                R"([{"Name": "a", "Type": "int", "Values": "[1]"}, {"Name": "a", "Type": "int", "Values": "[2]"}])")),
            "bad.json: ConfigurationSpace.TuningParameters[1].Name: duplicate parameter 'a'");
  EXPECT_THROW(parse(doc(R"([{"Name": "a", "Type": "int", "Values": "[1, 2"}])"), "bad.json"), tune::expr::Error);
}

// Issue #14: the "Tune" extensions are typed: a misspelt key is an error naming the closest known
// one, not a silently ignored setting (a Tune.refrence would have left results unverified).
// Names reach kernels, headers and file names: each is bounded.
TEST(SpecErrors, NamesAreBounded) {
  const std::string long_name(5000, 'k');
  std::string d = doc(R"([{"Name": "block_size_x", "Type": "int", "Values": "[32]"}])");
  d.replace(d.find(R"("KernelName": "k")"), 17, R"("KernelName": ")" + long_name + "\"");
  EXPECT_NE(error_of(d).find("KernelSpecification.KernelName: a name of 5000 characters (at most 256)"),
            std::string::npos)
      << error_of(d).substr(0, 200);
  EXPECT_NE(error_of(doc(R"([{"Name": ")" + std::string(300, 'p') + R"(", "Type": "int", "Values": "[32]"}])"))
                .find("TuningParameters[0].Name: a name of 300 characters"),
            std::string::npos);
}

TEST(SpecErrors, UnknownTuneKeysAreRefused) {
  const std::string params = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])";
  auto with_tune = [&](const std::string& tune) {
    std::string d = doc(params);
    return d.substr(0, d.size() - 1) + R"(, "Tune": )" + tune + "}";
  };
  EXPECT_EQ(error_of(with_tune(R"({"bytes": "8"})")), "");
  const std::string e = error_of(with_tune(R"({"bytes": "8", "refrence": {}})"));
  EXPECT_EQ(e.rfind("bad.json: Tune.refrence: unknown key (did you mean 'reference'?) (known: bytes, flops,", 0), 0u)
      << e;
  EXPECT_NE(error_of(with_tune(R"({"gemm": 1})")).find("Tune.gemm: unknown key (known: "), std::string::npos);
  EXPECT_NE(error_of(with_tune("[1]")).find("Tune: expected an object"), std::string::npos);
}

// Tune.alignment: per axis an expression over the parameters, evaluated per configuration.
TEST(SpecErrors, AlignmentIsCheckedAndEvaluatedPerConfiguration) {
  const std::string params = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"},
                                 {"Name": "vector", "Type": "int", "Values": "[1, 4]"}])";
  auto with_tune = [&](const std::string& tune) {
    std::string d = doc(params);
    return d.substr(0, d.size() - 1) + R"(, "Tune": )" + tune + "}";
  };
  EXPECT_NE(error_of(with_tune(R"({"alignment": {"w": "vector"}})")).find("Tune.alignment.w: unknown axis"),
            std::string::npos);
  EXPECT_NE(error_of(with_tune(R"({"alignment": [1]})")).find("Tune.alignment: expected an object"), std::string::npos);
  EXPECT_NE(error_of(with_tune(R"({"alignment": {"x": "nope"}})")).find("nope"), std::string::npos);
  const auto spec = parse(with_tune(R"({"alignment": {"x": "vector", "y": 2}})"), "a.json");
  const std::vector<tune::expr::Value> four{tune::expr::Value::integer(32), tune::expr::Value::integer(4)};
  const auto bound = tune::spec::bind_config(spec, four, tune::sizes::parse_one("64"));
  EXPECT_EQ(tune::spec::alignment(spec, bound), (std::array<std::int64_t, 3>{4, 2, 1}));
  const auto zero = parse(with_tune(R"({"alignment": {"x": "vector - 4"}})"), "a.json");
  EXPECT_THROW(tune::spec::alignment(zero, tune::spec::bind_config(zero, four, tune::sizes::parse_one("64"))),
               tune::InputError);
}

// Issue #14: an argument's MemoryType, AccessType and FillType are the T1 schema's enumerations,
// read into enums; another value is an error (a misspelt "Readwrite" made an output look read-only).
TEST(SpecErrors, ArgumentKindsAreTheSchemasEnumerations) {
  const std::string params = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])";
  auto with_arg = [&](const std::string& arg) { return doc(params, "[]", R"(, "Arguments": [)" + arg + "]"); };
  const std::string ok = R"({"Name": "a", "Type": "float", "MemoryType": "Vector", "AccessType": "ReadWrite",
                            "FillType": "Random", "Size": "1024"})";
  const auto spec = parse(with_arg(ok), "ok.json");
  ASSERT_EQ(spec.kernel.arguments.size(), 1u);
  EXPECT_EQ(spec.kernel.arguments[0].memory, tune::spec::Memory::vector);
  EXPECT_EQ(spec.kernel.arguments[0].access, tune::spec::Access::read_write);
  EXPECT_EQ(spec.kernel.arguments[0].fill, tune::spec::Fill::random);
  EXPECT_TRUE(spec.kernel.arguments[0].written());
  EXPECT_TRUE(spec.kernel.arguments[0].read_and_written());
  EXPECT_EQ(error_of(with_arg(
                R"({"Name": "a", "Type": "float", "MemoryType": "Vector", "AccessType": "Readwrite", "Size": "4"})")),
            "bad.json: KernelSpecification.Arguments[0].AccessType: 'Readwrite' is not one of ReadOnly, WriteOnly, "
            "ReadWrite (did you mean 'ReadWrite'?)");
  EXPECT_NE(error_of(with_arg(R"({"Name": "s", "Type": "int", "MemoryType": "Scaler"})"))
                .find("'Scaler' is not one of Scalar, Vector, Local, Symbol (did you mean 'Scalar'?)"),
            std::string::npos);
  EXPECT_NE(
      error_of(with_arg(R"({"Name": "a", "Type": "float", "MemoryType": "Vector", "FillType": "Zeros", "Size": "4"})"))
          .find("FillType: 'Zeros' is not one of Constant, Random,"),
      std::string::npos);
}

// JSON nested deeper than any real spec is refused before the parser, or a copy or dump of the
// document, recurses over it: Values 90,000 deep, the Tune extension or Budget 100,000 deep
// overflowed the stack (exit 139).
TEST(SpecErrors, DeepJsonAnywhereIsRefusedBeforeItIsParsed) {
  auto nest = [](std::size_t n) { return std::string(n, '[') + "1" + std::string(n, ']'); };
  auto nest_objects = [](std::size_t n) {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += "{\"a\": ";
    return s + "1" + std::string(n, '}');
  };
  const std::string values = R"([{"Name": "block_size_x", "Type": "int", "Values": )" + nest(90000) + "}]";
  const std::string params = R"([{"Name": "block_size_x", "Type": "int", "Values": "[32, 64]"}])";
  std::string tune_ext = doc(params), budget = doc(params);
  tune_ext.insert(tune_ext.size() - 1, R"(, "Tune": )" + nest_objects(100000));
  budget.insert(budget.size() - 1, R"(, "Budget": )" + nest(100000));
  for (const std::string& text : {doc(values), tune_ext, budget}) {
    const std::string e = error_of(text);
    EXPECT_NE(e.find("nested more than"), std::string::npos) << e.substr(0, 200);
  }
}

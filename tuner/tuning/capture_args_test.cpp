#include "tuning/capture_args.h"

#include <gtest/gtest.h>

#include "common/error.h"
#include "spec/bind.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

const std::string kSpec = std::string(TUNE_SOURCE_DIR) + "/spaces/transpose.json";

// A capture of the transpose at cols x rows as the runtime library writes one.
capture::Capture transpose_capture(std::int64_t cols, std::int64_t rows) {
  capture::Capture c;
  c.kernel = "transpose";
  c.device = "NVIDIA H200";
  c.size = {cols, rows, 1};
  const auto n = static_cast<std::uint64_t>(cols * rows);
  auto arg = [](std::string name, std::string type, bool scalar, std::uint64_t count, bool output) {
    capture::Argument a;
    a.name = std::move(name);
    a.type = std::move(type);
    a.scalar = scalar;
    a.element_bytes = 4;
    a.count = count;
    a.output = output;
    a.input.assign(count * 4, std::byte{1});
    if (output) a.result.assign(count * 4, std::byte{2});
    return a;
  };
  c.arguments = {arg("out", "float", false, n, true), arg("in", "float", false, n, false),
                 arg("rows", "int32", true, 1, false), arg("cols", "int32", true, 1, false)};
  return c;
}

std::string error_of(const spec::Spec& spec, const std::vector<std::string>& files) {
  try {
    tuning::load_captures(spec, files);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace

TEST(CaptureArgs, CapturesThatFitTheSpecGiveSizesAndData) {
  store::testing::TempDir t;
  const auto spec = spec::load(kSpec);
  capture::write(t.path() / "a.tunecap", transpose_capture(64, 32));
  capture::write(t.path() / "b.tunecap", transpose_capture(32, 32));
  const auto caps = tuning::load_captures(spec, {t.file("a.tunecap"), t.file("b.tunecap")});
  ASSERT_EQ(caps.size(), 2u);
  const auto size = tuning::capture_size(spec, caps[0]);
  EXPECT_EQ(size.label(), "64x32");
  std::vector<run::ArgSpec> args(4);
  tuning::use_captured_inputs(caps[0], args);
  ASSERT_TRUE(args[1].data);
  EXPECT_EQ(args[1].data->size(), 64u * 32u * 4u);
  EXPECT_EQ(args[2].data->size(), 4u);
}

TEST(CaptureArgs, CapturesThatDoNotFitAreRefused) {
  store::testing::TempDir t;
  const auto spec = spec::load(kSpec);
  struct Case {
    std::function<void(capture::Capture&)> spoil;
    std::string says;
  };
  const std::vector<Case> cases = {
      {[](capture::Capture& c) { c.kernel = "gemm"; }, "captured kernel 'gemm'"},
      {[](capture::Capture& c) { c.size[2] = 2; }, "more dimensions than the spec's ProblemSize"},
      {[](capture::Capture& c) { c.arguments.pop_back(); }, "3 arguments captured, the spec declares 4"},
      {[](capture::Capture& c) { c.arguments[2].name = "cols"; }, "is called 'cols' in the capture"},
      {[](capture::Capture& c) { c.arguments[1].type = "int32"; }, "has type float in the spec, int32 in the capture"},
      {[](capture::Capture& c) {
         c.arguments[1].count /= 2;
         c.arguments[1].input.resize(c.arguments[1].count * 4);
       },
       "has 1024 elements in the capture, the spec's Size gives 2048"},
      {[](capture::Capture& c) {
         c.arguments[0].output = false;
         c.arguments[0].result.clear();
       },
       "is an output in the spec, not in the capture"},
  };
  for (const auto& c : cases) {
    auto cap = transpose_capture(64, 32);
    c.spoil(cap);
    capture::write(t.path() / "x.tunecap", cap);
    const std::string e = error_of(spec, {t.file("x.tunecap")});
    EXPECT_NE(e.find(c.says), std::string::npos) << "expected '" << c.says << "' in: " << e;
    EXPECT_NE(e.find("x.tunecap"), std::string::npos) << e;
  }
  capture::write(t.path() / "a.tunecap", transpose_capture(64, 32));
  EXPECT_NE(error_of(spec, {t.file("a.tunecap"), t.file("a.tunecap")}).find("same problem size"), std::string::npos);
}

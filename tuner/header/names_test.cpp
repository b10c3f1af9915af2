// Generated names unique by construction (issue #47, class 8): two stored names that become one
// identifier are an error naming both, a comment cannot be continued by a "??/" trigraph, and the
// dispatch's own identifiers cannot collide with an argument's name.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>

#include "common/error.h"
#include "compile/source.h"
#include "header/header.h"
#include "header/test_util.h"
#include "header/text.h"
#include "interop/interop.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

const std::string kSpec = header::testing::source_dir() + "/spaces/transpose.json";

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

void import(store::Store& db, const fs::path& dir, const spec::Spec& spec, const std::string& device,
            const std::string& kernel) {
  static int n = 0;
  const fs::path cache = dir / ("c" + std::to_string(n++) + ".json");
  header::testing::write_cache(cache, spec, device, kernel, 512, 512, {{header::testing::kDefaults, 0.01}});
  interop::import_file(db, cache, {std::nullopt, std::nullopt, &spec});
}

}  // namespace

// "??/" is a backslash where trigraphs are enabled: at the end of a device name it continued the
// comment over the header's next line.
TEST(Names, CommentsHoldNoTrigraph) {
  for (const char* name : {"GPU ?\?/", "GPU ?\?\?/", "a?\?=b", "?\?"}) {
    const std::string c = header::comment(name);
    EXPECT_EQ(c.find("??"), std::string::npos) << c;
  }
  EXPECT_EQ(header::comment("why? because"), "why? because");
}

// "GPU A" and "GPU-A" both become TARGET_GPU_A; the old suffix (_2) then collided with a device
// called "GPU_A_2". One selected the other's configuration. Now an error naming both.
TEST(Names, DevicesThatBecomeOneIdentifierAreAnError) {
  store::testing::TempDir t;
  const spec::Spec spec = spec::load(kSpec);
  auto db = store::Store::open(t.file("h.db"), store::Store::Mode::read_write);
  for (const char* device : {"GPU A", "GPU-A", "GPU_A_2"}) import(db, t.path(), spec, device, "transpose");
  const auto m = header::build(db, "transpose", spec);
  const std::string e = error_of([&] { header::generate(m, "h.db"); });
  EXPECT_NE(e.find("devices 'GPU A' and 'GPU-A' both become TARGET_GPU_A"), std::string::npos) << e;
}

// Kernels "a-b" and "a_b" shared one namespace and one header file (the second overwrote the first).
TEST(Names, KernelsThatBecomeOneIdentifierAreAnError) {
  store::testing::TempDir t;
  const spec::Spec spec = spec::load(kSpec);
  auto db = store::Store::open(t.file("h.db"), store::Store::Mode::read_write);
  import(db, t.path(), spec, "GPU", "a-b");
  import(db, t.path(), spec, "GPU", "a_b");
  const std::string e = error_of([&] { header::build(db, "a-b", spec); });
  EXPECT_NE(e.find("kernels 'a-b' and 'a_b'"), std::string::npos) << e;
  EXPECT_NE(e.find("both become a_b"), std::string::npos) << e;
}

// An argument named like an identifier of the generated dispatch (grid, variants, kernels, s)
// gave code nvcc rejects, with exit 0. Arguments are spelt arg_<name> in the dispatch now.
TEST(Names, DispatchArgumentsCannotCollideWithGeneratedNames) {
  store::testing::TempDir t;
  auto j = nlohmann::json::parse(std::ifstream(kSpec));
  const char* names[] = {"grid", "variants", "kernels", "s"};
  for (std::size_t i = 0; i < 4; ++i) j["KernelSpecification"]["Arguments"][i]["Name"] = names[i];
  j["KernelSpecification"]["KernelFile"] = header::testing::source_dir() + "/kernels_src/transpose.cu";
  std::ofstream(t.path() / "grid.json") << j.dump(1);
  const spec::Spec spec = spec::load(t.path() / "grid.json");
  auto db = store::Store::open(t.file("h.db"), store::Store::Mode::read_write);
  import(db, t.path(), spec, "GPU", "transpose");
  const auto m = header::build(db, "transpose", spec);
  // the kernel's program as `tune header --dispatch` reads it: shared headers written in, no #line
  compile::SourceOptions options;
  options.line_markers = false;
  const std::string source = compile::read_kernel_source(spec.kernel.file_path, "KernelFile", options).text;
  const std::string cuh = header::generate_dispatch(m, source, "h.db");
  std::ofstream(t.path() / "t.cuh") << cuh;
  std::ofstream(t.path() / "app.cu") << "#include \"t.cuh\"\nint main() { return tune_tuned::" << m.ns
                                     << "::launch(nullptr, 512, 512, 1, nullptr, nullptr, 512, 512) == "
                                        "cudaSuccess ? 1 : 0; }\n";
  const std::string s = t.path().string();
  EXPECT_EQ(
      header::testing::run(header::testing::nvcc() + " -std=c++17 -arch=sm_90 -c -o " + s + "/app.o " + s + "/app.cu"),
      "");
}

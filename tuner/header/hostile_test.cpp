// Stored strings are data (issue #16, finding 1): hostile Kernel Tuner caches are imported and
// the generated .h, .cuh and table are compiled with g++ and nvcc; the names come back as data and
// the injected code never runs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/source.h"
#include "header/header.h"
#include "header/test_util.h"
#include "header/text.h"
#include "interop/interop.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;
using header::testing::run;

namespace {

const std::string kSpec = header::testing::source_dir() + "/spaces/transpose.json";
const std::string kMarker = "/tmp/tune_header_pwned";

// Device names an attacker would put in a shared cache.
std::vector<std::string> hostile_devices() {
  return {
      "NVIDIA H200\n#include <cstdlib>\nstatic int pwned = std::system(\"touch " + kMarker + "\");\n//",
      "GPU */ int pwned2 = 1; /*",
      "GPU \\\nint pwned3 = 1;",
      "GPU \"quoted\" '?' ?\\?= \\x41 \\0",
      "GPU \xc3\xa9\xe2\x80\xae unicode \xff invalid",
      std::string(5000, 'A') + "\n#error long",
      "../../etc/passwd",
  };
}

std::string read(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(Text, CommentsAndLiteralsCannotEndEarly) {
  EXPECT_EQ(header::comment("a\nb*/c\\"), "a<0A>b*/c<5C>");
  EXPECT_EQ(header::comment(std::string(300, 'x'), 10), "xxxxxxxxxx...");
  EXPECT_EQ(header::c_string("a\"b\\c?\n\xff"), "\"a\\042b\\134c\\077\\012\\377\"");
  EXPECT_TRUE(header::is_identifier("block_size_x"));
  for (const char* bad : {"", "1x", "a b", "x*/", "class", "vector-1", "a\n", "../x"})
    EXPECT_FALSE(header::is_identifier(bad)) << bad;
  EXPECT_EQ(header::identifier("NVIDIA H100 80GB HBM3"), "NVIDIA_H100_80GB_HBM3");
  EXPECT_EQ(header::identifier("../../x"), "______x");
  EXPECT_EQ(header::identifier("class"), "class_");
  EXPECT_EQ(header::identifier("9a"), "_9a");
  const std::string long_a = header::identifier(std::string(500, 'a')),
                    long_b = header::identifier(std::string(501, 'a'));
  EXPECT_LE(long_a.size(), 64u);
  EXPECT_NE(long_a, long_b);
}

TEST(Hostile, CachesWithHostileNamesGiveHeadersThatCompileAndKeepNamesAsData) {
  store::testing::TempDir t;
  const fs::path& d = t.path();
  std::error_code ec;
  fs::remove(kMarker, ec);
  const spec::Spec spec = spec::load(kSpec);
  auto db = store::Store::open((d / "h.db").string(), store::Store::Mode::read_write);
  const std::string kernel = "transpose */ \n#define x y\n\"../../k";
  const auto devices = hostile_devices();
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const fs::path cache = d / ("c" + std::to_string(i) + ".json");
    header::testing::write_cache(
        cache, spec, devices[i], kernel, 512, 512,
        {{header::testing::kDefaults, 0.01 + 0.001 * double(i)}, {header::testing::kSixteen, 0.02}});
    interop::import_file(db, cache, {std::nullopt, std::nullopt, &spec});
  }
  const auto m = header::build(db, kernel, spec);
  ASSERT_EQ(m.devices.size(), devices.size());
  const std::string h = header::generate(m, "h.db\n#error from the path");
  // the kernel's program as `tune header --dispatch` reads it: shared headers written in, no #line
  compile::SourceOptions options;
  options.line_markers = false;
  const std::string source = compile::read_kernel_source(spec.kernel.file_path, "KernelFile", options).text;
  const std::string cuh = header::generate_dispatch(m, source, "h.db");
  std::ofstream(d / "t.h") << h;
  std::ofstream(d / "t.cuh") << cuh;
  // The injected text may appear escaped inside a // comment, never at the start of a line (it would
  // need a newline to get there) nor after the end of a comment.
  for (const auto& text : {h, cuh}) {
    std::istringstream lines(text);
    std::string line;
    while (std::getline(lines, line)) {
      std::string code;  // the line without string literals (ours hold no \") and comments
      for (std::size_t i = 0, quoted = 0; i < line.size() && (quoted || line.compare(i, 2, "//") != 0); ++i)
        if (line[i] == '"')
          quoted = !quoted;
        else if (!quoted)
          code += line[i];
      for (const char* injected : {"#include <cstdlib>", "#error", "int pwned", "#define x y", "std::system("})
        EXPECT_EQ(code.find(injected), std::string::npos) << line;
    }
  }

  // The names come back byte for byte from the compiled header: they are string literals.
  std::ofstream(d / "names.cpp") << "#include <cstdio>\n#include <cstring>\n#include \"t.h\"\n"
                                    "int main() { for (const auto& dev : tune_tuned::"
                                 << m.ns
                                 << "::devices)\n"
                                    "  std::fwrite(dev.name, 1, std::strlen(dev.name) + 1, stdout); }\n";
  std::string expected;
  for (const auto& dev : m.devices) expected += dev.name + '\0';
  const std::string s = d.string();
  EXPECT_EQ(run("g++ -std=c++17 -Wall -Wextra -Werror -o " + s + "/names " + s + "/names.cpp && " + s + "/names"),
            expected);
  fs::copy_file(d / "names.cpp", d / "names.cu");
  EXPECT_EQ(run(header::testing::nvcc() + " -std=c++17 -o " + s + "/namesn " + s + "/names.cu && " + s + "/namesn"),
            expected);
  // The dispatch header: compiled and linked by nvcc for sm_90, with the includer's own macros kept.
  std::ofstream(d / "app.cu")
      << "#define group 7\n#include \"t.cuh\"\n#include <vector>\n#include <cstdio>\n"
         "static_assert(group == 7, \"the includer's macro survives\");\n"
         "int main() { std::vector<float> v(4); std::printf(\"%d\\n\", int(tune_tuned::"
      << m.ns << "::num_variants));\n  return tune_tuned::" << m.ns
      << "::launch(nullptr, 512, 512, 1, nullptr, nullptr, 512, 512) == cudaSuccess ? 1 : 0; }\n";
  EXPECT_EQ(run(header::testing::nvcc() + " -std=c++17 -arch=sm_90 -o " + s + "/app " + s + "/app.cu"), "");
  EXPECT_FALSE(fs::exists(kMarker)) << "the injected code ran";

  // The runtime table is JSON with every name escaped, and parses back to the same names.
  auto table = nlohmann::json::parse(header::generate_table(m, "h.db"));
  EXPECT_EQ(table["kernel"], kernel);
  EXPECT_EQ(table["devices"][0]["name"].get<std::string>(), m.devices[0].name);
}

TEST(Hostile, ParameterNamesMustBeIdentifiers) {
  store::testing::TempDir t;
  std::string text = read(kSpec);
  const std::string from = "\"Name\": \"tiles\"";
  text.replace(text.find(from), from.size(), "\"Name\": \"tiles */ x\"");
  // the conditions that name tiles keep parsing only if the name is bound: write a spec without them
  auto j = nlohmann::json::parse(text);
  j["ConfigurationSpace"]["Conditions"] = nlohmann::json::array();
  j["KernelSpecification"]["GridDivY"] = {"block_size_y", "tile_size_y"};
  j["KernelSpecification"]["GlobalSize"]["Y"] = "1";
  j["KernelSpecification"]["KernelFile"] = header::testing::source_dir() + "/kernels_src/transpose.cu";
  std::ofstream(t.path() / "bad.json") << j.dump(1);
  const spec::Spec spec = spec::load(t.path() / "bad.json");
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  try {
    header::build(db, "transpose", spec);
    FAIL() << "a parameter name with '*/' was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a C identifier"), std::string::npos) << e.what();
  }
}

TEST(Hostile, StoredConfigurationsOutsideTheSpaceAreRefused) {
  store::testing::TempDir t;
  const spec::Spec spec = spec::load(kSpec);
  auto db = store::Store::open((t.path() / "r.db").string(), store::Store::Mode::read_write);
  store::RunInfo info;
  info.kernel = "transpose";
  info.device = "GPU";
  const auto run_id = db.begin_run(info);
  nlohmann::ordered_json params;
  for (std::size_t i = 0; i < spec.parameters.size(); ++i)
    params[spec.parameters[i].name] = header::testing::kDefaults[i];
  params["vector"] = "1; system(\"x\")";  // a value the spec never wrote
  store::Measurement m;
  m.config_id = db.upsert_configuration("transpose", "h", params);
  m.run_id = run_id;
  m.device = "GPU";
  m.size = sizes::Size::of(512, 512);
  m.samples_ms = {0.01f};
  db.record(m);
  try {
    header::build(db, "transpose", spec);
    FAIL() << "a configuration outside the space was accepted";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("is not one of its Values"), std::string::npos) << e.what();
  }
}

// The command: a hostile kernel name cannot move the output out of results/headers/; a refused
// header writes nothing and exits 2.
TEST(Hostile, CommandKeepsOutputInResultsAndRefusesCleanly) {
  store::testing::TempDir t;
  const fs::path& d = t.path();
  const spec::Spec spec = spec::load(kSpec);
  {
    auto db = store::Store::open((d / "h.db").string(), store::Store::Mode::read_write);
    header::testing::write_cache(d / "c.json", spec, "GPU", "../../../escaped", 512, 512,
                                 {{header::testing::kDefaults, 0.01}});
    interop::import_file(db, d / "c.json", {std::nullopt, std::nullopt, &spec});
  }
  const std::string tune = TUNE_BINARY;
  const std::string cd = "cd " + d.string() + " && ";
  const std::string out = run(cd + tune + " header --db h.db --kernel ../../../escaped --space " + kSpec);
  EXPECT_NE(out.find("wrote results/headers/_________escaped_tuned.h"), std::string::npos) << out;
  EXPECT_TRUE(fs::exists(d / "results/headers/_________escaped_tuned.h"));
  EXPECT_FALSE(fs::exists(d.parent_path().parent_path() / "escaped_tuned.h"));
  const std::string refused =
      run(cd + tune + " header --db h.db --kernel ../../../escaped --space " + kSpec + " --dispatch --table");
  EXPECT_NE(refused.find("FAILED(512)"), std::string::npos) << refused;  // exit status 2
  EXPECT_FALSE(fs::exists(d / "results/headers/_________escaped_dispatch.cuh"));
  {  // imported without a spec: no recorded spec to fall back on
    auto db = store::Store::open((d / "n.db").string(), store::Store::Mode::read_write);
    interop::import_file(db, d / "c.json", {});
  }
  const std::string no_spec = run(cd + tune + " header --db n.db --kernel ../../../escaped");
  EXPECT_NE(no_spec.find("give --space FILE"), std::string::npos) << no_spec;
  EXPECT_NE(no_spec.find("FAILED(512)"), std::string::npos) << no_spec;
}

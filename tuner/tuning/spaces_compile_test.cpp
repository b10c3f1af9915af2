// Every configuration of every shipped space compiles with NVRTC for sm_90 (no GPU needed), or
// fails for a resource reason that the tuner would store with the compiler's message.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "compile/pool.h"
#include "space/space.h"
#include "tuning/extension.h"
#include "tuning/launch.h"

namespace fs = std::filesystem;
using namespace tune;

TEST(Spaces, EveryConfigurationCompilesForSm90) {
  std::size_t total = 0, failed = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(TUNE_SOURCE_DIR) / "spaces")) {
    if (entry.path().extension() != ".json") continue;
    SCOPED_TRACE(entry.path().string());
    auto spec = spec::load(entry.path());
    auto space = space::Space::build(spec);
    std::ifstream f(spec.kernel.file_path);
    std::stringstream source;
    source << f.rdbuf();
    ASSERT_FALSE(source.str().empty()) << spec.kernel.file_path;
    compile::CompilePool pool;
    for (std::size_t c = 0; c < space.size(); ++c) {
      compile::CompileRequest r;
      r.source = source.str();
      r.source_name = spec.kernel.file;
      r.kernel_name = spec.kernel.name;
      r.defines = tuning::defines(spec, space.config_values(c));
      r.options = spec.kernel.compiler_options;
      r.arch = "sm_90";
      r.tag = c;
      pool.submit(std::move(r));
    }
    auto size = sizes::parse_one(tuning::problem_rank(spec) == 1 ? "4097" : "4097x1000");
    while (auto res = pool.next()) {
      ++total;
      if (!res->ok()) {
        // Only a resource limit may stop a configuration, and the log must say which.
        ++failed;
        EXPECT_TRUE(res->log.find("shared") != std::string::npos || res->log.find("registers") != std::string::npos)
            << space.params_json(res->tag) << ":\n" << res->log;
        continue;
      }
      EXPECT_EQ(res->cubin.substr(0, 4), std::string("\x7f" "ELF", 4));
      auto g = tuning::geometry(spec, tuning::bind_config(spec, space.config_values(res->tag), size));
      EXPECT_EQ(compile::check_launch(res->resources, static_cast<int>(g.threads_per_block()), 0), "")
          << space.params_json(res->tag);
    }
  }
  EXPECT_GT(total, 500u);
  RecordProperty("configurations", static_cast<int>(total));
  std::printf("%zu configurations compiled for sm_90, %zu stopped by resource limits\n", total, failed);
}

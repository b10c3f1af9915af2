#include "common/spawn.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace tune {
namespace {

int exit_status(const Spawned& s) {
  int status = 0;
  EXPECT_EQ(::waitpid(s.pid, &status, 0), s.pid);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// A variable of `set` replaces this process's (one value, not two); the rest of the environment
// goes to the child as it is; the file actions arrange its descriptors.
TEST(Spawn, SetVariablesReplaceTheirsAndTheRestIsInherited) {
  ::setenv("TUNE_SPAWN_TEST_A", "1", 1);
  ::setenv("TUNE_SPAWN_TEST_B", "kept", 1);
  const auto out = std::filesystem::temp_directory_path() / ("tune_spawn_" + std::to_string(::getpid()));
  SpawnActions actions;
  actions.open(1, out.string(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  const Spawned s = spawn({"/bin/sh", "-c", "env | grep '^TUNE_SPAWN_TEST_' | sort"},
                          {"TUNE_SPAWN_TEST_A=7", "TUNE_SPAWN_TEST_C=new", "NO_EQUALS_SIGN"}, actions);
  ASSERT_EQ(s.error, 0);
  EXPECT_EQ(exit_status(s), 0);
  std::ifstream f(out);
  std::stringstream text;
  text << f.rdbuf();
  EXPECT_EQ(text.str(), "TUNE_SPAWN_TEST_A=7\nTUNE_SPAWN_TEST_B=kept\nTUNE_SPAWN_TEST_C=new\n");
  std::filesystem::remove(out);
}

TEST(Spawn, AProgramThatIsNotThereIsAnErrorNumber) {
  const Spawned s = spawn({"/nonexistent/program"}, {});
  if (s.error == 0)  // a libc that reports it through the child's exit instead
    EXPECT_EQ(exit_status(s), 127);
  else
    EXPECT_EQ(s.error, ENOENT);
}

}  // namespace
}  // namespace tune

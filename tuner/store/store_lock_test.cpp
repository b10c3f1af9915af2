// A writer keeps SQLite's shared lock on the database file for as long as it is open: without it,
// another process's connection that closes takes the file as its last user, checkpoints and
// deletes the WAL under the writer (two first runs on one new path left "row missing from index").
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include "store/store.h"
#include "store/test_util.h"

namespace tune {
namespace {

// In a child process: does anyone hold a lock on SQLite's shared-lock bytes of `path`?
bool another_process_sees_a_shared_lock(const std::string& path) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    struct flock fl = {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    fl.l_start = 0x40000000 + 2;  // SQLite's SHARED_FIRST (os_unix.c), SHARED_SIZE bytes
    fl.l_len = 510;
    const bool held = fd >= 0 && ::fcntl(fd, F_GETLK, &fl) == 0 && fl.l_type != F_UNLCK;
    ::_exit(held ? 0 : 1);
  }
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

TEST(StoreLocks, AWriterKeepsItsSharedLockOnANewAndAnExistingFile) {
  store::testing::TempDir t;
  const std::string path = t.file("locks.db");
  {
    auto created = store::Store::open(path, store::Store::Mode::read_write);
    EXPECT_TRUE(another_process_sees_a_shared_lock(path)) << "a new file's writer lost its lock";
  }
  EXPECT_FALSE(another_process_sees_a_shared_lock(path)) << "closed, it still holds one";
  auto existing = store::Store::open(path, store::Store::Mode::read_write);
  EXPECT_TRUE(another_process_sees_a_shared_lock(path)) << "an existing file's writer lost its lock";
}

}  // namespace
}  // namespace tune

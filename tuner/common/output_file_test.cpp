#include "common/output_file.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "common/test_dir.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

struct Dir : tune::testing::TestDir {
  Dir() : TestDir("tune_output") {}
  fs::path put(const std::string& name, const std::string& bytes) const {
    std::ofstream(path / name, std::ios::binary) << bytes;
    return path / name;
  }
};

std::string text_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

const std::string kDatabase = std::string("SQLite format 3\0", 16) + std::string(100, '\0');

}  // namespace

// A command's database named through a link: its side files, beside the file the link leads to,
// are still its own and never an output.
TEST(OutputFile, NeverTheSideFilesOfItsDatabaseNamedThroughALink) {
  Dir d;
  d.put("t.db", kDatabase);
  const fs::path shm = d.put("t.db-shm", std::string(32768, '\x01'));
  const fs::path wal = d.put("t.db-wal", "");
  fs::create_symlink(d.path / "t.db", d.path / "link.db");
  for (const fs::path& side : {shm, wal}) {
    const std::string before = text_of(side);
    EXPECT_THROW(write_file_atomically(side, "header", {d.path / "link.db"}), InputError) << side;
    EXPECT_EQ(text_of(side), before) << side;
  }
}

// Another database's live -shm or empty -wal: SQLite's files, not an output's to replace.
TEST(OutputFile, NeverAnotherDatabasesSideFiles) {
  Dir d;
  d.put("mine.db", kDatabase);
  d.put("other.db", kDatabase);
  const fs::path shm = d.put("other.db-shm", std::string(32768, '\x02'));
  const fs::path wal = d.put("other.db-wal", "");
  for (const fs::path& side : {shm, wal, d.path / "other.db-journal"})
    EXPECT_THROW(write_file_atomically(side, "x", {d.path / "mine.db"}), InputError) << side;
  EXPECT_EQ(text_of(shm), std::string(32768, '\x02'));
  EXPECT_FALSE(fs::exists(d.path / "other.db-journal"));
}

// A command's inputs (its spec, the spec's KernelFile, a replayed cache) are never its output.
TEST(OutputFile, NeverAnInput) {
  Dir d;
  const fs::path spec = d.put("spec.json", "{}"), kernel = d.put("k.cu", "__global__ void k() {}");
  fs::create_symlink(kernel, d.path / "alias.cu");
  EXPECT_THROW(write_file_atomically(spec, "x", {d.path / "t.db", spec, kernel}), InputError);
  EXPECT_THROW(write_file_atomically(d.path / "alias.cu", "x", {d.path / "t.db", spec, kernel}), InputError);
  EXPECT_EQ(text_of(spec), "{}");
  EXPECT_EQ(text_of(kernel), "__global__ void k() {}");
  EXPECT_NO_THROW(write_file_atomically(d.path / "out.h", "x", {d.path / "t.db", spec, kernel}));
}

// A writer killed inside its write window leaves .NAME.tmp.PID.N; the next write of the same
// output removes it once that process is gone, and leaves a live process's alone.
TEST(OutputFile, RemovesTheTemporariesOfDeadWriters) {
  Dir d;
  const pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  ASSERT_GT(child, 0);
  ::waitpid(child, nullptr, 0);  // its pid is now of no process
  const fs::path dead = d.put(".out.h.tmp." + std::to_string(child) + ".0", "partial");
  const fs::path live = d.put(".out.h.tmp." + std::to_string(::getppid()) + ".3", "in progress");
  const fs::path other = d.put(".other.h.tmp." + std::to_string(child) + ".0", "someone else's");
  write_file_atomically(d.path / "out.h", "whole", {});
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
  EXPECT_TRUE(fs::exists(other));
  EXPECT_EQ(text_of(d.path / "out.h"), "whole");
}

// A FIFO given where a database may be (tune import's question) is answered without waiting.
TEST(OutputFile, IsSqliteFileNeverWaitsOnAFifo) {
  Dir d;
  ASSERT_EQ(::mkfifo((d.path / "p").c_str(), 0600), 0);
  EXPECT_FALSE(is_sqlite_file(d.path / "p"));
  EXPECT_TRUE(is_sqlite_file(d.put("t.db", kDatabase)));
}

// The on-disk cubin cache: shared between processes, and a file in it never stands for code it was
// not compiled from (wrong key, corrupt, truncated, a link, someone else's, writable by others).
#include "runtime/disk_cache.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <iterator>

#include "compile/compile.h"
#include "compile/source.h"
#include "store/test_util.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::detail::CachedCubin;
using runtime::detail::DiskCache;

namespace {

// A real cubin: the transpose kernel at its Defaults, compiled by NVRTC for sm_90.
const CachedCubin& real_cubin(std::string* key = nullptr) {
  static std::string k;
  static const CachedCubin c = [] {
    compile::CompileRequest req;
    // the program as the runtime compiles it: the kernel file with its shared headers written in
    req.source = compile::read_kernel_source(std::string(TUNE_SOURCE_DIR) + "/kernels_src/transpose.cu", "transpose.cu",
                                             {.name = "transpose.cu"})
                     .text;
    req.source_name = "transpose.cu";
    req.kernel_name = "transpose";
    auto r = compile::compile(req);
    k = compile::cache_key(req, compile::nvrtc_version());
    return CachedCubin{r.lowered_name, r.cubin};
  }();
  if (key) *key = k;
  return c;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

}  // namespace

TEST(DiskCache, ASecondInstanceReadsWhatTheFirstStored) {
  store::testing::TempDir t;
  std::string key;
  const auto& c = real_cubin(&key);
  ASSERT_FALSE(c.cubin.empty());
  DiskCache a(t.path() / "cache");
  ASSERT_TRUE(a.enabled()) << a.note();
  EXPECT_EQ(fs::status(t.path() / "cache").permissions() & fs::perms::all, fs::perms::owner_all);
  bool refused = true;
  EXPECT_FALSE(a.load(key, refused));
  EXPECT_FALSE(refused);
  a.store(key, c);
  DiskCache b(t.path() / "cache");
  auto hit = b.load(key, refused);
  ASSERT_TRUE(hit);
  EXPECT_EQ(hit->cubin, c.cubin);
  EXPECT_EQ(hit->lowered_name, "transpose");
  EXPECT_FALSE(refused);
  // no temporary file is left
  std::size_t files = 0;
  for (const auto& e : fs::directory_iterator(t.path() / "cache")) files += e.path().extension() == ".cubin" ? 1 : 100;
  EXPECT_EQ(files, 1u);
}

TEST(DiskCache, UntrustworthyFilesAreRefused) {
  store::testing::TempDir t;
  std::string key;
  const auto& c = real_cubin(&key);
  const fs::path dir = t.path() / "cache", file = dir / (key + ".cubin");
  DiskCache cache(dir);
  cache.store(key, c);
  const std::string good = slurp(file);
  auto refused_after = [&](const std::function<void()>& spoil) {
    std::ofstream(file, std::ios::binary | std::ios::trunc) << good;
    fs::permissions(file, fs::perms::owner_read | fs::perms::owner_write);
    spoil();
    bool refused = false;
    const bool loaded = cache.load(key, refused).has_value();
    return !loaded && refused;
  };
  EXPECT_FALSE(refused_after([] {}));  // the good file loads
  // corrupt: any flipped byte, truncated, extended
  for (std::size_t at : {std::size_t{3}, std::size_t{20}, good.size() / 2, good.size() - 1}) {
    EXPECT_TRUE(refused_after([&] {
      std::string bad = good;
      bad[at] = static_cast<char>(bad[at] ^ 0x40);
      std::ofstream(file, std::ios::binary | std::ios::trunc) << bad;
    })) << at;
  }
  EXPECT_TRUE(refused_after(
      [&] { std::ofstream(file, std::ios::binary | std::ios::trunc) << good.substr(0, good.size() - 40); }));
  EXPECT_TRUE(refused_after([&] { std::ofstream(file, std::ios::binary | std::ios::app) << "x"; }));
  // another key's file under this key's name: the stored key differs
  EXPECT_TRUE(refused_after([&] {
    const std::string other(32, 'a');
    cache.store(other, c);
    fs::rename(dir / (other + ".cubin"), file);
  }));
  // writable by others
  EXPECT_TRUE(refused_after([&] { fs::permissions(file, fs::perms::others_write, fs::perm_options::add); }));
  // a link to an intact file elsewhere
  EXPECT_TRUE(refused_after([&] {
    fs::copy_file(file, t.path() / "elsewhere", fs::copy_options::overwrite_existing);
    fs::remove(file);
    fs::create_symlink(t.path() / "elsewhere", file);
  }));
  fs::remove(file);
  // owned by another user (needs root to arrange)
  if (::geteuid() == 0) {
    EXPECT_TRUE(refused_after([&] { ASSERT_EQ(::chown(file.c_str(), 65534, 65534), 0); }));
  }
}

TEST(DiskCache, UnsafeDirectoriesAreNotUsed) {
  store::testing::TempDir t;
  fs::create_directory(t.path() / "open");
  fs::permissions(t.path() / "open", fs::perms::all);
  DiskCache open(t.path() / "open");
  EXPECT_FALSE(open.enabled());
  EXPECT_NE(open.note().find("writable by others"), std::string::npos) << open.note();
  fs::create_directory(t.path() / "real");
  fs::create_directory_symlink(t.path() / "real", t.path() / "link");
  DiskCache link(t.path() / "link");
  EXPECT_FALSE(link.enabled());
  DiskCache none(fs::path{});
  EXPECT_FALSE(none.enabled());
  bool refused = false;
  EXPECT_FALSE(open.load(std::string(32, 'a'), refused));
}

// Processes storing and loading one key at once: every load is either nothing or the whole cubin.
TEST(DiskCache, ConcurrentProcessesNeverSeeAPartialFile) {
  store::testing::TempDir t;
  std::string key;
  const auto& c = real_cubin(&key);
  const fs::path dir = t.path() / "cache";
  { const DiskCache creates_the_directory{dir}; }  // before the children race for it
  std::vector<pid_t> kids;
  for (int p = 0; p < 4; ++p) {
    const pid_t pid = ::fork();
    if (pid == 0) {
      DiskCache cache(dir);
      int bad = 0;
      for (int i = 0; i < 50; ++i) {
        if (p % 2 == 0) cache.store(key, c);
        bool refused = false;
        if (auto hit = cache.load(key, refused); (hit && hit->cubin != c.cubin) || refused) ++bad;
      }
      ::_exit(bad);
    }
    kids.push_back(pid);
  }
  for (pid_t pid : kids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0);
  }
}

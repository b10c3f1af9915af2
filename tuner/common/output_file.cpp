#include "common/output_file.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>

#include "common/error.h"

namespace tune {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void refuse(const fs::path& path, const std::string& why) { throw InputError(path.string() + ": " + why); }

}  // namespace

bool same_file(const fs::path& a, const fs::path& b) {
  std::error_code ec;
  const fs::path ca = fs::weakly_canonical(a, ec), cb = fs::weakly_canonical(b, ec);
  if (!ca.empty() && ca == cb) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// A SQLite database (any program's, ours included) by its 16-byte header, or a WAL file by its
// magic: never an output's to replace, whether or not the command knows it as its database.
// Only a regular file is read (opened without blocking: a FIFO is not waited on).
bool is_sqlite_file(const fs::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) return false;
  struct stat st {};
  unsigned char head[16] = {};
  ssize_t n = 0;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) n = ::pread(fd, head, sizeof head, 0);
  ::close(fd);
  if (n == 16 && std::memcmp(head, "SQLite format 3", 16) == 0) return true;
  return n >= 4 && head[0] == 0x37 && head[1] == 0x7f && head[2] == 0x06 && (head[3] == 0x82 || head[3] == 0x83);
}

namespace {

constexpr std::array<const char*, 3> kSideSuffixes = {"-wal", "-shm", "-journal"};

// The file a path leads to, through every symbolic link (the path itself when nothing exists).
fs::path resolved(const fs::path& p) {
  std::error_code ec;
  fs::path r = fs::weakly_canonical(p, ec);
  return ec || r.empty() ? fs::absolute(p, ec) : r;
}

}  // namespace

void remove_dead_writers_temporaries(const fs::path& dir, std::string_view name, Names names) {
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string f = it->path().filename().string();
    const std::size_t at = f.rfind(".tmp.");
    if (f.size() < 2 || f[0] != '.' || at == std::string::npos || at < 1) continue;
    const std::string_view target = std::string_view(f).substr(1, at - 1);
    if (names == Names::exactly ? target != name : !target.ends_with(name)) continue;
    const std::string rest = f.substr(at + 5);
    const std::size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string::npos || rest.find_first_not_of("0123456789.") != std::string::npos) continue;
    const long pid = std::strtol(rest.substr(0, dot).c_str(), nullptr, 10);
    if (pid <= 0 || pid == ::getpid() || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code rm;
    if (it->is_regular_file(rm)) fs::remove(it->path(), rm);
  }
}

void check_output_path(const fs::path& path, const std::vector<fs::path>& keep) {
  if (path.empty()) throw InputError("an output path is empty");
  std::error_code ec;
  // the file the path leads to, through symbolic links
  const fs::path target = fs::exists(fs::symlink_status(path, ec)) ? fs::weakly_canonical(path, ec) : path;
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    refuse(path, "is not a regular file (a directory, device, FIFO or socket): refusing to replace it");
  // The command's own files first (its database with its side files, whatever link named it, and
  // its inputs), by resolved name and inode only: they may be open in this process.
  const fs::path where = resolved(target);
  for (const fs::path& k : keep) {
    if (k.empty()) continue;
    const fs::path rk = resolved(k);
    if (same_file(target, k) || where == rk)
      refuse(path, "is an input or the database of this command (" + k.string() + "): refusing to overwrite it");
    for (const char* suffix : kSideSuffixes) {
      fs::path p = rk;
      p += suffix;
      if (where == p || same_file(target, p))
        refuse(path, "is the " + std::string(suffix + 1) + " file of the database " + k.string() +
                         ": refusing to overwrite it");
    }
  }
  // Any other database's side file: a -wal, -shm or -journal beside an existing file is SQLite's.
  const std::string fname = where.filename().string();
  for (const char* suffix : kSideSuffixes) {
    const std::string sfx(suffix);
    if (fname.size() > sfx.size() && fname.compare(fname.size() - sfx.size(), sfx.size(), sfx) == 0) {
      const fs::path stem = where.parent_path() / fname.substr(0, fname.size() - sfx.size());
      if (fs::exists(stem, ec) || fs::exists(st))
        refuse(path, "is named as the " + sfx.substr(1) + " file of the database " + stem.string() +
                         ": refusing to write a database's side file");
    }
  }
  if (fs::exists(st) && is_sqlite_file(target)) refuse(path, "is a SQLite database: refusing to overwrite it");
}

void write_file_atomically(const fs::path& path, std::string_view text, const std::vector<fs::path>& keep) {
  write_file_atomically(path, std::span<const std::string_view>(&text, 1), keep);
}

void write_file_atomically(const fs::path& path, std::span<const std::string_view> pieces,
                           const std::vector<fs::path>& keep) {
  check_output_path(path, keep);
  std::error_code ec;
  const fs::path target = fs::exists(fs::symlink_status(path, ec)) ? fs::weakly_canonical(path, ec) : path;
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) refuse(path, "cannot create its directory " + dir.string() + ": " + ec.message());
  }
  remove_dead_writers_temporaries(dir, target.filename().string());
  static std::atomic<unsigned> counter{0};
  const fs::path tmp =
      dir / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) refuse(path, std::string("cannot write in ") + dir.string() + ": " + std::strerror(errno));
  auto fail = [&](const char* doing, int err) {
    ::close(fd);
    ::unlink(tmp.c_str());
    refuse(path, std::string("cannot write the file (") + doing + ": " + std::strerror(err) + "); it is as it was");
  };
  for (const std::string_view text : pieces)
    for (std::size_t done = 0; done < text.size();) {
      const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail("write", n < 0 ? errno : ENOSPC);
      done += static_cast<std::size_t>(n);
    }
  if (::fsync(fd) != 0) fail("fsync", errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    refuse(path, std::string("cannot write the file (close: ") + std::strerror(err) + "); it is as it was");
  }
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    const int err = errno;
    ::unlink(tmp.c_str());
    refuse(path, std::string("cannot write the file (rename: ") + std::strerror(err) + "); it is as it was");
  }
}

std::string safe_file_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    if (out.size() >= 100) break;
    const bool ok =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_';
    out += ok ? c : '_';
  }
  while (!out.empty() && out.front() == '.') out.erase(out.begin());
  return out.empty() ? "kernel" : out;
}

}  // namespace tune

#include "common/output_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <fstream>

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
bool is_sqlite_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  char head[16] = {};
  in.read(head, sizeof head);
  const auto n = static_cast<std::size_t>(in.gcount());
  if (n == 16 && std::memcmp(head, "SQLite format 3", 16) == 0) return true;
  const unsigned char* u = reinterpret_cast<const unsigned char*>(head);
  return n >= 4 && u[0] == 0x37 && u[1] == 0x7f && u[2] == 0x06 && (u[3] == 0x82 || u[3] == 0x83);
}

void write_file_atomically(const fs::path& path, std::string_view text, const std::vector<fs::path>& keep) {
  if (path.empty()) throw InputError("an output path is empty");
  std::error_code ec;
  // the file the path leads to, through symbolic links
  const fs::path target = fs::exists(fs::symlink_status(path, ec)) ? fs::weakly_canonical(path, ec) : path;
  const fs::file_status st = fs::status(target, ec);
  if (fs::exists(st) && !fs::is_regular_file(st))
    refuse(path, "is not a regular file (a directory, device, FIFO or socket): refusing to replace it");
  // the command's own database first, by name and inode only: it may be open in this process
  for (const fs::path& k : keep)
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      fs::path p = k;
      p += suffix;
      if (same_file(target, p)) refuse(path, "is the database " + p.string() + ": refusing to overwrite it");
    }
  if (fs::exists(st) && is_sqlite_file(target)) refuse(path, "is a SQLite database: refusing to overwrite it");
  const fs::path dir = target.has_parent_path() ? target.parent_path() : fs::path(".");
  if (!fs::is_directory(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) refuse(path, "cannot create its directory " + dir.string() + ": " + ec.message());
  }
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

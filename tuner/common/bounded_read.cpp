#include "common/bounded_read.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace tune {

RegularFile::RegularFile(const std::filesystem::path& path, std::string_view what)
    : name_(what.empty() ? path.string() : std::string(what) + " " + path.string()) {
  // O_NONBLOCK: opening a FIFO for reading returns at once instead of waiting for a writer.
  fd_ = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd_ < 0) {
    const int err = errno;
    throw InputError(name_ + ": " + (err == ENOENT ? std::string("no such file") : std::strerror(err)));
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    throw InputError(name_ + ": not a regular file (a directory, device or pipe)");
  }
  size_ = static_cast<std::uint64_t>(st.st_size);
  // A regular file never blocks; clear the flag so reads behave as usual.
  ::fcntl(fd_, F_SETFL, ::fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
}

RegularFile::~RegularFile() {
  if (fd_ >= 0) ::close(fd_);
}

bool RegularFile::read(void* into, std::size_t n) {
  auto* p = static_cast<char*>(into);
  while (n > 0) {
    const ssize_t got = ::read(fd_, p, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    p += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}

std::string RegularFile::read_all(std::uint64_t max_bytes) {
  if (size_ > max_bytes)
    throw InputError(name_ + ": " + std::to_string(size_) + " bytes, more than the limit of " +
                     std::to_string(max_bytes));
  std::string out(static_cast<std::size_t>(size_), '\0');
  std::size_t have = 0;
  for (;;) {  // the file may have shrunk or grown since fstat: never past the bound
    if (have == out.size()) {
      if (out.size() >= max_bytes) break;
      out.resize(std::min<std::uint64_t>(max_bytes, out.size() + 65536));
    }
    const ssize_t got = ::read(fd_, out.data() + have, out.size() - have);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) throw InputError(name_ + ": cannot be read: " + std::strerror(errno));
    if (got == 0) break;
    have += static_cast<std::size_t>(got);
  }
  char extra = 0;
  if (have == max_bytes && ::read(fd_, &extra, 1) == 1)
    throw InputError(name_ + ": more than the limit of " + std::to_string(max_bytes) + " bytes");
  out.resize(have);
  return out;
}

std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view what) {
  RegularFile f(path, what);
  return f.read_all(max_bytes);
}

std::size_t json_depth(std::string_view text, std::size_t limit) {
  std::size_t depth = 0, deepest = 0;
  bool in_string = false, escaped = false;
  for (char c : text) {
    if (in_string) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        in_string = false;
      continue;
    }
    switch (c) {
      case '"':
        in_string = true;
        break;
      case '[':
      case '{':
        if (++depth > deepest && (deepest = depth) > limit) return deepest;
        break;
      case ']':
      case '}':
        if (depth > 0) --depth;
        break;
      default:
        break;
    }
  }
  return deepest;
}

void check_json_depth(std::string_view text, std::string_view what, std::size_t limit) {
  if (json_depth(text, limit) > limit)
    throw InputError(std::string(what) + ": JSON nested more than " + std::to_string(limit) +
                     " levels deep: refusing to parse it");
}

}  // namespace tune

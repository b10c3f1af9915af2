#include "runtime/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "common/hash.h"

namespace tune::runtime::detail {

namespace {

constexpr char kMagic[10] = {'T', 'U', 'N', 'E', 'C', 'U', 'B', 'I', 'N', '\x1a'};
constexpr std::uint32_t kVersion = 1;
constexpr std::uint64_t kMaxFile = std::uint64_t{64} << 20;

// RAII file descriptor.
struct Fd {
  int fd = -1;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

bool private_to_me(const struct stat& st) {
  return st.st_uid == ::geteuid() && (st.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

void put(std::string& out, std::uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

// Reads a little-endian integer of `bytes` bytes at `pos`, advancing it; false past the end.
bool get(const std::string& in, std::size_t& pos, int bytes, std::uint64_t& v) {
  if (pos + static_cast<std::size_t>(bytes) > in.size()) return false;
  v = 0;
  for (int i = 0; i < bytes; ++i) v |= std::uint64_t{static_cast<unsigned char>(in[pos + i])} << (8 * i);
  pos += static_cast<std::size_t>(bytes);
  return true;
}

bool get_text(const std::string& in, std::size_t& pos, int len_bytes, std::uint64_t max, std::string& out) {
  std::uint64_t n = 0;
  if (!get(in, pos, len_bytes, n) || n > max || pos + n > in.size()) return false;
  out = in.substr(pos, n);
  pos += n;
  return true;
}

bool good_key(const std::string& key) {
  if (key.empty() || key.size() > 64) return false;
  for (char c : key)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

}  // namespace

std::filesystem::path DiskCache::default_dir() {
  if (const char* d = std::getenv("TUNE_CACHE_DIR"); d != nullptr && *d != 0)
    return std::string(d) == "off" ? std::filesystem::path() : std::filesystem::path(d);
  if (const char* x = std::getenv("XDG_CACHE_HOME"); x != nullptr && *x == '/')
    return std::filesystem::path(x) / "tune";
  if (const char* h = std::getenv("HOME"); h != nullptr && *h == '/')
    return std::filesystem::path(h) / ".cache" / "tune";
  return {};
}

DiskCache::DiskCache(std::filesystem::path dir) : dir_(std::move(dir)) {
  if (dir_.empty()) {
    note_ = "no cache directory (TUNE_CACHE_DIR=off, or neither it, XDG_CACHE_HOME nor HOME is set)";
    return;
  }
  std::error_code ec;
  if (!std::filesystem::exists(dir_, ec)) {
    std::filesystem::create_directories(dir_.parent_path(), ec);
    if (::mkdir(dir_.c_str(), 0700) != 0 && errno != EEXIST) {
      note_ = dir_.string() + ": cannot create the cache directory: " + std::strerror(errno);
      return;
    }
  }
  struct stat st {};
  if (::lstat(dir_.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    note_ = dir_.string() + ": not a directory (a link is not followed)";
    return;
  }
  if (!private_to_me(st)) {
    note_ = dir_.string() + ": owned by another user or writable by others: not used";
    return;
  }
  enabled_ = true;
}

std::optional<CachedCubin> DiskCache::load(const std::string& key, bool& refused) const {
  refused = false;
  if (!enabled_ || !good_key(key)) return std::nullopt;
  const std::filesystem::path path = dir_ / (key + ".cubin");
  Fd f{::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC)};
  if (f.fd < 0) {
    refused = errno == ELOOP;  // a link where a file should be
    return std::nullopt;
  }
  refused = true;
  struct stat st {};
  if (::fstat(f.fd, &st) != 0 || !S_ISREG(st.st_mode) || !private_to_me(st) || std::uint64_t(st.st_size) > kMaxFile)
    return std::nullopt;
  std::string in(static_cast<std::size_t>(st.st_size), '\0');
  std::size_t got = 0;
  while (got < in.size()) {
    const ssize_t n = ::read(f.fd, in.data() + got, in.size() - got);
    if (n <= 0) return std::nullopt;
    got += static_cast<std::size_t>(n);
  }
  if (in.size() < sizeof kMagic + 32 || std::memcmp(in.data(), kMagic, sizeof kMagic) != 0) return std::nullopt;
  const std::string body = in.substr(0, in.size() - 32);
  if (content_hash(body) != in.substr(in.size() - 32)) return std::nullopt;
  std::size_t pos = sizeof kMagic;
  std::uint64_t version = 0;
  std::string stored_key;
  CachedCubin out;
  if (!get(body, pos, 4, version) || version != kVersion) return std::nullopt;
  if (!get_text(body, pos, 4, 64, stored_key) || stored_key != key) return std::nullopt;
  if (!get_text(body, pos, 4, 4096, out.lowered_name) || out.lowered_name.empty()) return std::nullopt;
  if (!get_text(body, pos, 8, kMaxFile, out.cubin) || out.cubin.empty() || pos != body.size()) return std::nullopt;
  refused = false;
  return out;
}

void DiskCache::store(const std::string& key, const CachedCubin& cubin) const {
  if (!enabled_ || !good_key(key)) return;
  std::string body(kMagic, sizeof kMagic);
  put(body, kVersion, 4);
  put(body, key.size(), 4);
  body += key;
  put(body, cubin.lowered_name.size(), 4);
  body += cubin.lowered_name;
  put(body, cubin.cubin.size(), 8);
  body += cubin.cubin;
  body += content_hash(body);

  std::string tmp = (dir_ / (key + ".XXXXXX")).string();
  Fd f{::mkstemp(tmp.data())};  // mode 0600
  if (f.fd < 0) return;
  std::size_t put_bytes = 0;
  while (put_bytes < body.size()) {
    const ssize_t n = ::write(f.fd, body.data() + put_bytes, body.size() - put_bytes);
    if (n <= 0) break;
    put_bytes += static_cast<std::size_t>(n);
  }
  if (put_bytes != body.size() || ::fsync(f.fd) != 0 || ::rename(tmp.c_str(), (dir_ / (key + ".cubin")).c_str()) != 0)
    ::unlink(tmp.c_str());
}

}  // namespace tune::runtime::detail

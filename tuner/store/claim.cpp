#include "store/claim.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <filesystem>
#include <string>

#include "common/hash.h"
#include "store/store.h"

namespace tune::store {

namespace {

void lock(int fd, int how) {
  while (::flock(fd, how) != 0 && errno == EINTR) {}
}

bool same_inode(int fd, const std::string& path) {
  struct stat a {
  }, b{};
  return ::fstat(fd, &a) == 0 && ::stat(path.c_str(), &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

}  // namespace

Claim::Claim(std::string path) : path_(std::move(path)) {
  if (path_.empty()) return;
  // A remover unlinks the file under its exclusive lock: a process that opened it just before
  // then holds a removed file; it opens the path again (bounded: each round another process
  // made progress).
  for (int round = 0; round < 1000; ++round) {
    created_ = false;
    fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd_ < 0 && errno == ENOENT) {
      std::error_code ec;
      const std::filesystem::path parent = std::filesystem::path(path_).parent_path();
      if (!parent.empty() && std::filesystem::create_directories(parent, ec))
        fd_ = ::open(path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    }
    if (fd_ >= 0) {
      created_ = true;
    } else if (errno == EEXIST) {  // an existing file, or a symbolic link to follow
      fd_ = ::open(path_.c_str(), O_RDWR | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
      if (fd_ < 0 && (errno == EACCES || errno == EROFS || errno == EISDIR))
        fd_ = ::open(path_.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    }
    if (fd_ < 0) return;
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd_);
      fd_ = -1;
      created_ = false;
      return;
    }
    lock(fd_, LOCK_SH);
    if (same_inode(fd_, path_)) return;
    ::close(fd_);
    fd_ = -1;
  }
  created_ = false;
}

Claim::~Claim() {
  if (fd_ >= 0) ::close(fd_);  // releases the flock
}

bool Claim::remove_if_unused(const std::function<bool()>& unused) {
  if (fd_ < 0 || !created_) return false;
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) return false;  // another writer holds a claim: its file now
  if (!same_inode(fd_, path_) || !unused()) {
    lock(fd_, LOCK_SH);
    return false;
  }
  remove_database_files(path_);
  return true;
}

bool Claim::lock_work(std::string_view key) {
  if (fd_ < 0 || (::fcntl(fd_, F_GETFL) & O_ACCMODE) == O_RDONLY) return true;
  constexpr off_t kWorkLocks = off_t{1} << 62;  // far beyond any page, and SQLite's lock bytes
  struct flock l {};
  l.l_type = F_WRLCK;
  l.l_whence = SEEK_SET;
  l.l_start = kWorkLocks + static_cast<off_t>(std::stoull(content_hash(key).substr(0, 8), nullptr, 16));
  l.l_len = 1;
  while (::fcntl(fd_, F_OFD_SETLK, &l) != 0) {
    if (errno == EINTR) continue;
    return !(errno == EAGAIN || errno == EACCES);  // held by another process; other errors: no lock support
  }
  return true;
}

}  // namespace tune::store

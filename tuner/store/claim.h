// A writer's claim on a database path: which process may remove a new database that a failed
// command leaves empty.
//
// Every writing command (tune run, tune import) holds a claim for its whole life: a shared flock
// on a descriptor of the database file, taken before the database is opened and released after
// it is closed. The process that created the file (O_EXCL) may remove it after a failure only
// under an exclusive flock, which it gets only when no other writer holds a claim, and only while
// the path still names the file it created. A second first writer that opened the same new path
// meanwhile holds its claim, so the first leaves the file to it: "decided new at start-up" and
// "no measurement yet" are not ownership (a second process inside its import transaction has
// stored nothing visible yet).
//
// flock, not fcntl: a flock belongs to its own open file description, so closing this descriptor
// leaves SQLite's fcntl locks alone; the claim is released only after every connection of the
// command is closed (it outlives them), and SQLite's closing its descriptors leaves the flock.
#pragma once
#include <functional>
#include <string>
#include <string_view>

namespace tune::store {

class Claim {
 public:
  // Opens the file (creating it, and its directory, when absent) and takes the shared lock. A path
  // that cannot be opened or is not a regular file gives no claim: Store::open reports why.
  explicit Claim(std::string path);
  ~Claim();
  Claim(const Claim&) = delete;
  Claim& operator=(const Claim&) = delete;

  bool created() const { return created_; }

  // When this process created the file, no other writer holds a claim on it and `unused()`
  // (asked under the exclusive lock) says it holds nothing: removes it with its -wal, -shm and
  // -journal files. Returns whether it removed them.
  bool remove_if_unused(const std::function<bool()>& unused);

  // Claims one piece of work in this database (`key`: the kernel, device and sizes of a run) for
  // as long as this claim lives: false when another process holds the same key now. An open file
  // description lock on one byte far beyond any database page (SQLite locks bytes near 1 GiB),
  // keyed by the hash of `key`: released by the kernel when the process ends, however it ends.
  // True, claiming nothing, when there is no claim or the file is not writable (Store::open
  // refuses that file).
  bool lock_work(std::string_view key);

 private:
  std::string path_;
  int fd_ = -1;
  bool created_ = false;
};

}  // namespace tune::store

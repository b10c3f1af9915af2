// Starting a program of our own (a supervised worker, a compile server): posix_spawn with this
// process's environment, some variables set, and file actions for the child's descriptors.
#pragma once
#include <spawn.h>
#include <sys/types.h>

#include <string>
#include <vector>

namespace tune {

// The child's descriptors, arranged as posix_spawn does it; owned for the spawn's duration.
class SpawnActions {
 public:
  SpawnActions() { posix_spawn_file_actions_init(&a_); }
  ~SpawnActions() { posix_spawn_file_actions_destroy(&a_); }
  SpawnActions(const SpawnActions&) = delete;
  SpawnActions& operator=(const SpawnActions&) = delete;
  void dup2(int from, int to) { posix_spawn_file_actions_adddup2(&a_, from, to); }
  void open(int fd, const std::string& path, int flags, mode_t mode) {
    posix_spawn_file_actions_addopen(&a_, fd, path.c_str(), flags, mode);
  }
  const posix_spawn_file_actions_t* get() const { return &a_; }

 private:
  posix_spawn_file_actions_t a_;
};

struct Spawned {
  pid_t pid = -1;
  int error = 0;  // posix_spawn's error number; 0 when the child started
};

// Runs argv[0] (a path) with argv, this process's environment with every "NAME=value" of `set`
// replacing the variable NAME, and `actions`.
Spawned spawn(const std::vector<std::string>& argv, const std::vector<std::string>& set,
              const SpawnActions& actions = {});

}  // namespace tune

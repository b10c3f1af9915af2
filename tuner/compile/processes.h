// Compiling in separate processes. NVRTC compiles of one process do not run in parallel: one
// process compiles about as many configurations a second with 4 threads as with 16, while
// single-threaded processes compile side by side (docs/performance.md). So a GPU run hands its
// compiles to processes of its own binary, started as compile servers: the same compile(), the
// same results, on every core.
//
// The binary's main() calls serving() first thing, before MPI or anything else:
//
//   int main(int argc, char** argv) {
//     if (tune::compile::serving()) return tune::compile::serve();
//     ...
//   }
//
// A server that crashes (NVRTC on a hostile source, say) costs its request one retry in a new
// process, then a failed compile with the reason in its log: never the run.
#pragma once
#include <sys/types.h>

#include <condition_variable>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "compile/compile.h"

namespace tune::compile {

// Marks a compile server; its value is "<parent pid> <target to warm up for>".
inline constexpr const char* kServerEnv = "TUNE_COMPILE_SERVER";

// True in a process started as a compile server.
bool serving();

// The server's loop: requests from standard input (a socket), each answered in order, until the
// socket closes; it dies with the process that started it. Returns the exit status.
int serve();

// How to start a server: a program whose main() calls serving() first, with these arguments.
struct ServerProgram {
  std::string path = "/proc/self/exe";
  std::vector<std::string> args;
};

class CompileProcesses {
 public:
  // At most `count` servers, all started now (each warms NVRTC up for `arch` while the caller goes
  // on). Throws UnavailableError when none can be started.
  CompileProcesses(ServerProgram program, unsigned count, std::string arch);
  CompileProcesses(const CompileProcesses&) = delete;
  CompileProcesses& operator=(const CompileProcesses&) = delete;
  ~CompileProcesses();  // kills the servers

  // compile() in a server; thread-safe, up to `count` at once (more wait for a free server).
  // Throws what compile() throws; UnavailableError once stop() was called.
  CompileResult compile(const CompileRequest& request);

  // Kills every server now: compiles in progress end at once (UnavailableError), later ones too.
  void stop();

  unsigned count() const { return count_; }
  unsigned started() const;  // servers started so far, restarts included

 private:
  // One server: its process and its end of the socket. Ending it kills the process if it still
  // runs, reaps it and closes the socket.
  class Server {
   public:
    Server() = default;
    Server(pid_t pid, int fd) : pid_(pid), fd_(fd) {}
    Server(Server&& o) noexcept : pid_(std::exchange(o.pid_, -1)), fd_(std::exchange(o.fd_, -1)) {}
    Server& operator=(Server&& o) noexcept;
    Server(const Server&) = delete;
    Server& operator=(const Server&) = delete;
    ~Server() { end(); }
    std::string end();  // how it ended ("" when there was nothing to end)
    pid_t pid() const { return pid_; }
    int fd() const { return fd_; }

   private:
    pid_t pid_ = -1;
    int fd_ = -1;
  };
  Server spawn();  // under mutex_
  Server take();
  void give_back(Server s);
  std::string bury(Server s);  // the server is gone (its socket closed): reaped; says how it ended

  ServerProgram program_;
  unsigned count_;
  std::string arch_;
  mutable std::mutex mutex_;
  std::condition_variable free_;
  std::vector<Server> idle_;
  std::vector<pid_t> live_;  // every server not reaped yet, idle or busy
  unsigned started_ = 0;
  bool stopped_ = false;
};

}  // namespace tune::compile

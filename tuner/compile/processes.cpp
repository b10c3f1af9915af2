#include "compile/processes.h"

#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "common/error.h"
#include "common/spawn.h"
#include "compile/wire.h"

namespace tune::compile {

namespace {

// "<pid> <arch>" out of the server's environment; pid 0 when malformed.
std::pair<pid_t, std::string> server_env() {
  const char* v = std::getenv(kServerEnv);
  if (v == nullptr) return {0, ""};
  char* end = nullptr;
  const long pid = std::strtol(v, &end, 10);
  if (end == v || pid <= 0 || *end != ' ') return {0, ""};
  std::string arch(end + 1);
  const bool plain = !arch.empty() && arch.size() <= 16 && std::all_of(arch.begin(), arch.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
  });
  return {static_cast<pid_t>(pid), plain ? arch : ""};
}

// NVRTC's first compile in a process loads its builtins and takes 0.2 to 0.5 s: paid at start,
// while the run sets its GPU up, not by the first configuration.
void warm_up(const std::string& arch) {
  if (arch.empty()) return;
  CompileRequest q;
  q.source = "extern \"C\" __global__ void tune_warm_up(int* p) { if (p) *p = 1; }\n";
  q.source_name = "warm_up.cu";
  q.kernel_name = "tune_warm_up";
  q.arch = arch;
  try {
    (void)compile(q);
  } catch (const std::exception&) {  // the real requests will say what is wrong
  }
}

std::string describe(int status) {
  if (WIFSIGNALED(status))
    return std::string("was killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
           strsignal(WTERMSIG(status)) + ")";
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  return "ended";
}

}  // namespace

bool serving() {
  const char* v = std::getenv(kServerEnv);
  return v != nullptr && *v != '\0';
}

int serve() {
  const auto [parent, arch] = server_env();
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  if (parent == 0 || ::getppid() != parent) {  // set by hand, or the parent is gone already
    std::fprintf(stderr,
                 "tune: %s is set but this process was not started as a compile server by a tune run: unset it\n",
                 kServerEnv);
    return 2;
  }
  warm_up(arch);
  for (;;) {
    const std::optional<std::string> frame = wire::read_frame(0);
    if (!frame) return 0;
    std::string reply;
    try {
      reply = wire::encode(compile(wire::decode_request(*frame)));
    } catch (const InputError& e) {
      reply = wire::encode_error(wire::Outcome::input_error, e.what());
    } catch (const std::exception& e) {
      reply = wire::encode_error(wire::Outcome::unavailable, e.what());
    }
    if (!wire::write_frame(0, reply)) return 0;
  }
}

CompileProcesses::Server& CompileProcesses::Server::operator=(Server&& o) noexcept {
  if (this != &o) {
    end();
    pid_ = std::exchange(o.pid_, -1);
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

std::string CompileProcesses::Server::end() {
  if (fd_ >= 0) ::close(std::exchange(fd_, -1));
  if (pid_ <= 0) return "";
  const pid_t pid = std::exchange(pid_, -1);
  int status = 0;
  // A server that crashed is ending on its own (its socket closed first): its own status says why.
  for (int i = 0; i < 100; ++i) {
    const pid_t r = ::waitpid(pid, &status, WNOHANG);
    if (r == pid) return describe(status);
    if (r < 0 && errno != EINTR) return "ended";
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  ::kill(pid, SIGKILL);
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return "did not answer and was killed";
}

CompileProcesses::CompileProcesses(ServerProgram program, unsigned count, std::string arch)
    : program_(std::move(program)), count_(std::max(1u, count)), arch_(std::move(arch)) {
  std::lock_guard lock(mutex_);
  for (unsigned i = 0; i < count_; ++i) {
    try {
      idle_.push_back(spawn());
    } catch (const UnavailableError&) {
      if (idle_.empty()) throw;
      count_ = static_cast<unsigned>(idle_.size());  // as many as the machine gave
      break;
    }
  }
}

CompileProcesses::~CompileProcesses() {
  stop();
  std::lock_guard lock(mutex_);
  idle_.clear();
}

CompileProcesses::Server CompileProcesses::spawn() {
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
    throw UnavailableError(std::string("cannot start a compile process: socketpair: ") + std::strerror(errno));
  SpawnActions actions;
  actions.dup2(sv[1], 0);  // requests in, replies out
  actions.dup2(2, 1);      // nothing it prints can reach the socket
  std::vector<std::string> argv = {program_.path};
  argv.insert(argv.end(), program_.args.begin(), program_.args.end());
  const Spawned child =
      tune::spawn(argv, {std::string(kServerEnv) + "=" + std::to_string(::getpid()) + " " + arch_}, actions);
  ::close(sv[1]);
  if (child.error != 0) {
    ::close(sv[0]);
    throw UnavailableError("cannot start a compile process (" + program_.path + "): " + std::strerror(child.error));
  }
  live_.push_back(child.pid);
  ++started_;
  return Server(child.pid, sv[0]);
}

CompileProcesses::Server CompileProcesses::take() {
  std::unique_lock lock(mutex_);
  free_.wait(lock, [this] { return stopped_ || !idle_.empty() || live_.size() < count_; });
  if (stopped_) throw UnavailableError("compile processes stopped");
  if (idle_.empty()) return spawn();  // one that crashed, replaced
  Server s = std::move(idle_.back());
  idle_.pop_back();
  return s;
}

void CompileProcesses::give_back(Server s) {
  {
    std::lock_guard lock(mutex_);
    if (stopped_)
      std::erase(live_, s.pid());  // killed already: it ends when s goes, below
    else
      idle_.push_back(std::move(s));
  }
  free_.notify_one();
}

std::string CompileProcesses::bury(Server s) {
  {
    std::lock_guard lock(mutex_);  // off the list before it is reaped: stop() never signals a reused pid
    std::erase(live_, s.pid());
  }
  std::string how = s.end();
  free_.notify_one();
  return how;
}

void CompileProcesses::stop() {
  {
    std::lock_guard lock(mutex_);
    stopped_ = true;
    for (pid_t pid : live_) ::kill(pid, SIGKILL);
  }
  free_.notify_all();
}

unsigned CompileProcesses::started() const {
  std::lock_guard lock(mutex_);
  return started_;
}

CompileResult CompileProcesses::compile(const CompileRequest& request) {
  const std::string frame = wire::encode(request);
  std::string how;
  for (int attempt = 0; attempt < 2; ++attempt) {
    Server s = take();
    std::optional<std::string> reply;
    if (wire::write_frame(s.fd(), frame)) reply = wire::read_frame(s.fd());
    if (!reply) {
      how = bury(std::move(s));
      std::lock_guard lock(mutex_);
      if (stopped_) throw UnavailableError("compile processes stopped");
      continue;  // once more, in a new process: it may have been killed from outside
    }
    give_back(std::move(s));
    wire::Reply r = wire::decode_reply(*reply);
    switch (r.outcome) {
      case wire::Outcome::result:
        return std::move(r.result);
      case wire::Outcome::input_error:
        throw InputError(r.message);
      case wire::Outcome::unavailable:
        throw UnavailableError(r.message);
    }
  }
  CompileResult failed;
  failed.tag = request.tag;
  failed.lowered_name = request.kernel_name;
  failed.log = "tune: the compile process " + how +
               " while compiling this configuration, in two processes one after "
               "the other: counted as a failed compile\n";
  return failed;
}

}  // namespace tune::compile

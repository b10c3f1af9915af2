// A pool of worker threads that compile requests in parallel and hand the results back in
// completion order, so that compilation overlaps with measurement in another thread.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "compile/compile.h"

namespace tune::compile {

class CompilePool {
 public:
  using CompileFn = std::function<CompileResult(const CompileRequest&)>;

  // `workers` threads (0: std::thread::hardware_concurrency()); `fn` compiles one request
  // (compile() unless given; tests pass another).
  explicit CompilePool(unsigned workers = 0, CompileFn fn = compile);
  CompilePool(const CompilePool&) = delete;
  CompilePool& operator=(const CompilePool&) = delete;
  // Drops requests not yet started and waits for those in progress, unless abandon() was called.
  ~CompilePool();

  // Queues a request; thread-safe.
  void submit(CompileRequest request);

  // The next finished result, waiting for one; std::nullopt once every submitted request's
  // result has been taken. An exception thrown by the compile function (NVRTC unavailable) is
  // rethrown here, in the order it happened.
  std::optional<CompileResult> next();

  // A finished result if one is waiting, without blocking.
  std::optional<CompileResult> try_next();

  // Removes the queued requests that no worker has started and returns their tags (a guided search
  // replaces its compile-ahead guesses this way).
  std::vector<std::uint64_t> drop_queued();
  // Removes the queued request with this tag if no worker has started it; true when it did.
  bool withdraw(std::uint64_t tag);

  // Gives up the results not taken yet: queued requests are dropped, and a compile in progress
  // (an NVRTC call cannot be interrupted) ends on its own thread, detached, its result discarded;
  // the destructor then returns at once. A guided search's last guesses cost the user nothing so.
  // A process that ends through exit() waits for such threads first (an atexit handler); the tune
  // command ends with std::_Exit and does not (abandoned_running()).
  void abandon();

  // Submitted requests whose results have not been taken yet.
  std::size_t outstanding() const;
  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Done {
    std::optional<CompileResult> result;
    std::exception_ptr error;
  };
  // What the workers share with the pool; a detached worker keeps it alive until it ends.
  struct State {
    explicit State(CompileFn f) : fn(std::move(f)) {}
    CompileFn fn;
    std::mutex mutex;
    std::condition_variable work_ready, done_ready;
    std::deque<CompileRequest> queue;
    std::deque<Done> done;
    std::size_t outstanding = 0;
    bool stopping = false, abandoned = false;
  };
  static void work(const std::shared_ptr<State>& s);
  std::optional<CompileResult> take(std::unique_lock<std::mutex>& lock);

  std::shared_ptr<State> s_;
  std::vector<std::thread> threads_;
};

// Worker threads of abandoned pools that have not ended yet, in this process. While any runs, the
// tune command ends with std::_Exit (cli/main.cpp) rather than through static destructors that
// NVRTC's code in those threads may still use; any other process waits for them at exit.
std::size_t abandoned_running();

}  // namespace tune::compile

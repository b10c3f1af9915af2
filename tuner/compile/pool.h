// A pool of worker threads that compile requests in parallel and hand the results back in
// completion order, so that compilation overlaps with measurement in another thread.
#pragma once
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
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
  // Drops requests not yet started and waits for those in progress.
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

  // Submitted requests whose results have not been taken yet.
  std::size_t outstanding() const;
  unsigned workers() const { return static_cast<unsigned>(threads_.size()); }

 private:
  struct Done {
    std::optional<CompileResult> result;
    std::exception_ptr error;
  };
  void work();
  std::optional<CompileResult> take(std::unique_lock<std::mutex>& lock);

  CompileFn fn_;
  mutable std::mutex mutex_;
  std::condition_variable work_ready_;
  std::condition_variable done_ready_;
  std::deque<CompileRequest> queue_;
  std::deque<Done> done_;
  std::size_t outstanding_ = 0;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace tune::compile

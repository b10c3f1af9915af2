#include "compile/pool.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <utility>

namespace tune::compile {

namespace {
std::atomic<std::size_t> g_abandoned_running{0};

// At exit, before the static objects made before the first abandon() are destroyed (NVRTC's among
// them), the abandoned compiles end (a minute at most): a process that ends through exit() (a test
// binary, an application linking the library) does not destroy what they use. The tune command
// ends with std::_Exit instead (cli/main.cpp) and does not wait.
void wait_for_abandoned() {
  for (int i = 0; i < 6000 && g_abandoned_running.load() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
}
}  // namespace

std::size_t abandoned_running() { return g_abandoned_running.load(); }

CompilePool::CompilePool(unsigned workers, CompileFn fn) : s_(std::make_shared<State>(std::move(fn))) {
  if (workers == 0) workers = std::thread::hardware_concurrency();
  if (workers == 0) workers = 1;
  threads_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([s = s_] { work(s); });
}

CompilePool::~CompilePool() {
  bool abandoned = false;
  {
    std::lock_guard lock(s_->mutex);
    s_->stopping = true;
    s_->queue.clear();
    abandoned = s_->abandoned;
  }
  s_->work_ready.notify_all();
  for (auto& t : threads_) abandoned ? t.detach() : t.join();
}

void CompilePool::abandon() {
  static const bool registered = std::atexit(wait_for_abandoned) == 0;
  (void)registered;
  {
    std::lock_guard lock(s_->mutex);
    if (s_->abandoned) return;
    s_->abandoned = s_->stopping = true;
    s_->queue.clear();
    s_->done.clear();
    s_->outstanding = 0;
    g_abandoned_running += threads_.size();  // each worker takes itself off as it ends
  }
  s_->work_ready.notify_all();
  s_->done_ready.notify_all();
}

void CompilePool::submit(CompileRequest request) {
  {
    std::lock_guard lock(s_->mutex);
    if (s_->abandoned) return;
    s_->queue.push_back(std::move(request));
    ++s_->outstanding;
  }
  s_->work_ready.notify_one();
}

void CompilePool::work(const std::shared_ptr<State>& s) {
  const auto end = [&s] {  // under the lock
    if (s->abandoned) --g_abandoned_running;
  };
  for (;;) {
    CompileRequest req;
    {
      std::unique_lock lock(s->mutex);
      s->work_ready.wait(lock, [&s] { return s->stopping || !s->queue.empty(); });
      if (s->stopping) return end();
      req = std::move(s->queue.front());
      s->queue.pop_front();
    }
    Done d;
    try {
      d.result = s->fn(req);
    } catch (...) {
      d.error = std::current_exception();
    }
    {
      std::lock_guard lock(s->mutex);
      if (s->abandoned) return end();  // nobody takes it
      s->done.push_back(std::move(d));
    }
    s->done_ready.notify_one();
  }
}

std::optional<CompileResult> CompilePool::take(std::unique_lock<std::mutex>& lock) {
  Done d = std::move(s_->done.front());
  s_->done.pop_front();
  const bool last = --s_->outstanding == 0;
  lock.unlock();
  if (last) s_->done_ready.notify_all();  // wake other consumers waiting in next()
  if (d.error) std::rethrow_exception(d.error);
  return std::move(d.result);
}

std::optional<CompileResult> CompilePool::next() {
  std::unique_lock lock(s_->mutex);
  s_->done_ready.wait(lock, [this] { return !s_->done.empty() || s_->outstanding == 0; });
  if (s_->done.empty()) return std::nullopt;
  return take(lock);
}

std::optional<CompileResult> CompilePool::try_next() {
  std::unique_lock lock(s_->mutex);
  if (s_->done.empty()) return std::nullopt;
  return take(lock);
}

std::vector<std::uint64_t> CompilePool::drop_queued() {
  std::vector<std::uint64_t> tags;
  {
    std::lock_guard lock(s_->mutex);
    for (const auto& r : s_->queue) tags.push_back(r.tag);
    s_->outstanding -= s_->queue.size();
    s_->queue.clear();
  }
  s_->done_ready.notify_all();  // next() may now have nothing left to wait for
  return tags;
}

bool CompilePool::withdraw(std::uint64_t tag) {
  {
    std::lock_guard lock(s_->mutex);
    auto it = std::find_if(s_->queue.begin(), s_->queue.end(), [&](const CompileRequest& r) { return r.tag == tag; });
    if (it == s_->queue.end()) return false;
    s_->queue.erase(it);
    --s_->outstanding;
  }
  s_->done_ready.notify_all();
  return true;
}

std::size_t CompilePool::outstanding() const {
  std::lock_guard lock(s_->mutex);
  return s_->outstanding;
}

}  // namespace tune::compile

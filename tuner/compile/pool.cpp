#include "compile/pool.h"

#include <algorithm>
#include <utility>

namespace tune::compile {

CompilePool::CompilePool(unsigned workers, CompileFn fn) : fn_(std::move(fn)) {
  if (workers == 0) workers = std::thread::hardware_concurrency();
  if (workers == 0) workers = 1;
  threads_.reserve(workers);
  for (unsigned i = 0; i < workers; ++i) threads_.emplace_back([this] { work(); });
}

CompilePool::~CompilePool() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  work_ready_.notify_all();
  for (auto& t : threads_) t.join();
}

void CompilePool::submit(CompileRequest request) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(request));
    ++outstanding_;
  }
  work_ready_.notify_one();
}

void CompilePool::work() {
  for (;;) {
    CompileRequest req;
    {
      std::unique_lock lock(mutex_);
      work_ready_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      req = std::move(queue_.front());
      queue_.pop_front();
    }
    Done d;
    try {
      d.result = fn_(req);
    } catch (...) {
      d.error = std::current_exception();
    }
    {
      std::lock_guard lock(mutex_);
      done_.push_back(std::move(d));
    }
    done_ready_.notify_one();
  }
}

std::optional<CompileResult> CompilePool::take(std::unique_lock<std::mutex>& lock) {
  Done d = std::move(done_.front());
  done_.pop_front();
  const bool last = --outstanding_ == 0;
  lock.unlock();
  if (last) done_ready_.notify_all();  // wake other consumers waiting in next()
  if (d.error) std::rethrow_exception(d.error);
  return std::move(d.result);
}

std::optional<CompileResult> CompilePool::next() {
  std::unique_lock lock(mutex_);
  done_ready_.wait(lock, [this] { return !done_.empty() || outstanding_ == 0; });
  if (done_.empty()) return std::nullopt;
  return take(lock);
}

std::optional<CompileResult> CompilePool::try_next() {
  std::unique_lock lock(mutex_);
  if (done_.empty()) return std::nullopt;
  return take(lock);
}

std::vector<std::uint64_t> CompilePool::drop_queued() {
  std::vector<std::uint64_t> tags;
  {
    std::lock_guard lock(mutex_);
    for (const auto& r : queue_) tags.push_back(r.tag);
    outstanding_ -= queue_.size();
    queue_.clear();
  }
  done_ready_.notify_all();  // next() may now have nothing left to wait for
  return tags;
}

bool CompilePool::withdraw(std::uint64_t tag) {
  {
    std::lock_guard lock(mutex_);
    auto it = std::find_if(queue_.begin(), queue_.end(), [&](const CompileRequest& r) { return r.tag == tag; });
    if (it == queue_.end()) return false;
    queue_.erase(it);
    --outstanding_;
  }
  done_ready_.notify_all();
  return true;
}

std::size_t CompilePool::outstanding() const {
  std::lock_guard lock(mutex_);
  return outstanding_;
}

}  // namespace tune::compile

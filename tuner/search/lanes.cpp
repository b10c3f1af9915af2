// Strategies as lanes in lockstep (lanes.h).
#include "search/lanes.h"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace tune::search {
namespace {

// Forms the batches: lanes ask (request), the caller's thread evaluates (serve).
class Batcher {
 public:
  Batcher(Context& ctx, std::size_t lanes) : ctx_(ctx), lanes_(lanes) {}

  // A lane's first visit of `config`: answered at once when the search knows it, else behind the
  // next batch. Throws Stop when the search's budget left it out.
  std::optional<double> request(std::size_t lane, std::size_t config) {
    std::unique_lock lock(mutex_);
    if (aborted_) throw Stop{};
    if (const auto& known = ctx_.result(config)) return *known;
    Slot& s = slots_[lane];
    s.config = config;
    s.answered = false;
    ++waiting_;
    changed_.notify_all();
    changed_.wait(lock, [&] { return s.answered; });
    if (s.stop) throw Stop{};
    return s.result;
  }

  // The lane's Context, told every result the other lanes bring (while it waits).
  void attach(std::size_t lane, Context* ctx) {
    std::lock_guard lock(mutex_);
    slots_[lane].ctx = ctx;
  }

  void finished(std::size_t lane, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    slots_[lane].ctx = nullptr;
    slots_[lane].error = std::move(error);
    ++ended_;
    changed_.notify_all();
  }

  double elapsed_s() {
    std::lock_guard lock(mutex_);
    return ctx_.elapsed_s();
  }
  void hint(const std::vector<std::size_t>& configs) {
    std::lock_guard lock(mutex_);
    ctx_.hint(configs);
  }

  // The caller's thread: one batch each time every lane waits or has ended, until all have ended.
  void serve() {
    std::unique_lock lock(mutex_);
    while (true) {
      changed_.wait(lock, [&] { return waiting_ + ended_ == lanes_; });
      if (waiting_ == 0) break;
      std::vector<std::size_t> batch;
      for (const Slot& s : slots_)
        if (!s.answered) batch.push_back(s.config);
      try {
        if (!aborted_) ctx_.evaluate_batch(batch);
      } catch (const Stop&) {  // the budget: the lanes left out stop below
      } catch (...) {          // the evaluator failed: every lane stops, the error goes to the caller
        error_ = std::current_exception();
        aborted_ = true;
      }
      for (Slot& s : slots_) {
        if (s.answered) continue;
        // what the other lanes brought, so that this lane neither asks for it nor counts it
        for (std::size_t c : batch)
          if (c != s.config && s.ctx != nullptr)
            if (const auto& r = ctx_.result(c)) s.ctx->learn(c, *r);
        const auto& r = ctx_.result(s.config);
        s.stop = aborted_ || !r.has_value();
        if (r) s.result = *r;
        s.answered = true;
      }
      waiting_ = 0;
      changed_.notify_all();
    }
  }

  // Lanes that never started (a thread that could not be made) count as ended; the others stop at
  // their next request.
  void abort(std::size_t started, std::exception_ptr why) {
    std::lock_guard lock(mutex_);
    aborted_ = true;
    if (!error_) error_ = std::move(why);
    ended_ += lanes_ - started;
    changed_.notify_all();
  }

  // The evaluator's error first, else the first lane's in lane order.
  std::exception_ptr first_error() const {
    if (error_) return error_;
    for (const Slot& s : slots_)
      if (s.error) return s.error;
    return nullptr;
  }

 private:
  struct Slot {
    Context* ctx = nullptr;  // the lane's, while it runs
    std::size_t config = 0;
    bool answered = true, stop = false;
    std::optional<double> result;
    std::exception_ptr error;
  };
  Context& ctx_;
  const std::size_t lanes_;
  std::vector<Slot> slots_ = std::vector<Slot>(lanes_);
  std::size_t waiting_ = 0, ended_ = 0;
  bool aborted_ = false;
  std::exception_ptr error_;
  std::mutex mutex_;
  std::condition_variable changed_;
};

// What a lane's Context evaluates with: the batcher.
class LaneEvaluator : public Evaluator {
 public:
  LaneEvaluator(Batcher& b, std::size_t lane, bool hints) : b_(b), lane_(lane), hints_(hints) {}
  std::optional<double> evaluate(std::size_t config) override { return b_.request(lane_, config); }
  double elapsed_s() const override { return b_.elapsed_s(); }
  void prefetch(const std::vector<std::size_t>& configs) override { b_.hint(configs); }
  bool wants_prefetch() const override { return hints_; }

 private:
  Batcher& b_;
  std::size_t lane_;
  bool hints_;
};

}  // namespace

void run_lanes(const Strategy& strategy, Context& ctx) {
  const std::size_t k = ctx.batch_size();
  Budget share = ctx.budget();
  if (share.max_fevals) share.max_fevals = std::max<std::size_t>(1, (*share.max_fevals + k - 1) / k);
  std::vector<std::uint64_t> seeds;
  for (std::size_t i = 0; i < k; ++i) seeds.push_back(ctx.rng().next());
  Batcher batcher(ctx, k);
  std::vector<std::thread> threads;
  try {
    for (std::size_t i = 0; i < k; ++i)
      threads.emplace_back([&, i] {
        std::exception_ptr error;
        try {
          LaneEvaluator ev(batcher, i, ctx.wants_hints());
          Context lane(ctx.space(), ev, share, seeds[i], ctx.options(), ctx.starts());
          batcher.attach(i, &lane);
          try {
            strategy.body(lane);
          } catch (const Stop&) {}
        } catch (...) {
          error = std::current_exception();
        }
        batcher.finished(i, error);
      });
  } catch (...) {  // a thread that could not be made: the started lanes stop
    batcher.abort(threads.size(), std::current_exception());
  }
  batcher.serve();
  for (auto& t : threads) t.join();
  if (auto e = batcher.first_error()) std::rethrow_exception(e);
}

}  // namespace tune::search

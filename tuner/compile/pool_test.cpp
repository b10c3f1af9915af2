// The parallel compile pool: real NVRTC compiles, completion order, concurrency, errors.
#include "compile/pool.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <mutex>
#include <set>
#include <sstream>

#include "common/error.h"
#include "compile/source.h"

namespace tune::compile {
namespace {

using namespace std::chrono_literals;

CompileRequest fake(std::uint64_t tag) {
  CompileRequest r;
  r.tag = tag;
  return r;
}

TEST(CompilePool, CompilesRealRequestsAndReturnsEveryResult) {
  // the program as the sweep compiles it: the kernel file with its shared headers written in
  const std::string source =
      read_kernel_source(std::string(TUNE_SOURCE_DIR) + "/kernels_src/transpose.cu", "transpose.cu").text;
  CompilePool pool(4);
  EXPECT_EQ(pool.workers(), 4u);
  const int vectors[] = {1, 2, 4};
  const int rows[] = {2, 4};
  std::uint64_t tag = 0;
  for (int v : vectors)
    for (int tsy : rows) {
      CompileRequest r;
      r.source = source;
      r.source_name = "kernels_src/transpose.cu";
      r.kernel_name = "transpose";
      r.defines = {{"block_size_x", std::to_string(32 / v)},
                   {"block_size_y", "8"},
                   {"tile_size_y", std::to_string(tsy)},
                   {"vector", std::to_string(v)}};
      r.tag = tag++;
      pool.submit(std::move(r));
    }
  {
    CompileRequest r;
    r.source = source;
    r.source_name = "kernels_src/transpose.cu";
    r.kernel_name = "transpose";
    r.defines = {{"vector", "5"}};
    r.tag = tag++;
    pool.submit(std::move(r));
  }
  EXPECT_EQ(pool.outstanding(), 7u);
  std::set<std::uint64_t> seen;
  int ok = 0;
  while (auto res = pool.next()) {
    EXPECT_TRUE(seen.insert(res->tag).second) << "tag " << res->tag << " twice";
    if (res->tag == 6) {
      EXPECT_FALSE(res->ok());
    } else {
      EXPECT_TRUE(res->ok()) << res->log;
      EXPECT_EQ(res->cubin.substr(0, 4), std::string("\x7f"
                                                     "ELF"));
      ++ok;
    }
  }
  EXPECT_EQ(seen.size(), 7u);
  EXPECT_EQ(ok, 6);
  EXPECT_EQ(pool.outstanding(), 0u);
  EXPECT_FALSE(pool.next().has_value());
}

TEST(CompilePool, RunsWorkersConcurrently) {
  std::atomic<int> active{0};
  std::atomic<int> peak{0};
  CompilePool pool(4, [&](const CompileRequest& r) {
    const int now = ++active;
    int p = peak.load();
    while (now > p && !peak.compare_exchange_weak(p, now)) {}
    std::this_thread::sleep_for(60ms);
    --active;
    CompileResult res;
    res.tag = r.tag;
    return res;
  });
  for (std::uint64_t i = 0; i < 8; ++i) pool.submit(fake(i));
  int n = 0;
  while (pool.next()) ++n;
  EXPECT_EQ(n, 8);
  EXPECT_EQ(peak.load(), 4);
}

TEST(CompilePool, HandsResultsBackInCompletionOrder) {
  CompilePool pool(2, [](const CompileRequest& r) {
    std::this_thread::sleep_for(r.tag == 0 ? 300ms : 10ms);
    CompileResult res;
    res.tag = r.tag;
    return res;
  });
  for (std::uint64_t i = 0; i < 4; ++i) pool.submit(fake(i));
  std::vector<std::uint64_t> order;
  while (auto res = pool.next()) order.push_back(res->tag);
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order.back(), 0u);  // the slow one finishes last
}

TEST(CompilePool, RethrowsTheCompileFunctionsExceptionAndKeepsGoing) {
  CompilePool pool(2, [](const CompileRequest& r) -> CompileResult {
    if (r.tag == 1) throw UnavailableError("NVRTC: no builtins");
    CompileResult res;
    res.tag = r.tag;
    return res;
  });
  for (std::uint64_t i = 0; i < 3; ++i) pool.submit(fake(i));
  int results = 0;
  int errors = 0;
  for (;;) {
    try {
      if (!pool.next()) break;
      ++results;
    } catch (const UnavailableError& e) {
      EXPECT_STREQ(e.what(), "NVRTC: no builtins");
      ++errors;
    }
  }
  EXPECT_EQ(results, 2);
  EXPECT_EQ(errors, 1);
}

TEST(CompilePool, TryNextDoesNotBlockAndDestructionDropsQueuedWork) {
  std::atomic<int> started{0};
  auto pool = std::make_unique<CompilePool>(1, [&](const CompileRequest& r) {
    ++started;
    std::this_thread::sleep_for(50ms);
    CompileResult res;
    res.tag = r.tag;
    return res;
  });
  EXPECT_FALSE(pool->try_next().has_value());
  for (std::uint64_t i = 0; i < 20; ++i) pool->submit(fake(i));
  EXPECT_FALSE(pool->try_next().has_value());  // the first takes 50 ms
  const auto t0 = std::chrono::steady_clock::now();
  pool.reset();
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  EXPECT_LT(started.load(), 20);
}

// A guided search's compile-ahead: queued guesses can be dropped or one withdrawn (to compile it at
// once elsewhere); next() then waits only for what was started, and ends.
TEST(CompilePool, QueuedRequestsCanBeDroppedOrWithdrawn) {
  std::atomic<int> started{0};
  std::mutex gate;
  std::unique_lock hold(gate);  // the one worker blocks in its first request until released
  CompilePool pool(1, [&](const CompileRequest& r) {
    ++started;
    std::lock_guard wait(gate);
    CompileResult res;
    res.tag = r.tag;
    return res;
  });
  for (std::uint64_t i = 0; i < 6; ++i) pool.submit(fake(i));
  while (started.load() == 0) std::this_thread::sleep_for(1ms);  // request 0 is in progress
  EXPECT_FALSE(pool.withdraw(0));                                // started: not withdrawn
  EXPECT_TRUE(pool.withdraw(3));
  EXPECT_FALSE(pool.withdraw(3));
  EXPECT_EQ(pool.outstanding(), 5u);
  const auto dropped = pool.drop_queued();
  EXPECT_EQ(dropped, (std::vector<std::uint64_t>{1, 2, 4, 5}));
  EXPECT_EQ(pool.outstanding(), 1u);
  hold.unlock();
  auto r = pool.next();
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->tag, 0u);
  EXPECT_FALSE(pool.next().has_value());  // nothing else was left to wait for
  EXPECT_EQ(started.load(), 1);
}

// The end of a guided search: compiles still in progress are nobody's any more. abandon() lets
// the destructor return at once; the compile ends on its detached thread, its result discarded,
// and abandoned_running() counts that thread until it does.
TEST(CompilePool, AnAbandonedPoolReturnsAtOnceAndItsCompileEndsDetached) {
  struct Shared {  // outlives the pool: the detached worker still uses it
    std::mutex gate;
    std::atomic<int> started{0}, finished{0};
  };
  auto shared = std::make_shared<Shared>();
  std::unique_lock hold(shared->gate);  // the worker blocks in its first request until released
  const std::size_t before = abandoned_running();
  {
    auto pool = std::make_unique<CompilePool>(2, [shared](const CompileRequest& r) {
      ++shared->started;
      std::lock_guard wait(shared->gate);
      ++shared->finished;
      CompileResult res;
      res.tag = r.tag;
      return res;
    });
    for (std::uint64_t i = 0; i < 5; ++i) pool->submit(fake(i));
    while (shared->started.load() < 2) std::this_thread::sleep_for(1ms);  // both workers busy
    pool->abandon();
    EXPECT_EQ(pool->outstanding(), 0u);
    EXPECT_FALSE(pool->next().has_value());  // nothing left to wait for
    pool->submit(fake(9));                   // ignored: the pool is given up
    EXPECT_EQ(pool->outstanding(), 0u);
    EXPECT_EQ(abandoned_running(), before + 2);
    const auto t0 = std::chrono::steady_clock::now();
    pool.reset();  // the compiles are still blocked: a joining destructor would never return
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 500ms);
  }
  EXPECT_EQ(shared->finished.load(), 0);
  hold.unlock();  // the detached workers finish their compiles and end
  for (int i = 0; i < 2000 && abandoned_running() > before; ++i) std::this_thread::sleep_for(1ms);
  EXPECT_EQ(abandoned_running(), before);
  EXPECT_EQ(shared->started.load(), 2);  // the queued three were never started
  EXPECT_EQ(shared->finished.load(), 2);
}

}  // namespace
}  // namespace tune::compile

// The farm (farm.h): rank 0's loop over MPI messages and its own worker thread.
#include "mpi/farm.h"
#include "log/log.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <future>
#include <mutex>
#include <optional>
#include <thread>

#include "common/error.h"
#include "mpi/bytes.h"

namespace tune::mpi {

namespace {

enum Tag : int { kItem = 101, kResult = 102, kStop = 103, kBeat = 104 };
// Every rank says it is alive this often (rank 0 to the others, the others to rank 0), so a rank that
// died without a word is found (silence_limit).
constexpr auto kBeatEvery = std::chrono::seconds(1);
// How long a STOP waits for a rank already lost (it is likely dead; the stop is a courtesy).
constexpr double kStopLostWithinS = 1.0;
enum class Status : std::uint64_t { ok = 0, input_error = 1, error = 2 };

// The work of one item, its exception turned into a status and its message.
std::pair<Status, std::string> attempt(const WorkFn& work, const std::string& payload) {
  try {
    return {Status::ok, work(payload)};
  } catch (const InputError& e) {
    return {Status::input_error, e.what()};
  } catch (const std::exception& e) {
    return {Status::error, e.what()};
  }
}

std::string result_message(std::uint64_t item, Status status, const std::string& bytes) {
  return Writer().u64(item).u64(static_cast<std::uint64_t>(status)).str(bytes).take();
}

// Rank 0's own worker: a thread that takes items from an inbox and leaves results in an outbox.
class LocalWorker {
 public:
  explicit LocalWorker(const WorkFn& work) : work_(work), thread_([this] { loop(); }) {}
  ~LocalWorker() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
    }
    wake_.notify_all();
  }
  void give(std::string message) {
    {
      std::lock_guard lock(mutex_);
      inbox_.push_back(std::move(message));
    }
    wake_.notify_all();
  }
  std::optional<std::string> take() {
    std::lock_guard lock(mutex_);
    if (outbox_.empty()) return std::nullopt;
    std::string m = std::move(outbox_.front());
    outbox_.pop_front();
    return m;
  }

 private:
  void loop() {
    for (;;) {
      std::string message;
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [&] { return closed_ || !inbox_.empty(); });
        if (inbox_.empty()) return;
        message = std::move(inbox_.front());
        inbox_.pop_front();
      }
      Reader in(message);
      const std::uint64_t item = in.u64();
      const std::string payload = in.str();
      auto [status, bytes] = attempt(work_, payload);
      std::lock_guard lock(mutex_);
      outbox_.push_back(result_message(item, status, bytes));
    }
  }
  const WorkFn& work_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::string> inbox_, outbox_;
  bool closed_ = false;
  std::jthread thread_;  // last: started after the members it uses, joined before they go
};

double silence_limit() {
  const char* v = std::getenv("TUNE_MPI_SILENCE");
  if (v == nullptr || *v == '\0') return 30.0;
  char* end = nullptr;
  const double s = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(s >= 1 && s <= 86400))
    throw InputError(std::string("TUNE_MPI_SILENCE: '") + v + "' is not a number of seconds in 1..86400");
  return s;
}

// A rank whose rank 0 is gone has nobody to give its results to: it ends, and with it its worker
// process (run/isolate.h); the database holds everything rank 0 committed.
[[noreturn]] void orphaned(const World& world, double limit) {
  log::error(
      "rank {}: rank 0 has not been heard from for {:.0f} s, so it is gone; the database holds everything it "
      "committed, and the same command resumes",
      world.rank(), limit);
  std::_Exit(3);
}

}  // namespace

FarmStats farm(const World& world, const FarmPlan& plan, const PayloadFn& payload, const WorkFn& work,
               const DoneFn& done) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const int ranks = world.size();
  const double limit = silence_limit();
  // Rank 0 waits at most this long on one message, so the others hear its beats well within theirs.
  const double patience = limit / 3;
  FarmStats stats;
  stats.items.assign(static_cast<std::size_t>(ranks), 0);
  stats.busy_s.assign(static_cast<std::size_t>(ranks), 0.0);
  auto group_of_rank = [&](int r) {
    return plan.rank_group.empty() ? 0 : plan.rank_group[static_cast<std::size_t>(r)];
  };
  auto group_of_item = [&](std::size_t i) { return plan.item_group.empty() ? 0 : plan.item_group[i]; };
  std::vector<bool> busy(static_cast<std::size_t>(ranks), false), retired(busy);
  for (int r = 0; r < ranks; ++r) retired[static_cast<std::size_t>(r)] = world.lost(r);
  // A rank still in the job that may take the item.
  auto has_taker = [&](std::size_t i) {
    for (int r = 0; r < ranks; ++r)
      if (!retired[static_cast<std::size_t>(r)] && (plan.item_group.empty() || group_of_rank(r) == group_of_item(i)))
        return true;
    return false;
  };
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < plan.items; ++i) {
    if (!has_taker(i))
      throw Error("mpi: item " + std::to_string(i) + " has no rank of its group " +
                  (plan.item_group.empty() ? std::string("left") : "to run it"));
    pending.push_back(i);
  }
  // every rank counts as heard at the start: the silence limit runs from here
  std::vector<Clock::time_point> since(static_cast<std::size_t>(ranks), t0), heard(since);
  std::vector<std::size_t> holding(static_cast<std::size_t>(ranks), 0);
  std::size_t outstanding = 0;
  std::optional<std::pair<Status, std::string>> failure;
  // An item whose rank failed or was lost goes back to the queue while a rank of its group is left.
  auto requeue = [&](std::size_t item, const std::string& why) {
    if (has_taker(item))
      pending.push_front(item);
    else if (!failure)
      failure.emplace(Status::error, why);
  };
  auto end_of = [&](int r) {
    const auto i = static_cast<std::size_t>(r);
    busy[i] = false;
    --outstanding;
    stats.busy_s[i] += std::chrono::duration<double>(Clock::now() - since[i]).count();
  };
  // A rank that stopped answering (killed, its node gone): out of the job, its item back in the queue.
  auto lose = [&](int r, const std::string& how) {
    const auto i = static_cast<std::size_t>(r);
    world.lose(r);
    retired[i] = true;
    std::string why = "rank " + std::to_string(r) + ": " + how;
    log::warn("{}; it gets no more work{}", why, busy[i] ? ", and its item goes to another rank" : "");
    stats.faults.push_back(why);
    if (busy[i]) {
      end_of(r);
      requeue(holding[i], why);
    }
  };
  {
    LocalWorker local(work);
    auto hand_out = [&] {
      for (int r = 0; r < ranks && !failure; ++r) {
        const auto i = static_cast<std::size_t>(r);
        if (busy[i] || retired[i]) continue;
        auto it = std::find_if(pending.begin(), pending.end(), [&](std::size_t item) {
          return plan.item_group.empty() || group_of_item(item) == group_of_rank(r);
        });
        if (it == pending.end()) continue;
        const std::size_t item = *it;
        pending.erase(it);
        std::string message = Writer().u64(item).str(payload(item, r)).take();
        if (r == 0) {
          local.give(std::move(message));
        } else if (!world.send_within(r, kItem, std::move(message), patience)) {
          pending.push_front(item);
          lose(r, "did not take an item within " + std::to_string(static_cast<int>(patience)) + " s");
          continue;
        }
        busy[i] = true;
        since[i] = heard[i] = Clock::now();
        holding[i] = item;
        ++outstanding;
      }
    };
    auto accept = [&](int rank, const std::string& message) {
      Reader in(message);
      const std::uint64_t item = in.u64();
      const auto status = static_cast<Status>(in.u64());
      std::string bytes = in.str();
      const auto r = static_cast<std::size_t>(rank);
      end_of(rank);
      ++stats.items[r];
      if (status == Status::error) {
        retired[r] = true;
        std::string why = "rank " + std::to_string(rank) + ": " + bytes;
        stats.faults.push_back(why);
        requeue(static_cast<std::size_t>(item), why);
        return;
      }
      if (status != Status::ok) {
        if (!failure) failure.emplace(status, "rank " + std::to_string(rank) + ": " + bytes);
        return;
      }
      done(item, rank, std::move(bytes));
    };
    auto receive = [&](const Message& m) {
      heard[static_cast<std::size_t>(m.source)] = Clock::now();
      if (world.lost(m.source) || m.tag == kBeat) return;  // a lost rank's result is too late: its item went elsewhere
      if (m.cut) return lose(m.source, "died while sending its result");
      if (m.tag != kResult || !busy[static_cast<std::size_t>(m.source)])
        throw Error("mpi: rank " + std::to_string(m.source) + " sent an unexpected message");
      accept(m.source, m.bytes);
    };
    auto beat = Clock::now();
    hand_out();
    while (outstanding > 0) {
      bool any = false;
      if (auto m = world.poll(patience)) {
        receive(*m);
        any = true;
      }
      if (auto m = local.take()) {
        accept(0, *m);
        any = true;
      }
      const auto now = Clock::now();
      if (now - beat >= kBeatEvery) {  // rank 0 is alive: the others wait for it
        beat = now;
        for (int r = 1; r < ranks; ++r) {
          if (world.lost(r)) continue;
          try {
            world.send(r, kBeat, {});
          } catch (const Error& e) {  // a transport that reports a dead peer (TCP between nodes)
            lose(r, std::string("its connection failed: ") + e.what());
          }
        }
      }
      if (!any)  // every message so far is in: a rank not heard from lately is gone
        for (int r = 1; r < ranks; ++r)
          if (!retired[static_cast<std::size_t>(r)] &&
              std::chrono::duration<double>(now - heard[static_cast<std::size_t>(r)]).count() > limit)
            lose(r, "not heard from for " + std::to_string(static_cast<int>(limit)) +
                        " s (its process is gone or hangs; TUNE_MPI_SILENCE sets the limit)");
      hand_out();
      if (!any) std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  if (!failure && !pending.empty())
    failure.emplace(Status::error,
                    std::to_string(pending.size()) + " item(s) left with no rank to run them (" +
                        (stats.faults.empty() ? std::string("none of their group") : stats.faults.back()) + ")");
  for (int r = 1; r < ranks; ++r)
    if (!world.send_within(r, kStop, world.any_lost() ? "lost" : "", world.lost(r) ? kStopLostWithinS : patience) &&
        !world.lost(r))
      lose(r, "did not take the stop");
  stats.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (failure) {
    if (failure->first == Status::input_error) throw InputError(failure->second);
    throw Error(failure->second);
  }
  return stats;
}

void serve(const World& world, const WorkFn& work) {
  using Clock = std::chrono::steady_clock;
  const double limit = 2 * silence_limit();  // rank 0 may be busy merging a result a while
  auto heard = Clock::now(), beat = heard;
  // Beats both ways while this rank waits or works.
  auto keep_in_touch = [&] {
    const auto now = Clock::now();
    if (now - beat >= kBeatEvery) {
      world.send(0, kBeat, {});
      beat = now;
    }
    if (std::chrono::duration<double>(now - heard).count() > limit) orphaned(world, limit);
  };
  for (;;) {
    std::optional<Message> waiting = world.poll(limit);
    if (!waiting) {
      keep_in_touch();
      std::this_thread::sleep_for(std::chrono::microseconds(500));
      continue;
    }
    heard = Clock::now();
    Message m = std::move(*waiting);
    if (m.cut) orphaned(world, limit);
    if (m.tag == kBeat) continue;
    if (m.tag == kStop) {
      if (!m.bytes.empty()) world.forgo_finalize();  // the job lost a rank
      return;
    }
    if (m.tag != kItem) throw Error("mpi: rank 0 sent an unexpected message");
    Reader in(m.bytes);
    const std::uint64_t item = in.u64();
    const std::string payload = in.str();
    auto job = std::async(std::launch::async, [&] { return attempt(work, payload); });
    while (job.wait_for(std::chrono::milliseconds(100)) != std::future_status::ready) {
      while (auto b = world.poll(limit)) {
        if (b->tag != kBeat) throw Error("mpi: rank 0 sent a message while this rank works");
        heard = Clock::now();
      }
      keep_in_touch();
    }
    auto [status, bytes] = job.get();
    // a large result waits for rank 0 to take it: a rank 0 that died meanwhile never does
    if (!world.send_within(0, kResult, result_message(item, status, bytes), limit)) orphaned(world, limit);
  }
}

}  // namespace tune::mpi

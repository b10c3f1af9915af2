// The farm (farm.h): rank 0's loop over MPI messages and its own worker thread.
#include "mpi/farm.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <optional>
#include <thread>

#include "common/error.h"
#include "mpi/bytes.h"

namespace tune::mpi {

namespace {

enum Tag : int { kItem = 101, kResult = 102, kStop = 103 };
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

}  // namespace

FarmStats farm(const World& world, const FarmPlan& plan, const PayloadFn& payload, const WorkFn& work,
               const DoneFn& done) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  const int ranks = world.size();
  FarmStats stats;
  stats.items.assign(static_cast<std::size_t>(ranks), 0);
  stats.busy_s.assign(static_cast<std::size_t>(ranks), 0.0);
  auto group_of_rank = [&](int r) {
    return plan.rank_group.empty() ? 0 : plan.rank_group[static_cast<std::size_t>(r)];
  };
  auto group_of_item = [&](std::size_t i) { return plan.item_group.empty() ? 0 : plan.item_group[i]; };
  std::deque<std::size_t> pending;
  for (std::size_t i = 0; i < plan.items; ++i) {
    bool taker = plan.item_group.empty();
    for (int r = 0; r < ranks && !taker; ++r) taker = group_of_rank(r) == group_of_item(i);
    if (!taker) throw Error("mpi: item " + std::to_string(i) + " has no rank of its group to run it");
    pending.push_back(i);
  }
  std::vector<bool> busy(static_cast<std::size_t>(ranks), false), retired(busy);
  std::vector<Clock::time_point> since(static_cast<std::size_t>(ranks));
  std::size_t outstanding = 0;
  std::optional<std::pair<Status, std::string>> failure;
  {
    LocalWorker local(work);
    auto hand_out = [&] {
      for (int r = 0; r < ranks && !failure; ++r) {
        if (busy[static_cast<std::size_t>(r)] || retired[static_cast<std::size_t>(r)]) continue;
        auto it = std::find_if(pending.begin(), pending.end(), [&](std::size_t i) {
          return plan.item_group.empty() || group_of_item(i) == group_of_rank(r);
        });
        if (it == pending.end()) continue;
        const std::size_t item = *it;
        pending.erase(it);
        std::string message = Writer().u64(item).str(payload(item, r)).take();
        if (r == 0)
          local.give(std::move(message));
        else
          world.send(r, kItem, message);
        busy[static_cast<std::size_t>(r)] = true;
        since[static_cast<std::size_t>(r)] = Clock::now();
        ++outstanding;
      }
    };
    auto accept = [&](int rank, const std::string& message) {
      Reader in(message);
      const std::uint64_t item = in.u64();
      const auto status = static_cast<Status>(in.u64());
      std::string bytes = in.str();
      const auto r = static_cast<std::size_t>(rank);
      busy[r] = false;
      --outstanding;
      ++stats.items[r];
      stats.busy_s[r] += std::chrono::duration<double>(Clock::now() - since[r]).count();
      if (status == Status::error) {
        retired[r] = true;
        stats.faults.push_back("rank " + std::to_string(rank) + ": " + bytes);
        bool left = false;
        for (int o = 0; o < ranks && !left; ++o)
          left = !retired[static_cast<std::size_t>(o)] &&
                 (plan.item_group.empty() || group_of_rank(o) == group_of_item(static_cast<std::size_t>(item)));
        if (left) {
          pending.push_front(static_cast<std::size_t>(item));
          return;
        }
      }
      if (status != Status::ok) {
        if (!failure) failure.emplace(status, "rank " + std::to_string(rank) + ": " + bytes);
        return;
      }
      done(item, rank, std::move(bytes));
    };
    hand_out();
    while (outstanding > 0) {
      bool any = false;
      if (auto m = world.poll()) {
        if (m->tag != kResult) throw Error("mpi: rank " + std::to_string(m->source) + " sent an unexpected message");
        accept(m->source, m->bytes);
        any = true;
      }
      if (auto m = local.take()) {
        accept(0, *m);
        any = true;
      }
      if (any)
        hand_out();
      else
        std::this_thread::sleep_for(std::chrono::microseconds(200));
    }
  }
  if (!failure && !pending.empty())
    failure.emplace(Status::error,
                    std::to_string(pending.size()) + " item(s) left with no rank to run them (" +
                        (stats.faults.empty() ? std::string("none of their group") : stats.faults.back()) + ")");
  for (int r = 1; r < ranks; ++r) world.send(r, kStop, {});
  stats.wall_s = std::chrono::duration<double>(Clock::now() - t0).count();
  if (failure) {
    if (failure->first == Status::input_error) throw InputError(failure->second);
    throw Error(failure->second);
  }
  return stats;
}

void serve(const World& world, const WorkFn& work) {
  for (;;) {
    std::optional<Message> waiting;
    while (!(waiting = world.poll())) std::this_thread::sleep_for(std::chrono::microseconds(500));
    Message m = std::move(*waiting);
    if (m.tag == kStop) return;
    if (m.tag != kItem) throw Error("mpi: rank 0 sent an unexpected message");
    Reader in(m.bytes);
    const std::uint64_t item = in.u64();
    const std::string payload = in.str();
    auto [status, bytes] = attempt(work, payload);
    world.send(0, kResult, result_message(item, status, bytes));
  }
}

}  // namespace tune::mpi

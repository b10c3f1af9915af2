// The replay's writer thread: configuration ids remembered for the whole replay, one prepared
// INSERT per evaluation inside a batch transaction (store.h: no savepoint per record in a batch),
// WAL checkpoints on a thread of their own (store::Checkpointer).
#include "tuning/replay_internal.h"

#include <pthread.h>

#include <ctime>

#include "spec/spec.h"

namespace tune::tuning::detail {

namespace {
double seconds(clockid_t clock) {
  timespec t{};
  if (clock_gettime(clock, &t) != 0) return 0;
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}
}  // namespace

double thread_cpu_s() { return seconds(CLOCK_THREAD_CPUTIME_ID); }

double ReplayWriter::cpu_s() const {
  clockid_t clock{};
  if (pthread_getcpuclockid(const_cast<std::thread&>(thread_).native_handle(), &clock) != 0) return 0;
  return seconds(clock);
}

ReplayWriter::ReplayWriter(store::Store& db) : db_(db), thread_([this] { work(); }) {}

ReplayWriter::~ReplayWriter() {
  {
    std::lock_guard lock(mu_);
    stop_ = true;
    queue_.clear();
  }
  wake_.notify_one();
  thread_.join();
}

void ReplayWriter::target(ReplayTarget t) {
  std::lock_guard lock(mu_);
  target_ = std::move(t);
}

void ReplayWriter::push(std::size_t config, store::PreparedMeasurement m) {
  std::unique_lock lock(mu_);
  idle_.wait(lock, [&] { return queue_.size() < kQueueLimit || error_; });
  if (error_) std::rethrow_exception(error_);
  queue_.push_back(Item{config, std::move(m)});
  // A busy writer takes the queue when it is done; an idle one waits to be woken (once).
  const bool wake = !busy_ && queue_.size() == 1;
  lock.unlock();
  if (wake) wake_.notify_one();
}

void ReplayWriter::sync() {
  std::unique_lock lock(mu_);
  sync_ = true;
  wake_.notify_one();
  idle_.wait(lock, [&] { return (!sync_ && !busy_ && queue_.empty()) || error_; });
  if (error_) std::rethrow_exception(error_);
}

void ReplayWriter::rollback() {
  std::unique_lock lock(mu_);
  queue_.clear();
  rollback_ = true;
  wake_.notify_one();
  idle_.wait(lock, [&] { return !rollback_ && !busy_; });
  error_ = nullptr;
}

void ReplayWriter::work() {
  std::vector<Item> items;
  std::unique_lock lock(mu_);
  while (true) {
    auto ready = [&] { return stop_ || sync_ || rollback_ || !queue_.empty(); };
    if (batch_)
      wake_.wait_until(lock, deadline_, ready);  // an open batch commits on time even when idle
    else
      wake_.wait(lock, ready);
    if (stop_) break;
    items.swap(queue_);
    const bool sync = std::exchange(sync_, false), rollback = std::exchange(rollback_, false);
    const bool failed = error_ != nullptr;
    ReplayTarget target = target_;
    busy_ = true;
    lock.unlock();
    idle_.notify_all();  // room in the queue again
    std::exception_ptr error;
    try {
      if (rollback) {
        batch_.reset();
        configurations_.clear();  // ids inserted by the rolled-back batch are gone
      } else if (!failed) {
        current_ = std::move(target);
        for (auto& item : items) write(item);
        if (batch_ && (sync || Clock::now() >= deadline_)) commit();
      }
    } catch (...) {
      error = std::current_exception();
    }
    items.clear();
    lock.lock();
    if (error) error_ = error;
    busy_ = false;
    idle_.notify_all();
  }
  batch_.reset();  // stopped: what was not committed rolls back
}

void ReplayWriter::write(Item& item) {
  if (!batch_) {
    batch_.emplace(db_.batch());
    pending_ = 0;
    deadline_ =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(kBatchSeconds));
    now_ = store::utc_now();
  }
  const ReplayTarget& t = current_;
  Configurations& known = configurations_[{t.kernel, t.space_hash}];
  if (known.id.empty()) {
    // Space::params_json's text, from parts made once: ("{" or ",") "name":value per parameter.
    known.id.assign(t.space->size(), 0);
    for (std::size_t p = 0; p < t.space->num_params(); ++p) {
      known.part.emplace_back();
      const std::string name = nlohmann::json(t.space->names()[p]).dump();
      for (const auto& v : t.space->values(p)) {
        std::string part(p ? "," : "{");
        part += name;
        part += ':';
        part += spec::to_json(v).dump();
        known.part.back().push_back(std::move(part));
      }
    }
  }
  std::int64_t& id = known.id[item.config];
  if (id == 0) {
    std::string params;
    const auto idx = t.space->indices(item.config);
    for (std::size_t p = 0; p < idx.size(); ++p) params += known.part[p][idx[p]];
    params += '}';
    // Canonical already (compact nlohmann dumps in declaration order): no parse and re-dump.
    id = db_.upsert_configuration_canonical(t.kernel, t.space_hash, params);
  }
  store::Measurement& m = item.m.m;  // its identity only: the values are prepared
  m.config_id = id;
  m.run_id = t.run_id;
  m.device = t.device;
  m.size = t.size;
  m.measured_at = now_;  // the time the batch opened: within kBatchSeconds of the evaluation
  db_.record(item.m);
  if (++pending_ >= kBatchEvaluations) commit();
}

void ReplayWriter::commit() {
  batch_->commit();
  batch_.reset();
}

}  // namespace tune::tuning::detail

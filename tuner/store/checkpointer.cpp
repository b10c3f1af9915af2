#include "store/checkpointer.h"

#include <sqlite3.h>

namespace tune::store {

Checkpointer::Checkpointer(Store& store, int frames)
    : store_(store),
      frames_(frames),
      auto_frames_(static_cast<int>(store.database().query_int("PRAGMA wal_autocheckpoint"))),
      db_(store.path(), sqlite::Database::Access::read_write) {
  db_.set_busy_timeout(kBusyTimeoutMs);
  db_.query_text("PRAGMA journal_mode");  // reads the header: the connection now uses the WAL
  thread_ = std::thread([this] { work(); });
  // Replaces SQLite's automatic checkpoint (itself a WAL hook) on the writing connection.
  sqlite3_wal_hook(store_.database().get(), &Checkpointer::on_commit, this);
}

Checkpointer::~Checkpointer() {
  sqlite3_wal_autocheckpoint(store_.database().get(), auto_frames_);
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
}

std::int64_t Checkpointer::checkpoints() const {
  std::lock_guard lock(mu_);
  return checkpoints_;
}

// Called by SQLite on the committing thread, after each commit, with the WAL's size in frames.
int Checkpointer::on_commit(void* self, sqlite3*, const char*, int frames) {
  auto* c = static_cast<Checkpointer*>(self);
  if (frames >= c->frames_) {
    {
      std::lock_guard lock(c->mu_);
      c->wanted_ = true;
    }
    c->wake_.notify_one();
  }
  return SQLITE_OK;
}

void Checkpointer::work() {
  std::unique_lock lock(mu_);
  while (true) {
    wake_.wait(lock, [&] { return wanted_ || stop_; });
    if (stop_) break;
    wanted_ = false;
    lock.unlock();
    int log = 0, done = 0;
    // PASSIVE: copies what no reader still needs, never waits; SQLITE_BUSY (another checkpoint
    // under way) is no error, nor is anything else worth stopping the writer for.
    const int rc = sqlite3_wal_checkpoint_v2(db_.get(), "main", SQLITE_CHECKPOINT_PASSIVE, &log, &done);
    lock.lock();
    if (rc == SQLITE_OK && done > 0) ++checkpoints_;
  }
}

}  // namespace tune::store

// Checkpoints a Store's WAL on a thread and connection of its own while that Store writes in bulk
// (a replay), instead of the writing connection doing it inside a commit (SQLite's automatic
// checkpoint, off meanwhile; the pattern SQLite's WAL documentation describes). Copying the WAL
// into the database file, and the two fsyncs of each checkpoint, then overlap with the writer's
// work: for a replay about 2 µs per evaluation that the writer, or the final checkpoint at close,
// would otherwise spend (bench/journal.md, "Replay end to end under 10 µs per evaluation").
//
// Nothing about durability or crash safety changes: a checkpoint copies committed transactions
// only and syncs the WAL before it writes the database (synchronous=NORMAL), whichever connection
// runs it; a process killed mid-checkpoint leaves the WAL to be replayed by the next opener.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "store/sqlite.h"
#include "store/store.h"

namespace tune::store {

// Construct and destroy it while no other thread uses the Store (it sets the connection's hook).
class Checkpointer {
 public:
  // Opens its own connection (throws like sqlite::Database when it cannot: nothing is changed
  // then) and starts the thread; a passive checkpoint runs whenever a commit of `store` leaves at
  // least `frames` frames in the WAL.
  explicit Checkpointer(Store& store, int frames = 64);
  // Stops the thread (a checkpoint under way completes) and restores the Store's automatic
  // checkpoints (their threshold as it was). What is still in the WAL is checkpointed later, at the latest when the last
  // connection closes.
  ~Checkpointer();
  Checkpointer(const Checkpointer&) = delete;
  Checkpointer& operator=(const Checkpointer&) = delete;

  // Checkpoints this thread has run that copied frames into the database file.
  std::int64_t checkpoints() const;

 private:
  static int on_commit(void* self, struct sqlite3* db, const char* schema, int frames);
  void work();

  Store& store_;
  const int frames_;
  const int auto_frames_;  // the Store's automatic checkpoint threshold, restored at the end
  sqlite::Database db_;    // this thread's connection
  mutable std::mutex mu_;
  std::condition_variable wake_;
  bool wanted_ = false, stop_ = false;
  std::int64_t checkpoints_ = 0;
  std::thread thread_;  // started by the constructor once the connection is open
};

}  // namespace tune::store

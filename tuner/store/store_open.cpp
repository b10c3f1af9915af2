// Store::open: validation of an existing file, connection settings and schema migration.
// Every check that can reject a file runs before anything is written to it, and the WAL is not
// checkpointed on close meanwhile, so a rejected file is left byte-for-byte unchanged.
#include <sqlite3.h>

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <optional>
#include <system_error>

#include "store/schema.h"
#include "store/store.h"

namespace tune::store {

namespace {

namespace fs = std::filesystem;

[[noreturn]] void input_error(const std::string& path, const std::string& cause) {
  throw InputError("database " + path + " " + cause);
}

// The SQLite message without the "<path>: <doing>: " prefix Failure adds.
std::string cause_of(const sqlite::Failure& f) {
  std::string m = f.what();
  std::size_t colon = m.rfind(": ");
  return colon == std::string::npos ? m : m.substr(colon + 2);
}

// Translates what a user's file can cause; anything else propagates as it is.
[[noreturn]] void rethrow_as_input(const std::string& path, const sqlite::Failure& f) {
  switch (f.primary()) {
    case SQLITE_NOTADB:
      input_error(path, "is not a SQLite database (" + cause_of(f) + ")");
    case SQLITE_CORRUPT:
      input_error(path, "is corrupt (" + cause_of(f) + ")");
    case SQLITE_CANTOPEN:
      input_error(path, "cannot be opened (" + cause_of(f) + ")");
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      input_error(path, "is not writable (" + cause_of(f) + ")");
    case SQLITE_IOERR:
      input_error(path, "cannot be read or written (" + cause_of(f) + ")");
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      input_error(path, "is locked by another process (" + cause_of(f) + ")");
    default:
      throw f;
  }
}

enum class Check { read, write, probe };

// Checks that the file is a tune database this build can use; writes nothing.
void validate(sqlite::Database& db, Check mode) {
  const std::string& path = db.path();
  // Reading the header is the first real access: a non-database fails here with NOTADB.
  std::int64_t version = db.query_int("PRAGMA user_version");
  std::int64_t app_id = db.query_int("PRAGMA application_id");
  std::int64_t tables = db.query_int("SELECT count(*) FROM sqlite_schema");
  if (app_id != 0 && app_id != kApplicationId) {
    input_error(path, "belongs to another program (application_id " + std::to_string(app_id) + "), not tune");
  }
  if (version > schema_version()) {
    input_error(path, "has schema version " + std::to_string(version) + ", this tune supports up to " +
                          std::to_string(schema_version()) + "; upgrade tune");
  }
  if (version == 0 && tables > 0) {
    input_error(path, "is a SQLite database but not a tune database (schema version 0 with " + std::to_string(tables) +
                          " existing tables or indexes)");
  }
  // Another program's file that happens to set user_version: every tune schema has the
  // application_id and the three main tables. Detected before anything is written (WAL included).
  if (version > 0) {
    const std::int64_t ours = db.query_int(
        "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name IN ('runs', 'configurations', "
        "'measurements')");
    if (app_id != kApplicationId || ours != 3)
      input_error(path, "is a SQLite database but not a tune database (user_version " + std::to_string(version) +
                            ", application_id " + std::to_string(app_id) + ", " + std::to_string(ours) +
                            " of tune's tables); it was left as it was");
  }
  if (mode == Check::probe) return;  // older schemas and empty files are for a writer to set up
  if (mode == Check::read && version < schema_version()) {
    input_error(path, "has schema version " + std::to_string(version) + ", older than this " + "tune's " +
                          std::to_string(schema_version()) +
                          "; open it read-write (a tune command that records) to upgrade it");
  }
  if (mode == Check::write) {
    // quick_check reads every page (O(size)), catching truncation and torn pages before
    // anything is appended to a damaged file.
    std::string check = db.query_text("PRAGMA quick_check(1)");
    if (check != "ok") input_error(path, "is corrupt (quick_check: " + check + ")");
  }
}

// tune_configuration_key(kernel, space_hash, params): configuration_key() for migration 2.
void register_functions(sqlite::Database& db) {
  auto key = [](sqlite3_context* ctx, int, sqlite3_value** argv) {
    auto text = [&](int i) {
      const auto* p = reinterpret_cast<const char*>(sqlite3_value_text(argv[i]));
      return std::string_view(p != nullptr ? p : "", static_cast<std::size_t>(sqlite3_value_bytes(argv[i])));
    };
    sqlite3_result_int64(ctx, configuration_key(text(0), text(1), text(2)));
  };
  int rc = sqlite3_create_function_v2(db.get(), "tune_configuration_key", 3, SQLITE_UTF8 | SQLITE_DETERMINISTIC,
                                      nullptr, key, nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throw sqlite::Failure(rc, db.path() + ": registering tune_configuration_key");
}

// Runs with foreign keys off (migrations rebuild referenced tables); each migration checks them
// before it commits.
void migrate(sqlite::Database& db) {
  for (const Migration& m : migrations()) {
    if (db.query_int("PRAGMA user_version") >= m.version) continue;
    sqlite::Transaction tx(db);
    // Re-read under the write lock: another process may have migrated meanwhile.
    std::int64_t current = db.query_int("PRAGMA user_version");
    if (current >= m.version) {
      tx.commit();
      continue;
    }
    if (current != m.version - 1) {
      throw Error("database " + db.path() + ": cannot migrate from schema version " + std::to_string(current) + " to " +
                  std::to_string(m.version));
    }
    db.exec(m.sql);
    if (db.prepare("PRAGMA foreign_key_check").step()) {
      input_error(db.path(), "cannot be upgraded to schema version " + std::to_string(m.version) +
                                 ": it has rows whose configuration or run is missing (PRAGMA "
                                 "foreign_key_check); it was left as it was");
    }
    db.exec("PRAGMA user_version = " + std::to_string(m.version));
    tx.commit();
  }
}

// Runs of this host still marked running whose process is gone (killed: SIGKILL, a crash) are
// marked interrupted by the next writer.
void mark_interrupted_runs(sqlite::Database& db) {
  const std::string host = this_host();
  std::vector<std::int64_t> gone;
  {
    sqlite::Statement s =
        db.prepare("SELECT id, pid FROM runs WHERE status = 'running' AND host = ? AND pid IS NOT NULL");
    s.bind(1, host);
    while (s.step()) {
      const auto pid = static_cast<pid_t>(s.int64(1));
      if (pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) gone.push_back(s.int64(0));
    }
  }
  for (std::int64_t id : gone)
    db.prepare(
          "UPDATE runs SET status = 'interrupted', ended_at = coalesce(ended_at, ?) WHERE id = ? AND status = "
          "'running'")
        .bind_all(utc_now(), id)
        .run();
}

void check_path(const std::string& path, Store::Mode mode, bool& existed) {
  if (path.empty()) throw InputError("database path is empty");
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  existed = fs::exists(st);
  if (existed && fs::is_directory(st)) input_error(path, "is a directory, not a database file");
  if (!existed && mode == Store::Mode::read_only) input_error(path, "does not exist");
  if (existed && !fs::is_regular_file(st)) input_error(path, "is not a regular file");
  if (!existed) {
    fs::path parent = fs::path(path).parent_path();
    if (!parent.empty() && !fs::is_directory(parent, ec)) {
      fs::create_directories(parent, ec);
      if (ec) {
        input_error(path, "cannot be created: directory " + parent.string() + ": " + ec.message());
      }
    }
  }
}

}  // namespace

// Writers set a file up (page size, WAL, migrations) one at a time: two first runs started together
// on a new path raced there ("database is locked", or one removed the empty file the other was
// opening). An exclusive flock on the file's directory while it is set up (SetupLock).
// A read-only open that SQLite could not serve from a WAL file: neither the file nor its directory
// is writable to us and there is no -shm file to attach to.
bool cannot_share(const std::string& path) {
  std::error_code ec;
  const fs::path dir = fs::path(path).has_parent_path() ? fs::path(path).parent_path() : fs::path(".");
  return ::access(path.c_str(), W_OK) != 0 && ::access(dir.c_str(), W_OK) != 0 && !fs::exists(path + "-shm", ec);
}

// A read-only open of another account's file on which no WAL session is open (no -shm file, no
// -wal file with frames): SQLite would create -wal and -shm files owned by us, which the owner's
// writers cannot open afterwards. Everything committed is in the file itself: read it as
// immutable, creating nothing. Root is not asked: SQLite gives root's side files to the owner.
bool foreign_and_idle(const std::string& path) {
  struct stat st {};
  if (::geteuid() == 0 || ::stat(path.c_str(), &st) != 0 || st.st_uid == ::geteuid()) return false;
  std::error_code ec;
  if (fs::exists(path + "-shm", ec)) return false;
  const auto wal = fs::file_size(path + "-wal", ec);
  return ec || wal == 0;
}

class SetupLock {
 public:
  // The flock is on the file's directory, never on a second descriptor of the database file: closing
  // any descriptor of a file drops every fcntl lock this process holds on it, SQLite's included, and a
  // writer that had lost its shared lock let another process's closing connection take the file as
  // its last user, checkpoint and delete the WAL under it (two first runs on one new path: "row missing
  // from index"). The file itself is opened only to create it, when no connection of ours can have it.
  // The file is created under the lock: a writer that fails its setup removes an empty file it
  // created while still holding the lock, so no other writer can be between its creation and
  // removal (one that waited finds no file and creates its own).
  SetupLock(const std::string& path, bool& created) {
    const fs::path p(path);
    const fs::path dir = p.has_parent_path() ? p.parent_path() : fs::path(".");
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ >= 0)
      while (::flock(fd_, LOCK_EX) != 0 && errno == EINTR) {}
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    created = fd >= 0;
    if (fd >= 0) ::close(fd);
  }
  ~SetupLock() {
    if (fd_ >= 0) ::close(fd_);  // releases the flock
  }
  SetupLock(const SetupLock&) = delete;
  SetupLock& operator=(const SetupLock&) = delete;

 private:
  int fd_ = -1;
};

Store Store::open(const std::string& path, Mode mode) {
  bool existed = false;
  check_path(path, mode, existed);
  bool created = false;
  std::optional<SetupLock> setup;
  if (mode == Mode::read_write) {
    setup.emplace(path, created);
    existed = !created;
  }
  using Access = sqlite::Database::Access;
  Access access = mode == Mode::read_only ? Access::read_only
                  : existed               ? Access::read_write
                                          : Access::read_write_create;
  try {
    sqlite::Database db(path, access);
    db.set_checkpoint_on_close(false);
    db.set_busy_timeout(kBusyTimeoutMs);
    if (mode == Mode::read_write && db.read_only()) input_error(path, "is not writable");
    if (mode == Mode::read_only && (cannot_share(path) || foreign_and_idle(path))) {
      // A file only readable to us, in a directory we cannot write: SQLite cannot make the -shm
      // file a WAL reader needs. Nobody can be writing it through us; read it as immutable. Nor
      // do we make side files for another account's database (foreign_and_idle).
      db = sqlite::Database(path, Access::read_only_immutable);
      db.set_checkpoint_on_close(false);
    }
    validate(db, mode == Mode::read_only ? Check::read : Check::write);
    if (mode == Mode::read_only) {
      db.exec("PRAGMA query_only = ON");  // belt and braces: any write attempt fails
    } else {
      // A new file: 16 KB pages (SQLite's default is 4 KB). A replay writes about 1 KB per
      // evaluation; with 4 KB pages its WAL frames, checkpoints and B-tree splits cost about
      // 2 µs more per evaluation. Only settable before the first page is written.
      if (db.query_int("PRAGMA page_count") == 0) db.exec("PRAGMA page_size = 16384");
      // WAL: readers in other processes see the last committed state while we write.
      std::string journal = db.query_text("PRAGMA journal_mode = WAL");
      if (journal != "wal") {
        input_error(path, "cannot use write-ahead logging (journal_mode stays " + journal +
                              "); is it on a network file system?");
      }
      // synchronous=NORMAL in WAL mode: a commit appends to the WAL with write(2) but only
      // checkpoints fsync. Once write(2) returns, the data is in the kernel's page cache, which
      // survives the death of the process (SIGKILL, crash, OOM kill), so every committed
      // measurement is kept; only an OS crash or power loss can lose the last commits, and even
      // then the database stays consistent (WAL frames are checksummed and replayed atomically).
      db.exec("PRAGMA synchronous = NORMAL");
      register_functions(db);
      migrate(db);
      mark_interrupted_runs(db);
    }
    db.exec("PRAGMA foreign_keys = ON");
    db.set_checkpoint_on_close(true);
    return Store(std::move(db), mode);
  } catch (const sqlite::Failure& f) {
    // Do not leave behind a file this call created and could not set up (a full disk): it still
    // holds the setup lock, so no other writer has it.
    if (created) remove_database_files(path);
    rethrow_as_input(path, f);
  }
}

void Store::probe(const std::string& path) {
  if (path.empty()) throw InputError("database path is empty");
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  if (!fs::exists(st)) return;  // a writer creates it
  if (fs::is_directory(st)) input_error(path, "is a directory, not a database file");
  if (!fs::is_regular_file(st)) input_error(path, "is not a regular file");
  if (fs::file_size(path, ec) == 0) return;  // an empty file: a writer initialises it
  try {
    sqlite::Database db(path, sqlite::Database::Access::read_only);
    db.set_checkpoint_on_close(false);
    db.set_busy_timeout(kBusyTimeoutMs);
    validate(db, Check::probe);
  } catch (const sqlite::Failure& f) {
    rethrow_as_input(path, f);
  }
}

std::string this_host() {
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  return host;
}

int Store::version() const { return static_cast<int>(db_.query_int("PRAGMA user_version")); }

std::string Store::integrity_check() {
  sqlite::Statement s = db_.prepare("PRAGMA integrity_check");
  std::string out;
  while (s.step()) {
    if (!out.empty()) out += "; ";
    out += s.text(0);
  }
  return out;
}

void Store::require_writable(std::string_view what) const {
  if (mode_ == Mode::read_only) {
    throw Error("database " + path() + " was opened read-only; cannot " + std::string(what));
  }
}

void remove_database_files(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

}  // namespace tune::store

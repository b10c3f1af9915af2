#include "store/sqlite.h"

#include <sqlite3.h>

#include <sys/resource.h>
#include <sys/statvfs.h>

#include <cerrno>
#include <limits>
#include <utility>

namespace tune::sqlite {

namespace {

// Whether the file system of the database `db` is nearly full, or this process may not grow files
// (RLIMIT_FSIZE): what a failed write with no error number of its own most likely met.
bool no_room(sqlite3* db) {
  constexpr unsigned long long kLow = 64ull << 20;  // below this, a failed write is the disk's
  rlimit limit{};
  if (::getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) return true;
  const char* file = sqlite3_db_filename(db, "main");
  struct statvfs fs {};
  return file != nullptr && *file != 0 && ::statvfs(file, &fs) == 0 &&
         static_cast<unsigned long long>(fs.f_bavail) * fs.f_frsize < kLow;
}

// An I/O error whose cause the system named (or, for a failed write, no_room() shows): a full disk
// or file size limit is SQLITE_FULL, a read-only file system SQLITE_READONLY (environment_cause()
// words both).
int with_cause(int rc, sqlite3* db) {
  if (db == nullptr || (rc & 0xff) != SQLITE_IOERR) return rc;
  switch (sqlite3_system_errno(db)) {
    case ENOSPC:
    case EFBIG:
    case EDQUOT:
      return SQLITE_FULL;
    case EROFS:
      return SQLITE_READONLY;
    case 0:
      return (rc == SQLITE_IOERR_WRITE || rc == SQLITE_IOERR_TRUNCATE || rc == SQLITE_IOERR_SHMSIZE) && no_room(db)
                 ? SQLITE_FULL
                 : rc;
    default:
      return rc;
  }
}

[[noreturn]] void throw_failure(int rc, std::string_view path, std::string_view what, sqlite3* db) {
  rc = with_cause(rc, db);
  std::string message(path);
  message += ": ";
  message += what;
  message += ": ";
  const char* detail = db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  message += detail != nullptr ? detail : sqlite3_errstr(rc);
  throw Failure(rc, message);
}

std::string_view first_line(std::string_view sql) {
  std::size_t start = sql.find_first_not_of(" \n\t");
  if (start == std::string_view::npos) return {};
  sql.remove_prefix(start);
  return sql.substr(0, std::min(sql.find('\n'), std::size_t{60}));
}

}  // namespace

std::string code_name(int code) {
  const char* name = sqlite3_errstr(code);
  return name != nullptr ? name : "unknown SQLite error " + std::to_string(code);
}

// ---- Statement ----------------------------------------------------------------------------

Statement::Statement(sqlite3* db, std::string_view sql, std::string_view path) : db_(db), path_(path) {
  if (sql.size() > static_cast<std::size_t>(std::numeric_limits<int>::max())) {
    throw Failure(SQLITE_TOOBIG, std::string(path) + ": SQL text too long");
  }
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    throw_failure(rc, path, "preparing \"" + std::string(first_line(sql)) + "\"", db);
  }
}

Statement::Statement(Statement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)), db_(other.db_), path_(std::move(other.path_)) {}

Statement& Statement::operator=(Statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = std::exchange(other.stmt_, nullptr);
    db_ = other.db_;
    path_ = std::move(other.path_);
  }
  return *this;
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

void Statement::fail(int rc, std::string_view what) const {
  const char* sql = sqlite3_sql(stmt_);
  std::string context(what);
  if (sql != nullptr) context += " \"" + std::string(first_line(sql)) + "\"";
  throw_failure(rc, path_, context, db_);
}

Statement& Statement::bind(int index, std::int64_t value) {
  if (int rc = sqlite3_bind_int64(stmt_, index, value); rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

Statement& Statement::bind(int index, double value) {
  if (int rc = sqlite3_bind_double(stmt_, index, value); rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

Statement& Statement::bind(int index, std::string_view text) {
  // SQLITE_TRANSIENT: SQLite copies the text, so temporaries are safe to pass.
  int rc = sqlite3_bind_text64(stmt_, index, text.data(), text.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
  if (rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

Statement& Statement::bind(int index, Borrowed b) {
  int rc = sqlite3_bind_text64(stmt_, index, b.text.data(), b.text.size(), SQLITE_STATIC, SQLITE_UTF8);
  if (rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

Statement& Statement::bind(int index, std::nullptr_t) {
  if (int rc = sqlite3_bind_null(stmt_, index); rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

Statement& Statement::bind_blob(int index, const void* data, std::size_t size) {
  // A zero-length blob must still be a blob, not NULL: bind_zeroblob for the empty case.
  int rc = size == 0 ? sqlite3_bind_zeroblob(stmt_, index, 0)
                     : sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(rc, "binding");
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // The extended code is on the connection; sqlite3_step returns it since prepare_v2/v3.
  fail(rc, "executing");
}

void Statement::run() {
  if (step()) fail(SQLITE_MISUSE, "statement returned a row where none was expected:");
}

std::int64_t Statement::returning_int64() {
  if (!step()) fail(SQLITE_MISUSE, "statement returned no row:");
  std::int64_t value = int64(0);
  if (step()) fail(SQLITE_MISUSE, "statement returned more than one row:");
  return value;
}

void Statement::reset() {
  sqlite3_reset(stmt_);  // returns the last step's error, already reported by step()
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int column) const { return sqlite3_column_type(stmt_, column) == SQLITE_NULL; }

std::int64_t Statement::int64(int column) const { return sqlite3_column_int64(stmt_, column); }

double Statement::real(int column) const { return sqlite3_column_double(stmt_, column); }

std::optional<std::int64_t> Statement::opt_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

std::optional<double> Statement::opt_real(int column) const {
  if (is_null(column)) return std::nullopt;
  return real(column);
}

std::string Statement::text(int column) const {
  const unsigned char* p = sqlite3_column_text(stmt_, column);
  if (p == nullptr) return {};
  return std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column)));
}

std::vector<char> Statement::blob(int column) const {
  const void* p = sqlite3_column_blob(stmt_, column);
  auto n = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  if (p == nullptr || n == 0) return {};
  const char* c = static_cast<const char*>(p);
  return std::vector<char>(c, c + n);
}

int Statement::columns() const { return sqlite3_column_count(stmt_); }

// ---- Database -----------------------------------------------------------------------------

Database::Database(const std::string& path, Access access) : path_(path) {
  // Before SQLite initialises (at the first connection): no global memory statistics, whose
  // mutex every allocation would take; tune reads none of them. (SQLITE_MISUSE when SQLite was
  // initialised already: then it stays as it is.)
  static const int memstatus_off = sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  (void)memstatus_off;
  int flags = SQLITE_OPEN_NOMUTEX;  // one connection per thread; SQLite itself stays threadsafe
  std::string name = path;
  switch (access) {
    case Access::read_only:
      flags |= SQLITE_OPEN_READONLY;
      break;
    case Access::read_write:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case Access::read_write_create:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case Access::read_only_immutable: {
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
      name = "file:";
      for (char c : path) {  // the path as a URI: %, ? and # escaped
        if (c == '%' || c == '?' || c == '#') {
          static const char* hex = "0123456789ABCDEF";
          name += '%';
          name += hex[(static_cast<unsigned char>(c) >> 4) & 15];
          name += hex[static_cast<unsigned char>(c) & 15];
        } else {
          name += c;
        }
      }
      name += "?immutable=1";
      break;
    }
  }
  int rc = sqlite3_open_v2(name.c_str(), &db_, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = path + ": opening: " + (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
    sqlite3_close_v2(db_);
    db_ = nullptr;
    throw Failure(rc, message);
  }
  sqlite3_extended_result_codes(db_, 1);
}

Database::Database(Database&& other) noexcept
    : db_(std::exchange(other.db_, nullptr)),
      path_(std::move(other.path_)),
      cache_(std::move(other.cache_)),
      savepoints_(other.savepoints_) {}

Database& Database::operator=(Database&& other) noexcept {
  if (this != &other) {
    close();
    db_ = std::exchange(other.db_, nullptr);
    path_ = std::move(other.path_);
    cache_ = std::move(other.cache_);
    savepoints_ = other.savepoints_;
  }
  return *this;
}

Database::~Database() { close(); }

void Database::close() noexcept {
  cache_.clear();  // statements must be finalized before the connection closes
  if (db_ != nullptr) sqlite3_close_v2(db_);
  db_ = nullptr;
}

void Database::exec(std::string_view sql) {
  std::string copy(sql);  // sqlite3_exec needs a NUL-terminated string
  char* error = nullptr;
  int rc = sqlite3_exec(db_, copy.c_str(), nullptr, nullptr, &error);
  if (rc != SQLITE_OK) {
    std::string detail = error != nullptr ? error : sqlite3_errstr(rc);
    sqlite3_free(error);
    throw Failure(with_cause(sqlite3_extended_errcode(db_), db_),
                  path_ + ": executing \"" + std::string(first_line(sql)) + "\": " + detail);
  }
}

Statement Database::prepare(std::string_view sql) const { return Statement(db_, sql, path_); }

Lease Database::cached(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    it = cache_.emplace(std::string(sql), std::make_unique<Statement>(db_, sql, path_)).first;
  }
  return Lease(*it->second);
}

std::int64_t Database::query_int(std::string_view sql) const {
  Statement s = prepare(sql);
  if (!s.step()) throw Failure(SQLITE_ERROR, path_ + ": \"" + std::string(sql) + "\" gave no row");
  return s.int64(0);
}

std::string Database::query_text(std::string_view sql) const {
  Statement s = prepare(sql);
  if (!s.step()) throw Failure(SQLITE_ERROR, path_ + ": \"" + std::string(sql) + "\" gave no row");
  return s.text(0);
}

std::int64_t Database::last_insert_rowid() const { return sqlite3_last_insert_rowid(db_); }

int Database::changes() const { return sqlite3_changes(db_); }

bool Database::in_transaction() const { return sqlite3_get_autocommit(db_) == 0; }

bool Database::read_only() const { return sqlite3_db_readonly(db_, "main") == 1; }

void Database::set_busy_timeout(int ms) { sqlite3_busy_timeout(db_, ms); }

void Database::set_checkpoint_on_close(bool on) {
  sqlite3_db_config(db_, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, on ? 0 : 1, nullptr);
}

// ---- Transaction --------------------------------------------------------------------------

Transaction::Transaction(Database& db) : db_(&db) {
  if (db.in_transaction()) {
    savepoint_ = "tune_sp_" + std::to_string(++db.savepoints_);
    db.exec("SAVEPOINT " + savepoint_);
  } else {
    db.exec("BEGIN IMMEDIATE");
  }
}

Transaction::Transaction(Transaction&& other) noexcept
    : db_(other.db_), savepoint_(std::move(other.savepoint_)), done_(other.done_) {
  other.done_ = true;
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    if (savepoint_.empty()) {
      // A failed COMMIT or an I/O error may already have rolled back; then there is nothing.
      if (db_->in_transaction()) db_->exec("ROLLBACK");
    } else {
      db_->exec("ROLLBACK TO " + savepoint_ + "; RELEASE " + savepoint_);
      --db_->savepoints_;
    }
  } catch (const Failure&) {
    // Nothing more can be done in a destructor; SQLite rolls back when the connection closes.
  }
}

void Transaction::commit() {
  if (done_) throw Failure(SQLITE_MISUSE, db_->path() + ": transaction committed twice");
  if (savepoint_.empty()) {
    db_->exec("COMMIT");
  } else {
    db_->exec("RELEASE " + savepoint_);
    --db_->savepoints_;
  }
  done_ = true;
}

const char* environment_cause(const Failure& f) {
  switch (f.primary()) {
    case SQLITE_FULL:
      return "the disk is full (or the file reached its size limit); nothing more could be written";
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return "the database or one of its -wal, -shm or -journal files is not writable to this user "
             "(another account's reader may have created them)";
    case SQLITE_CANTOPEN:
      return "the database or one of its side files cannot be opened";
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return "the database is locked by another process";
    default:
      break;
  }
  switch (f.code()) {  // the -shm file: another account's, or on a file system without shared memory
    case SQLITE_IOERR_SHMOPEN:
    case SQLITE_IOERR_SHMSIZE:
    case SQLITE_IOERR_SHMMAP:
    case SQLITE_IOERR_SHMLOCK:
      return "the database's -shm file cannot be used by this user (another account's reader may have created "
             "it)";
    default:
      return nullptr;
  }
}

bool is_damaged_file(const Failure& f) {
  const int p = f.primary();
  return p == SQLITE_CORRUPT || p == SQLITE_NOTADB || p == SQLITE_IOERR || p == SQLITE_FORMAT;
}

}  // namespace tune::sqlite

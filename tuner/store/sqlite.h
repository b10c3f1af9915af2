// A thin RAII layer over the SQLite C API: Database owns a sqlite3*, Statement owns a
// sqlite3_stmt*, Transaction rolls back unless committed. Nothing here knows the tune schema.
//
// Failures throw sqlite::Failure (a tune::Error) carrying the SQLite result code and a one-line
// message "<path>: <what was being done>: <sqlite message>"; the store turns the ones a user can
// cause (not a database, corrupt, unwritable) into tune::InputError.
#pragma once
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

struct sqlite3;
struct sqlite3_stmt;

namespace tune::sqlite {

class Failure : public tune::Error {
 public:
  Failure(int code, const std::string& message) : tune::Error(message), code_(code) {}
  int code() const { return code_; }            // extended result code, e.g. SQLITE_NOTADB
  int primary() const { return code_ & 0xff; }  // primary result code

 private:
  int code_;
};

// A failure caused by the file itself (corrupt pages, not a database, unreadable): a bad input.
bool is_damaged_file(const Failure& f);

// What a failure says of the machine rather than of tune (a full disk, a file or side file that
// permissions keep us from writing, a lock held elsewhere), in words; nullptr for anything else.
// The README's contract: exit code 2 with one line, never "internal error".
const char* environment_cause(const Failure& f);

// Text to bind without copying it (SQLITE_STATIC): it must stay alive and unchanged until the
// statement is reset (for a cached statement: until its Lease ends).
struct Borrowed {
  std::string_view text;
};

// One prepared statement. Bind indices are 1-based (as in SQLite), column indices 0-based.
class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql, std::string_view path);
  Statement(Statement&& other) noexcept;
  Statement& operator=(Statement&& other) noexcept;
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;
  ~Statement();

  Statement& bind(int index, std::int64_t value);
  Statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  Statement& bind(int index, double value);
  Statement& bind(int index, std::string_view text);
  Statement& bind(int index, const char* text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, const std::string& text) { return bind(index, std::string_view(text)); }
  Statement& bind(int index, Borrowed text);
  Statement& bind(int index, std::nullptr_t);
  Statement& bind_blob(int index, const void* data, std::size_t size);
  template <class T>
  Statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }
  // bind_all(a, b, c) binds parameters 1, 2, 3.
  template <class... A>
  Statement& bind_all(const A&... values) {
    int index = 0;
    (bind(++index, values), ...);
    return *this;
  }

  bool step();  // true: a row is ready; false: done. Throws on error.
  void run();   // steps once and expects no row (INSERT/UPDATE/DELETE/DDL)
  // For "... RETURNING id" of exactly one row: reads it and steps to the end, so the statement
  // (and, outside a transaction, its implicit commit) is complete when this returns.
  std::int64_t returning_int64();
  void reset();  // resets and clears bindings; ends the statement's implicit read

  bool is_null(int column) const;
  std::int64_t int64(int column) const;
  double real(int column) const;
  std::optional<std::int64_t> opt_int64(int column) const;
  std::optional<double> opt_real(int column) const;
  std::string text(int column) const;  // NULL reads as ""
  std::vector<char> blob(int column) const;
  int columns() const;

  sqlite3_stmt* get() const { return stmt_; }

 private:
  [[noreturn]] void fail(int rc, std::string_view what) const;
  sqlite3_stmt* stmt_ = nullptr;
  sqlite3* db_ = nullptr;
  std::string path_;
};

// A borrowed cached statement; resets it when it goes out of scope so no read stays open
// (an unreset SELECT would pin an old WAL snapshot on this connection).
class Lease {
 public:
  explicit Lease(Statement& s) : s_(&s) {}
  Lease(const Lease&) = delete;
  Lease& operator=(const Lease&) = delete;
  ~Lease() { s_->reset(); }
  Statement* operator->() const { return s_; }
  Statement& operator*() const { return *s_; }

 private:
  Statement* s_;
};

class Database {
 public:
  // read_only_immutable: a file nobody can be writing (the caller cannot, its directory neither):
  // read without locks or a -shm file, which a read-only directory could not hold.
  enum class Access { read_only, read_write, read_write_create, read_only_immutable };
  // Opens (never creates unless read_write_create). Throws Failure.
  Database(const std::string& path, Access access);
  Database(Database&& other) noexcept;
  Database& operator=(Database&& other) noexcept;
  Database(const Database&) = delete;
  Database& operator=(const Database&) = delete;
  ~Database();

  void exec(std::string_view sql);  // one or more statements, no results
  Statement prepare(std::string_view sql) const;
  // A statement prepared once per connection and reused; reset when the lease ends.
  Lease cached(std::string_view sql);  // the text is copied only when first prepared
  // Runs a single-value query such as "PRAGMA user_version".
  std::int64_t query_int(std::string_view sql) const;
  std::string query_text(std::string_view sql) const;

  std::int64_t last_insert_rowid() const;
  int changes() const;
  bool in_transaction() const;
  bool read_only() const;  // the OS refused write access, or it was opened read_only
  void set_busy_timeout(int ms);
  // SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE: while on, closing never checkpoints the WAL into the
  // main file (used while an unknown database is being validated, so it stays unchanged).
  void set_checkpoint_on_close(bool on);
  const std::string& path() const { return path_; }
  sqlite3* get() const { return db_; }

 private:
  void close() noexcept;
  sqlite3* db_ = nullptr;
  std::string path_;
  std::map<std::string, std::unique_ptr<Statement>, std::less<>> cache_;
  int savepoints_ = 0;
  friend class Transaction;
};

// BEGIN IMMEDIATE (take the write lock now, waiting busy_timeout, so a read never has to be
// upgraded mid-transaction) ... COMMIT; rolls back in the destructor unless commit() ran.
// Nested inside an open transaction it becomes a SAVEPOINT, so an inner failure undoes only
// the inner part and the outer transaction decides what is finally committed.
class Transaction {
 public:
  explicit Transaction(Database& db);
  Transaction(Transaction&& other) noexcept;
  Transaction& operator=(Transaction&&) = delete;
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;
  ~Transaction();
  void commit();
  bool nested() const { return !savepoint_.empty(); }

 private:
  Database* db_;
  std::string savepoint_;  // empty: a top-level transaction
  bool done_ = false;
};

// Human-readable name of a result code, e.g. "SQLITE_NOTADB".
std::string code_name(int code);

}  // namespace tune::sqlite

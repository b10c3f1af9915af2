// Internal to tuner/mpi: what the distributed commands share.
#pragma once
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "mpi/farm.h"
#include "mpi/world.h"

namespace tune::mpi::detail {

// Runs `step` on every rank and agrees on the outcome: when any rank failed, rank 0 throws the
// first failure (its kind kept: InputError, UnavailableError, Error) and the others return the exit
// code the command line gives that kind; 0 when every rank succeeded.
int agree(const World& world, const std::function<void()>& step);

// A rank's scratch directory under $TMPDIR (or /tmp), removed with its contents at the end.
class Scratch {
 public:
  explicit Scratch(int rank);
  ~Scratch();
  Scratch(const Scratch&) = delete;
  Scratch& operator=(const Scratch&) = delete;
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

// A file's bytes; a database file written whole from bytes (replacing it, and any -wal/-shm
// beside it).
std::string read_file(const std::string& path);
void write_database(const std::string& path, const std::string& bytes);

// The end-of-run account of ranks that failed or were lost during farms: one line each.
void report_faults(const std::vector<FarmStats>& farms);
// What each rank did in a farm (items, busy seconds), one line each, then report_faults.
void report_ranks(const FarmStats& farm);

// `text` as an SQL string literal.
std::string sql_quote(const std::string& text);

}  // namespace tune::mpi::detail

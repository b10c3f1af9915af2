// The commands of `tune`, one function each, and the option parsing they share.
#pragma once
#include <boost/program_options.hpp>
#include <filesystem>
#include <string>

#include <vector>
#include "store/claim.h"

namespace tune::cli {

namespace po = boost::program_options;
using Args = std::vector<std::string>;

// A command's options, their help wrapped to the output width (output/output.h).
po::options_description options_for(const std::string& caption);

// Parses `args` for `command`; prints usage and returns false when --help was given. `hidden`
// options are accepted but not listed (positional arguments, options tune passes to itself).
// Throws InputError for unknown options (with the closest known one), missing required ones and
// bad values.
bool parse(const std::string& command, const std::string& usage, const Args& args,
           const po::options_description& options, po::variables_map& vm,
           const po::positional_options_description* positional = nullptr,
           const po::options_description* hidden = nullptr);

// Options every query command shares.
void add_db_option(po::options_description& options);
std::string db_path(const po::variables_map& vm);  // --db, or results/tuning.db

// The process's own arguments (argv[0] first), for commands that re-run themselves.
const Args& process_args();

// Writes an output file (common/output_file.h: atomically, a regular file only, never a
// database's file nor one of `inputs`: the command's database first, then every file it read)
// and says so on stdout; "-" writes the text to standard output.
void write_output(const std::string& path, const std::string& text, const std::vector<std::filesystem::path>& inputs);

// Prints `text` on stdout: wrapped to the terminal's width when stdout is one or COLUMNS says
// (output/output.h), else whole (a script reads the line).
void say(const std::string& text);

// A writing command that fails leaves no database behind that it created and stored nothing in:
// constructed before the database is opened (it holds the command's store::Claim on the path), it
// removes the file (and its -wal, -shm, -journal) on destruction unless dismissed, when this
// process created it, no other writer holds a claim on it and it holds no measurement.
class NewDatabaseGuard {
 public:
  explicit NewDatabaseGuard(std::string path);
  ~NewDatabaseGuard();
  NewDatabaseGuard(const NewDatabaseGuard&) = delete;
  NewDatabaseGuard& operator=(const NewDatabaseGuard&) = delete;
  void dismiss() { dismissed_ = true; }
  bool lock_work(std::string_view key) { return claim_.lock_work(key); }

 private:
  std::string path_;
  store::Claim claim_;
  bool dismissed_ = false;
};

int cmd_run(const Args& args);
int cmd_space(const Args& args);
int cmd_best(const Args& args);
int cmd_header(const Args& args);
int cmd_report(const Args& args);
int cmd_import(const Args& args);
int cmd_export(const Args& args);
int cmd_db(const Args& args);
int cmd_evaluate(const Args& args);

}  // namespace tune::cli

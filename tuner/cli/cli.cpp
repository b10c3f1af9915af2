#include "cli/cli.h"

#include "common/output_file.h"
#include "common/suggest.h"

#include "store/sqlite.h"
#include "store/store.h"

#include <spdlog/sinks/stdout_color_sinks.h>

#include <spdlog/spdlog.h>
#include <cstdlib>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "cli/commands.h"
#ifdef TUNE_HAVE_MPI
#include "mpi/world.h"
#endif
#include "common/error.h"

namespace tune::cli {

namespace {

struct Command {
  const char* name;
  int (*run)(const Args&);
  const char* summary;
};

const Command kCommands[] = {
    {"run", cmd_run, "tune a kernel over problem sizes (the default command)"},
    {"space", cmd_space, "construct a search space and print its parameters and counts"},
    {"best", cmd_best, "best configuration per device and problem size"},
    {"header", cmd_header, "generate a C++ header that selects the tuned configuration per size"},
    {"report", cmd_report, "write an HTML report of a kernel's results against the ceilings"},
    {"import", cmd_import, "import Kernel Tuner cache files and T4 results"},
    {"export", cmd_export, "export results as a Kernel Tuner cache, T4 results or CSV"},
    {"db", cmd_db, "show the database schema and contents summary"},
    {"evaluate", cmd_evaluate, "score search strategies on brute-forced caches (FGCS 2024 methodology)"},
};

void usage() {
  std::printf(
      "tune: autotune CUDA kernels over problem sizes (search spaces in Kernel Tuner's T1 format)\n\n"
      "usage: tune [COMMAND] [OPTIONS]        tune COMMAND --help for a command's options\n\n"
      "commands:\n");
  for (const auto& c : kCommands) std::printf("  %-8s %s\n", c.name, c.summary);
  std::printf(
      "\nglobal options:\n"
      "  --log-level LEVEL   trace, debug, info (default), warn, error, off\n"
      "  --help              this text\n\n"
      "examples:\n"
      "  tune --space spaces/transpose.json --sizes 128:4096\n"
      "  tune best --kernel transpose\n"
      "  tune header --kernel transpose\n");
}

// Removes --log-level from args and configures spdlog (stderr, so stdout stays machine-readable).
void setup_logging(Args& args) {
  std::string level = "info";
  for (std::size_t i = 0; i < args.size(); ++i) {
    std::string a = args[i];
    if (a == "--log-level" && i + 1 < args.size()) {
      level = args[i + 1];
      args.erase(args.begin() + i, args.begin() + i + 2);
      break;
    }
    if (a.rfind("--log-level=", 0) == 0) {
      level = a.substr(12);
      args.erase(args.begin() + i);
      break;
    }
  }
  auto lvl = spdlog::level::from_str(level);
  if (lvl == spdlog::level::off && level != "off")
    throw InputError("bad --log-level '" + level + "': expected trace, debug, info, warn, error or off");
  // Colour only on a terminal (spdlog's automatic mode), and never with NO_COLOR set (no-color.org).
  const char* no_color = std::getenv("NO_COLOR");
  auto logger = spdlog::stderr_color_mt(
      "tune", no_color != nullptr && *no_color != 0 ? spdlog::color_mode::never : spdlog::color_mode::automatic);
  logger->set_pattern("[%H:%M:%S.%e] %^%l%$ %v");
  logger->set_level(lvl);
  spdlog::set_default_logger(logger);
}

}  // namespace

NewDatabaseGuard::NewDatabaseGuard(std::string path) : path_(std::move(path)), claim_(path_) {}

NewDatabaseGuard::~NewDatabaseGuard() {
  if (dismissed_) return;
  claim_.remove_if_unused([&] {
    std::error_code ec;
    if (std::filesystem::file_size(path_, ec) == 0 && !ec) return true;  // never set up
    try {
      return store::Store::open(path_, store::Store::Mode::read_only).measurement_count() == 0;
    } catch (const std::exception&) {
      return false;  // not ours to judge: leave it
    }
  });
}

bool parse(const std::string& command, const std::string& usage_line, const Args& args,
           const po::options_description& options, po::variables_map& vm,
           const po::positional_options_description* positional) {
  po::options_description all(options);
  all.add_options()("help,h", "show this help");
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << "usage: " << usage_line << "\n\n" << all << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    throw InputError("tune " + command + ": " + e.what() + " (see tune " + command + " --help)");
  }
  return true;
}

void add_db_option(po::options_description& options) {
  options.add_options()("db", po::value<std::string>()->default_value("results/tuning.db"),
                        "SQLite database of results");
}

std::string db_path(const po::variables_map& vm) { return vm["db"].as<std::string>(); }

void write_output(const std::string& path, const std::string& text, const std::vector<std::filesystem::path>& inputs) {
  write_file_atomically(path, text, inputs);
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), text.size());
}

namespace {
Args g_process_args;
}

const Args& process_args() { return g_process_args; }

namespace {
// Whether this process reports errors: all but the ranks other than 0 of an MPI run, which fail
// alike on the same input and leave the report to rank 0.
bool report_errors() {
#ifdef TUNE_HAVE_MPI
  if (const mpi::World* w = mpi::world(); w != nullptr && w->rank() != 0) return false;
#endif
  return true;
}
}  // namespace

int main(int argc, char** argv) {
  g_process_args.assign(argv, argv + argc);
  Args args(argv + 1, argv + argc);
  try {
    setup_logging(args);
#ifdef TUNE_HAVE_MPI
    // The ranks of an MPI run other than 0 say only what goes wrong; rank 0 reports the run.
    if (const mpi::World* w = mpi::world();
        w != nullptr && w->rank() != 0 && spdlog::get_level() == spdlog::level::info)
      spdlog::set_level(spdlog::level::warn);
#endif
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
      usage();
      return args.empty() ? 2 : 0;
    }
    if (args[0] == "--version") {
      std::printf("tune 0.1.0\n");
      return 0;
    }
    const Command* cmd = &kCommands[0];  // options first: `tune --space ...` is `tune run ...`
    if (args[0].rfind('-', 0) != 0) {
      cmd = nullptr;
      for (const auto& c : kCommands)
        if (args[0] == c.name) cmd = &c;
      if (!cmd) {
        std::vector<std::string_view> names;
        for (const auto& c : kCommands) names.emplace_back(c.name);
        throw InputError("unknown command '" + args[0] + "'" + did_you_mean(args[0], names) + " (see tune --help)");
      }
      args.erase(args.begin());
    }
    return cmd->run(args);
  } catch (const UnavailableError& e) {
    if (report_errors()) std::fprintf(stderr, "tune: %s\n", e.what());
    return 3;
  } catch (const InputError& e) {
    if (report_errors()) std::fprintf(stderr, "tune: error: %s\n", e.what());
    return 2;
  } catch (const sqlite::Failure& e) {
    // a damaged file found after it was opened (a page read by a query): the input's fault
    if (const char* cause = sqlite::environment_cause(e)) {  // the machine's state, not tune's fault
      if (report_errors()) std::fprintf(stderr, "tune: error: %s: %s\n", cause, e.what());
      return 2;
    }
    if (sqlite::is_damaged_file(e)) {
      if (report_errors()) std::fprintf(stderr, "tune: error: the database is damaged: %s\n", e.what());
      return 2;
    }
    if (report_errors()) std::fprintf(stderr, "tune: internal error: %s\n", e.what());
    return 1;
  } catch (const std::exception& e) {
    if (report_errors()) std::fprintf(stderr, "tune: internal error: %s\n", e.what());
    return 1;
  }
}

}  // namespace tune::cli

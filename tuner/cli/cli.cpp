#include "cli/cli.h"
#include "log/log.h"

#include "common/output_file.h"
#include "common/suggest.h"
#include "output/output.h"

#include "store/sqlite.h"
#include "store/store.h"

#include <cstdlib>

#include <unistd.h>

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
      "  --version           the version of tune\n"
      "  --help              this text\n\n"
      "examples:\n"
      "  tune --space spaces/transpose.json --sizes 128:4096\n"
      "  tune --space spaces/transpose.json --replay results/recorded/transpose/*.json.gz   (no GPU)\n"
      "  tune best --kernel transpose\n"
      "  tune header --kernel transpose\n");
}

// Removes --log-level from args and configures the log (stderr, so stdout stays machine-readable).
void setup_logging(Args& args) {
  std::string level = "info";
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string a = args[i];
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
  const auto lvl = log::parse_level(level);
  if (!lvl) {
    throw InputError("bad --log-level '" + level + "'" + did_you_mean(level, log::level_names()) +
                     ": expected trace, debug, info, warn, error or off");
  }
  // Colour only on a terminal, and never with NO_COLOR set (no-color.org).
  const char* no_color = std::getenv("NO_COLOR");
  log::setup(*lvl, no_color == nullptr || *no_color == 0);
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

namespace {

// The long names of `options`, as "--name".
std::vector<std::string> option_names(const po::options_description& options) {
  std::vector<std::string> names;
  for (const auto& o : options.options()) names.push_back("--" + o->long_name());
  return names;
}

// " (did you mean '--X'?)" for an unknown option (given with or without its value).
std::string option_hint(const std::string& given, const po::options_description& options) {
  const std::string name = given.substr(0, given.find('='));
  const auto names = option_names(options);
  const std::vector<std::string_view> known(names.begin(), names.end());
  return did_you_mean(name, known);
}

}  // namespace

po::options_description options_for(const std::string& caption) {
  const auto width = static_cast<unsigned>(output::width());
  return po::options_description(caption, width, width / 2);
}

bool parse(const std::string& command, const std::string& usage_line, const Args& args,
           const po::options_description& options, po::variables_map& vm,
           const po::positional_options_description* positional, const po::options_description* hidden) {
  po::options_description visible(options);
  visible.add_options()("help,h", "show this help");
  po::options_description all(visible);
  if (hidden) all.add(*hidden);
  try {
    po::command_line_parser parser(args);
    parser.options(all);
    if (positional) parser.positional(*positional);
    po::store(parser.run(), vm);
    if (vm.count("help")) {
      std::cout << "usage:";
      for (const auto& line : output::wrap(usage_line, output::width() - 7, 4)) std::cout << " " << line << "\n";
      std::cout << "\n" << visible << "\n";
      return false;
    }
    po::notify(vm);
  } catch (const po::unknown_option& e) {
    throw InputError("tune " + command + ": " + e.what() + option_hint(e.get_option_name(), all) + " (see tune " +
                     command + " --help)");
  } catch (const po::too_many_positional_options_error&) {
    const std::string first = [&] {
      for (const auto& a : args)
        if (a.rfind('-', 0) != 0) return a;
      return std::string();
    }();
    throw InputError("tune " + command + ": unexpected argument '" + first + "' (see tune " + command + " --help)");
  } catch (const po::error& e) {
    throw InputError("tune " + command + ": " + e.what() + " (see tune " + command + " --help)");
  }
  return true;
}

void add_db_option(po::options_description& options) {
  options.add_options()("db", po::value<std::string>()->default_value("results/tuning.db")->value_name("FILE"),
                        "SQLite database of results");
}

std::string db_path(const po::variables_map& vm) { return vm["db"].as<std::string>(); }

void write_output(const std::string& path, const std::string& text, const std::vector<std::filesystem::path>& inputs) {
  if (path == "-") {
    std::fwrite(text.data(), 1, text.size(), stdout);
    std::fflush(stdout);
    return;
  }
  write_file_atomically(path, text, inputs);
  say("wrote " + path + " (" + std::to_string(text.size()) + " bytes)");
}

void say(const std::string& text) {
  const std::size_t width = output::terminal_width(STDOUT_FILENO);
  if (width == 0) {  // a script reads it: whole lines
    std::printf("%s\n", text.c_str());
    return;
  }
  for (const auto& line : output::wrap(text, std::max(width, output::kMinWidth))) std::printf("%s\n", line.c_str());
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

// An error on stderr: `prefix` and the message, one line (a script greps it whole), wrapped to
// the width of a terminal (continuation lines indented) when stderr is one or COLUMNS says.
// A value echoed from the input is cut when it is longer than any word a person reads.
void report(const char* prefix, const std::string& full_message) {
  if (!report_errors()) return;
  const std::string message = output::elide_long_words(full_message);
  const std::size_t width = output::terminal_width(STDERR_FILENO);
  std::size_t start = 0;
  for (bool first = true; start <= message.size(); first = false) {
    const std::size_t end = std::min(message.find('\n', start), message.size());
    const std::string paragraph = (first ? std::string(prefix) : std::string()) + message.substr(start, end - start);
    if (width == 0)
      std::fprintf(stderr, "%s\n", paragraph.c_str());
    else
      for (const auto& line : output::wrap(paragraph, std::max(width, output::kMinWidth)))
        std::fprintf(stderr, "%s\n", line.c_str());
    start = end + 1;
  }
}
}  // namespace

int main(int argc, char** argv) {
  g_process_args.assign(argv, argv + argc);
  Args args(argv + 1, argv + argc);
  try {
    setup_logging(args);
#ifdef TUNE_HAVE_MPI
    // The ranks of an MPI run other than 0 say only what goes wrong; rank 0 reports the run.
    if (const mpi::World* w = mpi::world(); w != nullptr && w->rank() != 0 && log::level() == log::Level::info)
      log::set_level(log::Level::warn);
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
    report("tune: ", e.what());
    return 3;
  } catch (const InputError& e) {
    report("tune: error: ", e.what());
    return 2;
  } catch (const sqlite::Failure& e) {
    // a damaged file found after it was opened (a page read by a query): the input's fault
    if (const char* cause = sqlite::environment_cause(e)) {  // the machine's state, not tune's fault
      report((std::string("tune: error: ") + cause + ": ").c_str(), e.what());
      return 2;
    }
    if (sqlite::is_damaged_file(e)) {
      report("tune: error: the database is damaged: ", e.what());
      return 2;
    }
    report("tune: internal error: ", e.what());
    return 1;
  } catch (const std::exception& e) {
    report("tune: internal error: ", e.what());
    return 1;
  }
}

}  // namespace tune::cli

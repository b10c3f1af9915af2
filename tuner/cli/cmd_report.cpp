// tune report: a self-contained HTML page of a kernel's results against the ceilings.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "common/error.h"
#include "query/query.h"
#include "report/report.h"

namespace tune::cli {

int cmd_report(const Args& args) {
  po::options_description opts("tune report options");
  opts.add_options()("kernel", po::value<std::string>(), "kernel name (optional if the database holds one)")(
      "out", po::value<std::string>(), "output file (default results/<kernel>_report.html)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("report", "tune report --kernel K [--out FILE.html] [--db FILE]", args, opts, vm)) return 0;
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  std::optional<std::string> k;
  if (vm.count("kernel")) k = vm["kernel"].as<std::string>();
  std::string kernel = query::resolve_kernel(db, k);
  std::string page = report::html(db, kernel);
  std::filesystem::path out = vm.count("out") ? std::filesystem::path(vm["out"].as<std::string>())
                                              : std::filesystem::path("results") / (kernel + "_report.html");
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::ofstream f(out, std::ios::binary);
  if (!f || !(f << page) || !f.flush()) throw InputError(out.string() + ": cannot write the report");
  std::printf("wrote %s (%zu bytes)\n", out.c_str(), page.size());
  return 0;
}

}  // namespace tune::cli

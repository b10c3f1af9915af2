// tune report: a self-contained HTML page of a kernel's results against the ceilings.
#include "cli/commands.h"
#include "common/output_file.h"
#include "query/query.h"
#include "report/report.h"

namespace tune::cli {

int cmd_report(const Args& args) {
  po::options_description opts = options_for("tune report options");
  opts.add_options()("kernel", po::value<std::string>()->value_name("NAME"),
                     "kernel name (optional if the database holds one)")(
      "out", po::value<std::string>()->value_name("FILE"),
      "output file, - for standard output (default results/<kernel>_report.html)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("report", "tune report [--kernel NAME] [--out FILE] [--db FILE]", args, opts, vm)) return 0;
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  std::optional<std::string> k;
  if (vm.count("kernel")) k = vm["kernel"].as<std::string>();
  std::string kernel = query::resolve_kernel(db, k);
  std::string page = report::html(db, kernel);
  write_output(vm.count("out") ? vm["out"].as<std::string>() : "results/" + safe_file_name(kernel) + "_report.html",
               page, {db_path(vm)});
  return 0;
}

}  // namespace tune::cli

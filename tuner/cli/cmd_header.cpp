// tune header: regenerate results/headers/<kernel>_tuned.h from the database.
#include "cli/commands.h"
#include "common/output_file.h"
#include "header/header.h"
#include "query/query.h"

namespace tune::cli {

int cmd_header(const Args& args) {
  po::options_description opts("tune header options");
  opts.add_options()("kernel", po::value<std::string>(), "kernel name (optional if the database holds one)")(
      "out", po::value<std::string>(), "output file (default results/headers/<kernel>_tuned.h)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("header", "tune header --kernel K [--out FILE] [--db FILE]", args, opts, vm)) return 0;

  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  std::optional<std::string> k;
  if (vm.count("kernel")) k = vm["kernel"].as<std::string>();
  std::string kernel = query::resolve_kernel(db, k);
  std::string text = header::generate(db, {kernel, db_path(vm)});
  write_output(vm.count("out") ? vm["out"].as<std::string>() : "results/headers/" + safe_file_name(kernel) + "_tuned.h",
               text, db_path(vm));
  return 0;
}

}  // namespace tune::cli

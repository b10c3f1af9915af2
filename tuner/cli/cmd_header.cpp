// tune header: regenerate results/headers/<kernel>_tuned.h from the database.
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.h"
#include "common/error.h"
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
  std::filesystem::path out = vm.count("out") ? std::filesystem::path(vm["out"].as<std::string>())
                                              : std::filesystem::path("results/headers") / (kernel + "_tuned.h");
  std::error_code ec;
  if (out.has_parent_path()) std::filesystem::create_directories(out.parent_path(), ec);
  std::filesystem::path tmp = out.string() + ".tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    if (!f || !(f << text) || !f.flush()) throw InputError(out.string() + ": cannot write the header");
  }
  std::filesystem::rename(tmp, out, ec);
  if (ec) throw InputError(out.string() + ": cannot write the header: " + ec.message());
  std::printf("wrote %s (%zu bytes)\n", out.c_str(), text.size());
  return 0;
}

}  // namespace tune::cli

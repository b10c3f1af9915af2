// tune header: the generated files of a tuned kernel (header/header.h), from the database and
// the kernel's spec: <kernel>_tuned.h (default), <kernel>_dispatch.cuh (--dispatch) or
// <kernel>_table.json (--table, for the runtime library), under results/headers/ unless --out.
#include <filesystem>

#include "cli/commands.h"
#include "common/error.h"
#include "common/output_file.h"
#include "compile/source.h"
#include "decision/objective.h"
#include "header/header.h"
#include "header/text.h"
#include "query/query.h"
#include "spec/spec.h"

namespace tune::cli {

namespace {

// The kernel's program with its shared headers written in, without #line directives: the dispatch
// header's body stands alone in the application's build.
std::string read_source(const spec::Spec& spec) {
  compile::SourceOptions options;
  options.line_markers = false;
  return compile::read_kernel_source(spec.kernel.file_path, spec.path.string() + ": KernelFile", options).text;
}

}  // namespace

int cmd_header(const Args& args) {
  po::options_description opts = options_for("tune header options");
  opts.add_options()("kernel", po::value<std::string>()->value_name("NAME"),
                     "kernel name (optional if the database holds one)")(
      "space", po::value<std::string>()->value_name("SPEC"),
      "the kernel's T1 spec (default: the spec its runs recorded, if that file is unchanged)")(
      "dispatch", po::bool_switch(), "write <kernel>_dispatch.cuh: every tuned configuration compiled by nvcc")(
      "table", po::bool_switch(), "write <kernel>_table.json: the tables for the runtime library")(
      "out", po::value<std::string>()->value_name("FILE"),
      "output file, - for standard output (default: <kernel>_tuned.h, _dispatch.cuh or _table.json in "
      "results/headers/)")("objective", po::value<std::string>()->default_value("time")->value_name("time|energy|edp"),
                           "what the tables choose for: time, energy per launch or their product (measured energy)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("header",
             "tune header [--kernel NAME] [--space SPEC] [--dispatch | --table] [--objective time|energy|edp] "
             "[--out FILE] [--db FILE]",
             args, opts, vm))
    return 0;
  const bool dispatch = vm["dispatch"].as<bool>(), table = vm["table"].as<bool>();
  const decision::Objective objective = decision::parse_objective(vm["objective"].as<std::string>());
  if (dispatch && table) throw InputError("tune header: --dispatch and --table write different files: give one");

  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  std::optional<std::string> k;
  if (vm.count("kernel")) k = vm["kernel"].as<std::string>();
  const std::string kernel = query::resolve_kernel(db, k);
  std::string space =
      vm.count("space") ? vm["space"].as<std::string>() : header::recorded_spec(db, kernel, db_path(vm));
  if (space.empty())
    throw InputError("tune header: no spec for kernel '" + header::comment(kernel) +
                     "': its runs recorded none that is still there unchanged; give --space FILE");
  const spec::Spec spec = spec::load(space);
  const std::string stem = "results/headers/" + header::file_stem(kernel);
  const std::string out = vm.count("out") ? vm["out"].as<std::string>()
                          : dispatch      ? stem + "_dispatch.cuh"
                          : table         ? stem + "_table.json"
                                          : stem + "_tuned.h";
  std::vector<std::filesystem::path> inputs{db_path(vm), spec.path};
  for (const auto& f : compile::kernel_files(spec.kernel.file_path)) inputs.push_back(f);
  check_output_path(out, inputs);  // before any work
  const header::Model model = header::build(db, kernel, spec, objective);
  if (model.devices.empty() && decision::needs_energy(objective))
    throw InputError("tune header --objective " + std::string(decision::to_string(objective)) +
                     ": no energy measured for " + header::comment(kernel) + " in " + db_path(vm) +
                     ": run `tune --objective energy ...` on a GPU, or import a Kernel Tuner cache with nvml_energy");

  std::string text;
  if (dispatch)
    text = header::generate_dispatch(model, read_source(spec), db_path(vm));
  else if (table)
    text = header::generate_table(model, db_path(vm));
  else
    text = header::generate(model, db_path(vm));
  write_output(out, text, inputs);
  return 0;
}

}  // namespace tune::cli

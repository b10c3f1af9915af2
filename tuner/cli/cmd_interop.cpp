// tune import / tune export: Kernel Tuner cache files and T4 results in and out of the database.
#include <cstdio>
#include <optional>

#include "cli/commands.h"
#include "common/error.h"
#include "common/output_file.h"
#include "interop/interop.h"
#include "query/flags.h"
#include "store/merge.h"

namespace tune::cli {

namespace {

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<std::string>();
}

std::string joined_args() {
  std::string s;
  for (const auto& a : process_args()) {
    if (!s.empty()) s += ' ';
    s += a;
  }
  return s;
}

}  // namespace

int cmd_import(const Args& args) {
  po::options_description opts("tune import options");
  opts.add_options()(
      "file", po::value<std::vector<std::string>>()->multitoken(),
      "Kernel Tuner cache (.json or .json.gz, closed or left open), T4 results file, or another tune database "
      "(merged: runs, measurements, ceilings and decisions; the later of two measurements wins; cached "
      "binaries are not merged: a run compiles its own)")(
      "kernel", po::value<std::string>(), "store under this kernel name (default: the file's kernel_name)")(
      "device", po::value<std::string>(),
      "store under this device (default: the file's device_name, else \"unknown\")")(
      "spec", po::value<std::string>(), "T1 spec of the same space: key configurations like `tune run` does");
  add_db_option(opts);
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!parse("import", "tune import FILE... [--kernel NAME] [--device NAME] [--spec T1.json] [--db FILE]", args, opts,
             vm, &pos)) {
    return 0;
  }
  if (!vm.count("file")) throw InputError("tune import: give at least one file to import (see tune import --help)");
  std::optional<spec::Spec> spec;
  if (auto s = opt(vm, "spec")) spec = spec::load(*s);
  interop::ImportOptions o;
  o.kernel = opt(vm, "kernel");
  o.device = opt(vm, "device");
  o.spec = spec ? &*spec : nullptr;
  o.command_line = joined_args();
  // Which inputs are databases, asked before the target is open: reading a file's header opens
  // and closes it, which would drop this process's locks on an open database (output_file.h).
  const auto& files = vm["file"].as<std::vector<std::string>>();
  std::vector<bool> is_database;
  for (const auto& file : files) {
    if (same_file(file, db_path(vm))) throw InputError("cannot merge " + file + " into itself: give another database");
    is_database.push_back(is_sqlite_file(file));
  }
  NewDatabaseGuard created(db_path(vm));
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_write);
  // All files or none: a bad file among several leaves the database as it was (each file's own
  // transaction nests in this one), and the report is printed only once everything is stored.
  std::vector<interop::ImportResult> results;
  std::vector<std::pair<std::string, store::MergeCounts>> merged;  // tune databases, merged whole
  {
    auto all = db.batch();
    for (std::size_t i = 0; i < files.size(); ++i) {
      const std::string& file = files[i];
      if (is_database[i]) {
        if (o.kernel || o.device || o.spec)
          throw InputError("tune import " + file +
                           ": a tune database keeps its own kernels and devices: "
                           "--kernel, --device and --spec are for Kernel Tuner caches and T4 files");
        auto from = store::Store::open(file, store::Store::Mode::read_only);
        merged.emplace_back(file, store::merge(db, from));
        for (const auto& [kernel, device] : merged.back().second.kernel_devices)
          query::refresh_flags(db, kernel, device);
      } else {
        results.push_back(interop::import_file(db, file, o));
      }
    }
    all.commit();
  }
  created.dismiss();
  for (const auto& [file, c] : merged)
    std::printf(
        "%s (tune database): %zu runs, %zu measurements added or newer, %zu kept (as recent already), "
        "%zu ceilings, %zu decisions, %zu cached binaries\n",
        file.c_str(), c.runs, c.measurements, c.kept, c.ceilings, c.decisions, c.binaries);
  for (const auto& r : results) {
    const std::string file = r.file.string();
    std::string statuses;
    for (const auto& [status, n] : r.statuses) {
      if (!statuses.empty()) statuses += ", ";
      statuses += std::to_string(n) + " " + std::string(store::to_string(status));
    }
    std::printf("%s (%s): kernel %s, device %s, size %s: %zu entries (%s): %zu added, %zu replaced, %zu unchanged%s\n",
                file.c_str(), r.format.c_str(), r.kernel.c_str(), r.device.c_str(), r.size.c_str(), r.entries,
                statuses.empty() ? "none" : statuses.c_str(), r.added, r.replaced, r.unchanged,
                r.run_id ? (", run " + std::to_string(*r.run_id)).c_str() : ", nothing new");
    if (r.repaired) {
      std::printf("  note: %s was left open by an interrupted run; read up to its last complete entry\n", file.c_str());
    }
    if (r.device_defaulted) {
      std::printf("  note: %s names no device; stored under device \"unknown\" (give --device NAME to name it)\n",
                  file.c_str());
    }
  }
  return 0;
}

int cmd_export(const Args& args) {
  po::options_description opts("tune export options");
  opts.add_options()("format", po::value<std::string>()->required(), "kt-cache, t4 or csv")(
      "kernel", po::value<std::string>(), "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>(), "device name (kt-cache and t4 hold one device)")(
      "size", po::value<std::string>(), "problem size, e.g. 4096x4096 (kt-cache and t4 hold one size)")(
      "out", po::value<std::string>()->required(), "file to write");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("export",
             "tune export --format kt-cache|t4|csv [--kernel K] [--device D] [--size N] --out FILE [--db FILE]", args,
             opts, vm)) {
    return 0;
  }
  interop::ExportOptions o;
  o.format = interop::parse_export_format(vm["format"].as<std::string>());
  o.kernel = opt(vm, "kernel");
  o.device = opt(vm, "device");
  if (auto size = opt(vm, "size")) o.size = sizes::Size::parse_label(*size).label();
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  const std::string out = vm["out"].as<std::string>();
  auto r = interop::export_file(db, o, out);
  std::printf("wrote %zu measurements of %s%s to %s (%s)\n", r.rows, r.kernel.c_str(),
              r.device.empty() ? "" : (" on " + r.device + " at " + r.size).c_str(), out.c_str(),
              vm["format"].as<std::string>().c_str());
  return 0;
}

}  // namespace tune::cli

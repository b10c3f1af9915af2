// tune import / tune export: Kernel Tuner cache files and T4 results in and out of the database.
#include <algorithm>
#include <cstdio>
#include <iterator>
#include <optional>

#include "cli/commands.h"
#include "common/error.h"
#include "common/output_file.h"
#include "common/suggest.h"
#include "interop/interop.h"
#include "query/flags.h"
#include "query/query.h"
#include "space/space.h"
#include "store/merge.h"

namespace tune::cli {

namespace {

std::optional<std::string> opt(const po::variables_map& vm, const char* name) {
  if (!vm.count(name)) return std::nullopt;
  return vm[name].as<std::string>();
}

// The stored size that --size names: as `tune best --size` reads it ("4096" is 4096x4096 for a
// kernel measured at 2-D sizes), the size itself when nothing is stored there (export says so).
std::string measured_size(store::Store& db, const interop::ExportOptions& o, const std::string& size) {
  std::string label = sizes::Size::parse_label(size).label();  // a bad size fails here, before the query
  query::BestQuery q;
  q.kernel = o.kernel;
  q.device = o.device;
  q.size = size;
  for (const auto& b : query::best(db, q))
    if (b.match == tune_select::How::exact) return b.measured_size;
  return label;
}

// A Kernel Tuner cache or a T4 file holds one device and one size: when several match, say which
// option chooses, with the choices in a line (not all 32 sizes).
void require_one(store::Store& db, const interop::ExportOptions& o) {
  const std::string what = o.format == interop::ExportFormat::t4 ? "a T4 file" : "a Kernel Tuner cache";
  const auto kernels = db.kernels();
  if (!o.kernel && kernels.size() != 1) return;  // export names the choices of kernel
  const std::string kernel = o.kernel ? *o.kernel : kernels[0];
  const auto devices = o.device ? std::vector<std::string>{*o.device} : db.devices(kernel);
  if (devices.size() > 1)
    throw InputError("tune export: " + what + " holds one device, and " + kernel + " has " +
                     std::to_string(devices.size()) + ": choose with --device (" + devices.front() + ", ...)");
  if (o.size || devices.empty()) return;
  auto stored = db.sizes(kernel, devices[0]);
  if (stored.size() > 1) {
    std::sort(stored.begin(), stored.end(), [](const std::string& a, const std::string& b) {
      return sizes::Size::parse_label(a).elements() < sizes::Size::parse_label(b).elements();
    });
    throw InputError("tune export: " + what + " holds one problem size, and " + kernel + " on " + devices[0] + " has " +
                     std::to_string(stored.size()) + " (" + stored.front() + " .. " + stored.back() +
                     "): choose with --size");
  }
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
  // FILE...: Kernel Tuner caches (.json or .json.gz, closed or left open), T4 results files, or
  // other tune databases, merged whole (the later of two measurements wins; cached
  // binaries are not merged: a run compiles its own).
  po::options_description opts =
      options_for("tune import options (FILE...: Kernel Tuner caches, T4 results or tune databases)");
  opts.add_options()("kernel", po::value<std::string>()->value_name("NAME"),
                     "store under this kernel name (default: the file's kernel_name)")(
      "device", po::value<std::string>()->value_name("NAME"),
      "store under this device (default: the file's device_name, else \"unknown\")")(
      "spec", po::value<std::string>()->value_name("SPEC"),
      "T1 spec of the same space: key configurations like `tune run` does");
  add_db_option(opts);
  po::options_description positional("files");
  positional.add_options()("file", po::value<std::vector<std::string>>()->multitoken(), "files to import");
  po::positional_options_description pos;
  pos.add("file", -1);
  po::variables_map vm;
  if (!parse("import", "tune import FILE... [--kernel NAME] [--device NAME] [--spec SPEC] [--db FILE]", args, opts, vm,
             &pos, &positional)) {
    return 0;
  }
  if (!vm.count("file")) throw InputError("tune import: give at least one file to import (see tune import --help)");
  std::optional<spec::Spec> spec;
  if (auto s = opt(vm, "spec")) spec = spec::load(*s);
  // Tune.alignment over the spec's space before anything is stored, as `tune run` checks it
  if (spec && std::any_of(spec->alignment.begin(), spec->alignment.end(), [](const auto& a) { return a.has_value(); }))
    space::check_config_rules(*spec, space::Space::build(*spec));
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
  const auto count = [](std::size_t n) { return std::to_string(n); };
  for (const auto& [file, c] : merged)
    say(file + " (tune database): " + count(c.runs) + " runs, " + count(c.measurements) +
        " measurements added or newer, " + count(c.kept) + " kept (as recent already), " + count(c.ceilings) +
        " ceilings, " + count(c.decisions) + " decisions, " + count(c.binaries) + " cached binaries");
  for (const auto& r : results) {
    const std::string file = r.file.string();
    std::string statuses;
    for (const auto& [status, n] : r.statuses) {
      if (!statuses.empty()) statuses += ", ";
      statuses += std::to_string(n) + " " + std::string(store::to_string(status));
    }
    say(file + " (" + r.format + "): kernel " + r.kernel + ", device " + r.device + ", size " + r.size + ": " +
        count(r.entries) + " entries (" + (statuses.empty() ? "none" : statuses) + "): " + count(r.added) + " added, " +
        count(r.replaced) + " replaced, " + count(r.unchanged) + " unchanged" +
        (r.run_id ? ", run " + std::to_string(*r.run_id) : ", nothing new"));
    if (r.repaired) say("  note: " + file + " was left open by an interrupted run; read up to its last complete entry");
    if (r.device_defaulted)
      say("  note: " + file + " names no device; stored under device \"unknown\" (give --device NAME to name it)");
  }
  return 0;
}

int cmd_export(const Args& args) {
  po::options_description opts = options_for("tune export options");
  opts.add_options()("format", po::value<std::string>()->value_name("FORMAT"), "kt-cache, t4 or csv (required)")(
      "kernel", po::value<std::string>()->value_name("NAME"), "kernel name (optional if the database holds one)")(
      "device", po::value<std::string>()->value_name("NAME"), "device name (kt-cache and t4 hold one device)")(
      "size", po::value<std::string>()->value_name("SIZE"),
      "problem size, e.g. 4096 or 4096x4096, as `tune best --size` takes it (kt-cache and t4 hold one size)")(
      "out", po::value<std::string>()->value_name("FILE"), "file to write, - for standard output (required)");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("export",
             "tune export --format kt-cache|t4|csv [--kernel NAME] [--device NAME] [--size SIZE] --out FILE "
             "[--db FILE]",
             args, opts, vm)) {
    return 0;
  }
  // In the order given on the usage line: the format first.
  if (!vm.count("format")) throw InputError("tune export: --format kt-cache, t4 or csv is required");
  const std::string format = vm["format"].as<std::string>();
  constexpr std::string_view kFormats[] = {"kt-cache", "t4", "csv"};
  if (std::find(std::begin(kFormats), std::end(kFormats), format) == std::end(kFormats))
    throw InputError("tune export: unknown --format '" + format + "'" + did_you_mean(format, kFormats) +
                     " (expected kt-cache, t4 or csv)");
  if (!vm.count("out")) throw InputError("tune export: --out FILE is required (- for standard output)");
  interop::ExportOptions o;
  o.format = interop::parse_export_format(format);
  o.kernel = opt(vm, "kernel");
  o.device = opt(vm, "device");
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  if (auto size = opt(vm, "size")) o.size = measured_size(db, o, *size);
  if (o.format != interop::ExportFormat::csv) require_one(db, o);
  const std::string out = vm["out"].as<std::string>();
  interop::ExportResult r;
  if (out == "-") {
    const std::string text = interop::export_text(db, o, &r);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  r = interop::export_file(db, o, out);
  say("wrote " + std::to_string(r.rows) + " measurements of " + r.kernel +
      (r.device.empty() ? "" : " on " + r.device + " at " + r.size) + " to " + out + " (" + format + ")");
  return 0;
}

}  // namespace tune::cli

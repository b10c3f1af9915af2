// tune db: the database schema (documented) and a summary of what a database holds.
#include <cstdio>

#include "cli/commands.h"
#include "store/schema.h"
#include "store/store.h"

namespace tune::cli {

int cmd_db(const Args& args) {
  po::options_description opts("tune db options");
  opts.add_options()("schema", po::bool_switch(), "print the documented schema");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("db", "tune db [--schema] [--db FILE]", args, opts, vm)) return 0;
  if (vm["schema"].as<bool>()) {
    std::printf("%s\n", store::schema_doc().c_str());
    return 0;
  }
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  std::printf("%s: schema version %d, integrity %s\n", db.path().c_str(), db.version(), db.integrity_check().c_str());
  for (const auto& k : db.kernels()) {
    std::printf("kernel %s\n", k.c_str());
    for (const auto& d : db.devices(k)) std::printf("  device %-28s %zu sizes\n", d.c_str(), db.sizes(k, d).size());
  }
  std::printf("%lld measurements in %zu runs\n", static_cast<long long>(db.measurement_count()), db.runs().size());
  return 0;
}

}  // namespace tune::cli

// tune db: the database schema (documented) and a summary of what a database holds.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "store/schema.h"
#include "store/store.h"

namespace tune::cli {

int cmd_db(const Args& args) {
  po::options_description opts("tune db options");
  opts.add_options()("schema", po::bool_switch(), "print the documented schema")("json", po::bool_switch(),
                                                                                 "print the summary as JSON");
  add_db_option(opts);
  po::variables_map vm;
  if (!parse("db", "tune db [--schema] [--json] [--db FILE]", args, opts, vm)) return 0;
  if (vm["schema"].as<bool>()) {
    std::printf("%s\n", store::schema_doc().c_str());
    return 0;
  }
  auto db = store::Store::open(db_path(vm), store::Store::Mode::read_only);
  nlohmann::ordered_json j;
  j["path"] = db.path();
  j["schema_version"] = db.version();
  j["integrity"] = db.integrity_check();
  j["runs"] = db.runs().size();
  j["measurements"] = db.measurement_count();
  j["kernels"] = nlohmann::ordered_json::object();
  for (const auto& k : db.kernels()) {
    for (const auto& d : db.devices(k)) {
      store::MeasurementFilter f;
      f.kernel = k;
      f.device = d;
      f.ok_only = false;
      std::map<std::string, long> status;
      for (const auto& m : db.measurements(f)) status[std::string(store::to_string(m.status))]++;
      auto& e = j["kernels"][k][d];
      e["sizes"] = db.sizes(k, d).size();
      e["status"] = status;
    }
  }
  if (vm["json"].as<bool>()) {
    std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  std::printf("%s: schema version %d, integrity %s\n", db.path().c_str(), db.version(), db.integrity_check().c_str());
  for (auto k = j["kernels"].begin(); k != j["kernels"].end(); ++k)
    for (auto d = k.value().begin(); d != k.value().end(); ++d) {
      std::string st;
      for (auto s = d.value()["status"].begin(); s != d.value()["status"].end(); ++s)
        st += (st.empty() ? "" : ", ") + s.key() + " " + s.value().dump();
      std::printf("kernel %s on %s: %s sizes; %s\n", k.key().c_str(), d.key().c_str(),
                  d.value()["sizes"].dump().c_str(), st.c_str());
    }
  std::printf("%lld measurements in %zu runs\n", static_cast<long long>(db.measurement_count()), db.runs().size());
  return 0;
}

}  // namespace tune::cli

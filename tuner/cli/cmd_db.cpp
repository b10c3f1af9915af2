// tune db: the database schema (documented) and a summary of what a database holds.
#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <map>

#include "cli/commands.h"
#include "output/output.h"
#include "store/schema.h"
#include "store/store.h"

namespace tune::cli {

int cmd_db(const Args& args) {
  po::options_description opts = options_for("tune db options");
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
  // One object per (kernel, device); statuses as values, never as keys.
  auto& kernels = j["kernels"] = nlohmann::ordered_json::array();
  for (const auto& k : db.kernels()) {
    for (const auto& d : db.devices(k)) {
      store::MeasurementFilter f;
      f.kernel = k;
      f.device = d;
      f.ok_only = false;
      std::map<std::string, long> status;
      for (const auto& m : db.measurements(f)) status[std::string(store::to_string(m.status))]++;
      nlohmann::ordered_json e;
      e["kernel"] = k;
      e["device"] = d;
      e["sizes"] = db.sizes(k, d).size();
      auto& st = e["statuses"] = nlohmann::ordered_json::array();
      for (const auto& [name, count] : status) st.push_back({{"status", name}, {"count", count}});
      kernels.push_back(std::move(e));
    }
  }
  if (vm["json"].as<bool>()) {
    std::cout << j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) << "\n";
    return 0;
  }
  const auto print = [](const std::string& text) {
    for (const auto& l : output::wrap(text)) std::printf("%s\n", l.c_str());
  };
  print(db.path() + ": schema version " + std::to_string(db.version()) + ", integrity " + db.integrity_check());
  for (const auto& e : kernels) {
    std::string st;
    for (const auto& s : e["statuses"])
      st += (st.empty() ? "" : ", ") + s["status"].get<std::string>() + " " + s["count"].dump();
    print("kernel " + e["kernel"].get<std::string>() + " on " + e["device"].get<std::string>() + ": " +
          e["sizes"].dump() + " sizes; " + (st.empty() ? "no measurements" : st));
  }
  std::printf("%lld measurements in %zu runs\n", static_cast<long long>(db.measurement_count()), db.runs().size());
  return 0;
}

}  // namespace tune::cli

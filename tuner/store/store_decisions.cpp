// The Store's decisions and the flags derived from them (schema version 3).
#include <nlohmann/json.hpp>

#include "common/error.h"
#include "store/store.h"

namespace tune::store {

namespace {

std::string candidates_json(const std::vector<Decision::Candidate>& candidates) {
  nlohmann::ordered_json a = nlohmann::ordered_json::array();
  for (const auto& c : candidates)
    a.push_back({{"config_id", c.config_id},
                 {"value", c.value},
                 {"half_width", c.half_width},
                 {"samples", c.samples},
                 {"tied", c.tied}});
  return a.dump();
}

std::vector<Decision::Candidate> candidates_of(const std::string& text, const std::string& where) {
  std::vector<Decision::Candidate> out;
  try {
    const auto a = nlohmann::json::parse(text);
    for (const auto& c : a)
      out.push_back({c.at("config_id").get<std::int64_t>(), c.at("value").get<double>(),
                     c.at("half_width").get<double>(), c.at("samples").get<std::int64_t>(), c.at("tied").get<bool>()});
  } catch (const nlohmann::json::exception& e) {
    throw InputError(where + ": decisions.candidates is not what tune writes: " + e.what());
  }
  return out;
}

}  // namespace

void Store::replace_flags(std::string_view kernel, std::string_view device, const std::vector<Flag>& flags) {
  require_writable("record flags");
  auto tx = batch();
  db_.cached("DELETE FROM flags WHERE kernel = ? AND device = ?")->bind_all(kernel, device).run();
  for (Flag f : flags) {
    f.run_id.reset();
    if (f.kernel != kernel || f.device != device)
      throw Error("replace_flags: a flag of " + f.kernel + " on " + f.device + " among those of " +
                  std::string(kernel) + " on " + std::string(device));
    record_flag(f);
  }
  tx.commit();
}

void Store::record_decision(const Decision& d) {
  require_writable("record a decision");
  db_.cached(
         "INSERT INTO decisions (run_id, kernel, device, size, statistic, tie_margin, winner_id, candidates,"
         " rounds, noise, decided_at) VALUES (?,?,?,?,?,?,?,?,?,?,?)"
         " ON CONFLICT (kernel, device, size) DO UPDATE SET run_id = excluded.run_id,"
         " statistic = excluded.statistic, tie_margin = excluded.tie_margin, winner_id = excluded.winner_id,"
         " candidates = excluded.candidates, rounds = excluded.rounds, noise = excluded.noise,"
         " decided_at = excluded.decided_at")
      ->bind_all(d.run_id, d.kernel, d.device, d.size, decision::to_string(d.statistic), d.tie_margin, d.winner_id,
                 candidates_json(d.candidates), d.rounds, d.noise, d.decided_at.empty() ? utc_now() : d.decided_at)
      .run();
}

std::vector<Decision> Store::decisions(std::string_view kernel, const std::optional<std::string>& device) {
  auto s = db_.cached(
      "SELECT run_id, kernel, device, size, statistic, tie_margin, winner_id, candidates, rounds, noise, decided_at"
      " FROM decisions WHERE kernel = ?1 AND (?2 IS NULL OR device = ?2) ORDER BY device, id");
  s->bind(1, kernel).bind(2, device);
  std::vector<Decision> out;
  while (s->step()) {
    Decision d;
    d.run_id = s->int64(0);
    d.kernel = s->text(1);
    d.device = s->text(2);
    d.size = s->text(3);
    d.statistic = decision::parse_statistic(s->text(4));
    d.tie_margin = s->real(5);
    d.winner_id = s->int64(6);
    d.candidates = candidates_of(s->text(7), path());
    d.rounds = s->int64(8);
    d.noise = s->real(9);
    d.decided_at = s->text(10);
    out.push_back(std::move(d));
  }
  return out;
}

}  // namespace tune::store

// `mpirun -n K tune run --replay ...` (ranks.h): one (kernel, device) group of caches per item,
// replayed on the rank into a scratch database that rank 0 merges; the output is one rank's.

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "common/error.h"
#include "log/log.h"
#include "mpi/bytes.h"
#include "mpi/farm.h"
#include "mpi/ranks.h"
#include "mpi/ranks_common.h"
#include "query/flags.h"
#include "store/merge.h"
#include "tuning/replay.h"

namespace tune::mpi {

int run_replay_ranks(const World& world, tuning::Options o) {
  detail::Scratch scratch(world.rank());
  tuning::Prepared prepared;
  std::vector<std::vector<std::string>> groups;
  std::unique_ptr<store::Store> db;
  if (const int code = detail::agree(world, [&] {
        tuning::Options mine = o;
        if (world.rank() != 0) mine.db = scratch.file("validate.db");  // only rank 0 opens the database
        prepared = tuning::validate(mine);
        if (world.rank() != 0) return;
        groups = tuning::replay_groups(o, prepared.spec);
        db = std::make_unique<store::Store>(store::Store::open(o.db, store::Store::Mode::read_write));
      }))
    return code;
  o.strategy = prepared.strategy;
  const space::Space& space = prepared.space;

  auto work = [&](const std::string& payload) {
    Reader in(payload);
    tuning::Options item = o;
    item.replay.clear();
    for (std::uint64_t n = in.u64(); n > 0; --n) item.replay.push_back(in.str());
    item.db = scratch.file("item.db");
    store::remove_database_files(item.db);
    nlohmann::json results = nlohmann::json::array();
    for (const auto& r : tuning::replay(item, prepared)) results.push_back(tuning::to_json(r));
    // replay() has closed the database: the file is whole
    std::string bytes = detail::read_file(item.db);
    store::remove_database_files(item.db);
    return Writer().str(bytes).str(results.dump()).take();
  };
  if (world.rank() != 0) {
    serve(world, work);
    return 0;
  }

  std::size_t caches = 0;
  for (const auto& g : groups) caches += g.size();
  tuning::print_replay_opening(o, prepared.extension.policy, caches);
  std::vector<std::optional<std::vector<tuning::SizeReplay>>> results(groups.size());
  std::size_t next_print = 0;
  std::set<std::pair<std::string, std::string>> replayed;
  FarmPlan plan;
  plan.items = groups.size();
  auto payload = [&](std::size_t g, int) {
    Writer w;
    w.u64(groups[g].size());
    for (const auto& f : groups[g]) w.str(f);
    return w.take();
  };
  auto done = [&](std::size_t g, int rank, const std::string& result) {
    Reader in(result);
    const std::string path = scratch.file("incoming.db");
    detail::write_database(path, in.str());
    store::MergeCounts counts;
    {
      auto from = store::Store::open(path, store::Store::Mode::read_only);
      counts = store::merge(*db, from, {.binaries = true});
    }
    store::remove_database_files(path);
    std::vector<tuning::SizeReplay> sizes;
    for (const auto& j : nlohmann::json::parse(in.str())) {
      sizes.push_back(tuning::size_replay_from_json(j));
      sizes.back().run_id = counts.run_ids.at(sizes.back().run_id);
      replayed.emplace(sizes.back().kernel, sizes.back().device);
    }
    log::debug("replay group {} done on rank {}", g, rank);
    results[g] = std::move(sizes);
    // the groups in order, as one rank prints them
    for (; next_print < groups.size() && results[next_print]; ++next_print)
      for (const auto& r : *results[next_print]) tuning::print_replay_size(o, space, r);
  };
  detail::report_ranks(farm(world, plan, payload, work, done));
  for (const auto& [kernel, device] : replayed) query::refresh_flags(*db, kernel, device);
  std::vector<tuning::SizeReplay> all;
  for (auto& r : results)
    if (r) all.insert(all.end(), r->begin(), r->end());
  tuning::print_replay_json(o, space, all);
  tuning::print_replay_summary(o, all, caches);
  return 0;
}

}  // namespace tune::mpi

// `mpirun -n K tune run ...` on GPUs (ranks.h): one problem size per item, measured by a supervised
// worker process of the rank into a scratch database seeded with the cubins rank 0 has sent it.
#include <sched.h>

#include <chrono>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "common/error.h"
#include "log/log.h"
#include "mpi/bytes.h"
#include "mpi/farm.h"
#include "mpi/rank_work.h"
#include "mpi/ranks.h"
#include "mpi/ranks_common.h"
#include "query/flags.h"
#include "query/table.h"
#include "run/device.h"
#include "spec/bind.h"
#include "store/merge.h"

namespace tune::mpi {

int run_replay_ranks(const World& world, tuning::Options o);  // ranks_replay.cpp

namespace {

using detail::RankWork;
using detail::Scratch;

struct RankInfo {
  std::string device, arch;
};

// The fixed cost of one size's measurement of a configuration, in elements (see cost_).
constexpr double kFixedElements = 2e7;

// Rank 0's side: the items, the database, the runs (one per GPU model) and the totals.
class Coordinator {
 public:
  Coordinator(const World& world, const tuning::Options& o, const tuning::Prepared& prepared,
              std::vector<RankInfo> ranks, const Scratch& scratch)
      : world_(world),
        o_(o),
        prepared_(prepared),
        ranks_(std::move(ranks)),
        scratch_(scratch),
        db_(store::Store::open(o.db, store::Store::Mode::read_write)),
        sent_(ranks_.size()) {
    kernel_ = prepared.spec.kernel.name;
    space_hash_ = spec::space_hash(prepared.spec);
    const int rank = spec::problem_rank(prepared.spec);
    for (const auto& s : o.sizes) {
      const sizes::Size full = s.full(rank);
      labels_.push_back(full.label());
      // A size's estimated cost: its elements, plus a fixed part per configuration measured
      // (verification, warm-up, launches, store): on an H100 a transpose measurement took about
      // 1.2 ms plus 5.8e-11 s per element; a smaller fixed part leaves the small sizes as one long
      // last item while the other ranks wait.
      cost_.push_back(static_cast<double>(full.dims[0]) * static_cast<double>(full.dims[1]) *
                          static_cast<double>(full.dims[2]) +
                      kFixedElements);
    }
    for (const auto& r : ranks_) {
      if (std::find(models_.begin(), models_.end(), r.device) == models_.end()) models_.push_back(r.device);
      rank_group_.push_back(static_cast<int>(std::find(models_.begin(), models_.end(), r.device) - models_.begin()));
    }
  }

  struct Item {
    std::vector<std::string> sizes;  // sizes of similar cost, measured by one worker process
    int group = 0;
    tuning::Share share;  // a part of a split size (then `sizes` is that one size)
  };

  // The items of each GPU model: every size not stored whole and decided (a guided search: every size).
  void plan() {
    const bool brute = o_.strategy == "brute_force";
    std::size_t n = prepared_.space.size();
    if (brute && o_.max_fevals) n = std::min<std::size_t>(n, static_cast<std::size_t>(*o_.max_fevals));
    std::vector<std::string> params;  // of the configurations a brute-force size needs
    for (std::size_t c = 0; brute && c < n; ++c) params.push_back(prepared_.space.params_json(c));
    for (std::size_t g = 0; g < models_.size(); ++g) {
      const auto stored = db_.measured(kernel_, space_hash_, models_[g]);
      std::set<std::string> decided;  // a size measured whole but not decided is measured again
      for (const auto& d : db_.decisions(kernel_, models_[g])) decided.insert(d.size);
      std::vector<std::size_t> todo;  // indices into labels_
      for (std::size_t i = 0; i < labels_.size(); ++i) {
        std::size_t have = 0;
        for (const auto& p : params) have += stored.count({p, labels_[i]});
        if (!brute || have < n || !decided.contains(labels_[i])) todo.push_back(i);
      }
      if (todo.empty()) continue;
      if (split(todo, static_cast<int>(g), n, brute)) continue;
      if (brute) {  // the smallest size alone first: its worker compiles every configuration
        alone_first_ = true;
        first_.push_back({{labels_[todo.front()]}, static_cast<int>(g), {}});
        todo.erase(todo.begin());
      }
      // The rest in chunks, each one worker process, largest sizes first: a chunk's estimated cost
      // (elements, plus a fixed part per size) is what is left over twice the ranks (guided
      // self-scheduling, so the ranks finish together), but at least the whole over six times the
      // ranks, since each process costs its start, its CUDA context and its cubins.
      std::sort(todo.begin(), todo.end(), [&](std::size_t a, std::size_t b) { return cost_[a] > cost_[b]; });
      const auto ranks = static_cast<double>(std::count(rank_group_.begin(), rank_group_.end(), static_cast<int>(g)));
      double left = 0;
      for (std::size_t i : todo) left += cost_[i];
      const double floor = left / (6 * ranks);
      for (std::size_t next = 0; next < todo.size();) {
        const double target = std::max(left / (2 * ranks), floor);
        Item item{{}, static_cast<int>(g), {}};
        double taken = 0;
        while (next < todo.size() && (item.sizes.empty() || taken < target)) {
          taken += cost_[todo[next]];
          item.sizes.push_back(labels_[todo[next++]]);
        }
        left -= taken;
        rest_.push_back(std::move(item));
      }
    }
    std::size_t todo = 0;
    for (const auto* items : {&first_, &rest_})
      for (const auto& i : *items)
        if (i.share.part == tuning::Part::whole || (i.share.part == tuning::Part::search && i.share.index == 0))
          todo += i.sizes.size();
    log::info("{} ranks on {} GPU model(s): {} sizes to measure in {} items{}", ranks_.size(), models_.size(), todo,
              first_.size() + rest_.size(),
              alone_first_ ? "; one per model first, compiling every configuration once" : "");
  }

  // Fewer sizes than ranks of the model: each size is split into shares, one per rank it can
  // have (tuning::Part), measured in the first phase; each is decided in the second, by one rank,
  // from all its shares' measurements. False when a size cannot be split (one rank per size, or a
  // budget of fewer evaluations than ranks).
  bool split(const std::vector<std::size_t>& todo, int group, std::size_t configs, bool brute) {
    const auto ranks = static_cast<std::size_t>(std::count(rank_group_.begin(), rank_group_.end(), group));
    std::size_t shares = ranks / todo.size();
    if (o_.max_fevals) shares = std::min(shares, static_cast<std::size_t>(*o_.max_fevals));
    shares = std::min(shares, configs);
    if (shares < 2) return false;
    for (std::size_t i : todo) {
      for (std::size_t k = 0; k < shares; ++k)
        first_.push_back({{labels_[i]}, group, {tuning::Part::search, k, shares}});
      rest_.push_back({{labels_[i]}, group, {tuning::Part::decide, 0, 1}});
    }
    log::info("{}: {} size(s) on {} ranks: each split into {} shares{}, then decided on one rank", models_[group],
              todo.size(), ranks, shares,
              brute ? " of its configurations" : " of the budget (a search each, seeds apart)");
    return true;
  }

  FarmStats phase(const std::vector<Item>& items, RankWork& mine) {
    FarmPlan plan;
    plan.items = items.size();
    for (const auto& i : items) plan.item_group.push_back(i.group);
    plan.rank_group = rank_group_;
    auto payload = [&](std::size_t i, int r) { return this->payload(items[i], r); };
    auto done = [&](std::size_t i, int r, const std::string& result) { accept(items[i], r, result); };
    return farm(world_, plan, payload, std::ref(mine), done);
  }

  std::vector<Item> first_, rest_;
  bool alone_first_ = false;  // a brute-force size measured alone first (not split)

  void finish(const std::vector<FarmStats>& phases, bool completed) {
    for (std::size_t g = 0; g < models_.size(); ++g) {
      auto it = runs_.find(models_[g]);
      if (it == runs_.end()) continue;
      db_.finish_run(it->second, completed ? store::RunStatus::completed : store::RunStatus::interrupted);
      query::refresh_flags(db_, kernel_, models_[g]);
    }
    for (std::size_t r = 0; r < ranks_.size(); ++r) {
      std::size_t items = 0;
      double busy = 0;
      for (const auto& p : phases) items += p.items[r], busy += p.busy_s[r];
      const query::RunTotals& t = rank_totals_[r];
      log::info(
          "rank {} ({}): {} items, busy {:.1f} s: {} compiled ({:.1f} s of compile time), {} measured in {:.1f} s", r,
          ranks_[r].device, items, busy, t.compiled, t.compile_s, t.measured, t.measure_s);
    }
    detail::report_faults(phases);
    if (!completed) return;
    for (const auto& model : models_) {
      query::RunTotals t = totals_[model];
      t.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
      t.workers = std::max(1u, std::thread::hardware_concurrency());
      query::print_run_table(db_, kernel_, model, labels_, t, o_.json, o_.wide);
    }
  }

 private:
  std::string payload(const Item& item, int rank) {
    auto& sent = sent_[static_cast<std::size_t>(rank)];
    std::vector<std::string> keys;
    {
      auto s = db_.database().cached("SELECT key FROM binaries WHERE arch = ? ORDER BY key");
      s->bind(1, ranks_[static_cast<std::size_t>(rank)].arch);
      while (s->step())
        if (!sent.count(s->text(0))) keys.push_back(s->text(0));
    }
    Writer w;
    std::string sizes;
    for (const auto& s : item.sizes) sizes += (sizes.empty() ? "" : ",") + s;
    w.str(sizes).u64(static_cast<std::uint64_t>(item.share.part)).u64(item.share.index).u64(item.share.count);
    w.u64(keys.size());
    for (const auto& k : keys) {
      detail::write_binary(w, *db_.get_binary(k));
      sent.insert(k);
    }
    // a decision: what every share of its size measured
    const std::vector<std::string>* shares = nullptr;
    if (item.share.part == tuning::Part::decide)
      if (auto it = share_deltas_.find({item.group, item.sizes.front()}); it != share_deltas_.end())
        shares = &it->second;
    w.u64(shares ? shares->size() : 0);
    if (shares)
      for (const auto& d : *shares) w.str(d);
    return w.take();
  }

  void accept(const Item& item, int rank, const std::string& result) {
    Reader in(result);
    const std::string delta = in.str(), out = in.str();
    in.f64();
    const std::string path = scratch_.file("incoming.db");
    detail::write_database(path, delta);
    if (item.share.part == tuning::Part::search) share_deltas_[{item.group, item.sizes.front()}].push_back(delta);
    {
      auto from = store::Store::open(path, store::Store::Mode::read_only);
      store::MergeOptions mo;
      mo.map_run = [&](const store::RunInfo& in) { return run_for(in); };
      mo.binaries = true;  // this job's own ranks' compiles
      store::merge(db_, from, mo);
      auto s = from.database().cached("SELECT key FROM binaries");
      while (s->step()) sent_[static_cast<std::size_t>(rank)].insert(s->text(0));  // it has them
    }
    store::remove_database_files(path);
    const std::string& model = models_[static_cast<std::size_t>(item.group)];
    try {
      const auto j = nlohmann::json::parse(out);
      for (query::RunTotals* t : {&totals_[model], &rank_totals_[static_cast<std::size_t>(rank)]}) {
        t->compiled += j.value("compiled", std::size_t{0});
        t->cached += j.value("from_cache", std::size_t{0});
        t->measured += j.value("measured", std::size_t{0});
        t->failed += j.value("failed", std::size_t{0});
        t->compile_s += j.value("compile_cpu_seconds", 0.0);
        t->measure_s += j.value("measure_seconds", 0.0);
        t->timed_s += j.value("timed_seconds", 0.0);
      }
    } catch (const nlohmann::json::exception&) {
      log::warn("sizes {}..{} on rank {}: its worker's totals were not readable", item.sizes.front(), item.sizes.back(),
                rank);
    }
    if (item.share.part == tuning::Part::search)
      log::info("size {}, share {} of {}, measured on rank {} ({})", item.sizes.front(), item.share.index,
                item.share.count, rank, model);
    else if (item.share.part == tuning::Part::decide)
      log::info("size {} decided on rank {} ({}) from its shares", item.sizes.front(), rank, model);
    else if (item.sizes.size() == 1)
      log::info("size {} measured on rank {} ({})", item.sizes.front(), rank, model);
    else
      log::info("sizes {}..{} ({}) measured on rank {} ({})", item.sizes.front(), item.sizes.back(), item.sizes.size(),
                rank, model);
  }

  // The run of this command on the incoming run's GPU model (one per model, begun on first use).
  std::int64_t run_for(const store::RunInfo& in) {
    if (auto it = runs_.find(in.device); it != runs_.end()) return it->second;
    store::RunInfo info = in;
    info.command_line = o_.command_line;
    info.started_at = "";
    info.ended_at.reset();
    info.pid.reset();
    info.host = "";
    info.status = store::RunStatus::running;
    auto notes = nlohmann::json::object();
    if (!in.notes.empty()) notes = nlohmann::json::parse(in.notes, nullptr, false);
    if (!notes.is_object()) notes = nlohmann::json::object();
    notes["mpi_ranks"] = ranks_.size();
    info.notes = notes.dump();
    const std::int64_t id = db_.begin_run(info);
    runs_.emplace(in.device, id);
    return id;
  }

  const World& world_;
  const tuning::Options& o_;
  const tuning::Prepared& prepared_;
  std::vector<RankInfo> ranks_;
  const Scratch& scratch_;
  store::Store db_;
  std::vector<std::set<std::string>> sent_;  // per rank: the cubin keys it has
  // (group, size) of a split size -> each share's database, for the rank that decides it
  std::map<std::pair<int, std::string>, std::vector<std::string>> share_deltas_;
  std::string kernel_, space_hash_;
  std::vector<std::string> labels_, models_;
  std::vector<double> cost_;  // per label
  std::vector<int> rank_group_;
  std::map<std::string, std::int64_t> runs_;        // GPU model -> this command's run
  std::map<std::string, query::RunTotals> totals_;  // per GPU model
  std::vector<query::RunTotals> rank_totals_ = std::vector<query::RunTotals>(ranks_.size());
  const std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace

int run(const World& world, tuning::Options o) {
  // Rank 0's search seed on every rank (each drew its own when --seed was not given).
  {
    const std::string seed = world.broadcast(Writer().u64(o.seed).u64(o.seed_drawn ? 1 : 0).take());
    Reader in(seed);
    o.seed = in.u64();
    o.seed_drawn = in.u64() != 0;
  }
  if (!o.replay.empty()) return run_replay_ranks(world, std::move(o));
  Scratch scratch(world.rank());
  tuning::Prepared prepared;
  run::DeviceIdentity dev;
  if (const int code = detail::agree(world, [&] {
        if (!o.capture.empty()) throw InputError("tune run --capture runs on one process, not on MPI ranks");
        tuning::Options mine = o;
        if (world.rank() != 0) mine.db = scratch.file("validate.db");  // only rank 0 opens the database
        prepared = tuning::validate(mine);
        dev = run::identify_device(world.local_rank());
      }))
    return code;
  o.strategy = prepared.strategy;
  const auto infos = world.gather(Writer().str(dev.name).str(dev.arch).take());
  std::unique_ptr<Coordinator> coordinator;
  if (const int code = detail::agree(world, [&] {
        if (world.rank() != 0) return;
        std::vector<RankInfo> ranks;
        for (const auto& b : infos) {
          Reader in(b);
          RankInfo r;
          r.device = in.str();
          r.arch = in.str();
          ranks.push_back(r);
        }
        coordinator = std::make_unique<Coordinator>(world, o, prepared, std::move(ranks), scratch);
        coordinator->plan();
      }))
    return code;
  log::debug("rank {}: {} (device {})", world.rank(), dev.name, dev.ordinal);
  // Open MPI binds a rank to one core by default (np <= 2): its worker process would compile every
  // configuration on that core alone.
  cpu_set_t cpus;
  if (sched_getaffinity(0, sizeof cpus, &cpus) == 0 && CPU_COUNT(&cpus) == 1 && std::thread::hardware_concurrency() > 1)
    log::warn(
        "rank {} is bound to one CPU, so its worker compiles on one core: run mpirun --bind-to none, or give "
        "each task its cores (srun --cpus-per-task)",
        world.rank());
  RankWork mine(o, dev, scratch);
  if (world.rank() != 0) {
    serve(world, std::ref(mine));  // the first size of each model
    serve(world, std::ref(mine));  // the rest
    return 0;
  }
  std::vector<FarmStats> phases;
  std::exception_ptr failed;
  for (const auto* items : {&coordinator->first_, &coordinator->rest_}) {
    try {
      phases.push_back(coordinator->phase(failed ? std::vector<Coordinator::Item>{} : *items, mine));
    } catch (...) {
      if (!failed) failed = std::current_exception();
    }
  }
  coordinator->finish(phases, !failed);
  if (failed) std::rethrow_exception(failed);
  return 0;
}

}  // namespace tune::mpi

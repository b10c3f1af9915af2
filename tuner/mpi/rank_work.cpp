// A rank's side of a GPU sweep (rank_work.h).
#include "mpi/rank_work.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>

#include "common/error.h"
#include "run/isolate.h"
#include "store/merge.h"

namespace tune::mpi::detail {

void write_binary(Writer& w, const store::CachedBinary& b) {
  w.str(b.key).str(b.arch).str(b.compiler_version).str(b.options).str(std::string_view(b.cubin.data(), b.cubin.size()));
  w.str(b.log).f64(b.compile_ms.value_or(NAN)).str(b.created_at);
}

store::CachedBinary read_binary(Reader& in) {
  store::CachedBinary b;
  b.key = in.str(), b.arch = in.str(), b.compiler_version = in.str(), b.options = in.str();
  const std::string cubin = in.str();
  b.cubin.assign(cubin.begin(), cubin.end());
  b.log = in.str();
  const double ms = in.f64();
  if (!std::isnan(ms)) b.compile_ms = ms;
  b.created_at = in.str();
  return b;
}

namespace {

// The one-process command that measures one size into `db` on GPU `ordinal` (its --json table
// goes to the item's output file, for the totals).
std::vector<std::string> item_command(const tuning::Options& o, const std::string& size, const std::string& db,
                                      int ordinal, const tuning::Share& share) {
  std::vector<std::string> a{"/proc/self/exe", "--log-level", "warn",  "run", "--space",  o.space,
                             "--sizes",        size,          "--db",  db,    "--device", std::to_string(ordinal),
                             "--strategy",     o.strategy,    "--json"};
  for (const auto& kv : o.policy) a.insert(a.end(), {"--policy", kv});
  if (share.part == tuning::Part::search)
    a.insert(a.end(), {"--share", std::to_string(share.index) + "/" + std::to_string(share.count)});
  if (share.part == tuning::Part::decide) a.push_back("--decide-only");
  if (o.max_fevals) a.insert(a.end(), {"--max-fevals", std::to_string(*o.max_fevals)});
  if (o.time_limit_s) a.insert(a.end(), {"--time-limit", std::to_string(*o.time_limit_s)});
  if (!o.seed_drawn) a.insert(a.end(), {"--seed", std::to_string(o.seed)});
  for (const auto& [k, v] : o.strategy_options) {
    std::string option = k;
    option.append("=").append(v);
    a.insert(a.end(), {"--strategy-option", option});
  }
  return a;
}

// Exclusive use of one GPU among the processes of its machine (flock on a file named by the GPU's
// UUID): ranks that share a GPU measure one after the other, never over each other's launches.
class GpuLock {
 public:
  explicit GpuLock(const std::string& uuid) {
    const std::string path = (std::filesystem::temp_directory_path() / ("tune-gpu-" + uuid + ".lock")).string();
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
    if (fd_ < 0) throw Error("cannot open the GPU lock " + path + ": " + std::strerror(errno));
    while (::flock(fd_, LOCK_EX) != 0)
      if (errno != EINTR) throw Error("cannot lock " + path + ": " + std::strerror(errno));
  }
  ~GpuLock() { ::close(fd_); }  // closing releases the lock
  GpuLock(const GpuLock&) = delete;
  GpuLock& operator=(const GpuLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace

std::string RankWork::operator()(const std::string& payload) {
  Reader in(payload);
  const std::string size = in.str();
  tuning::Share share;
  const std::uint64_t part = in.u64();
  if (part > static_cast<std::uint64_t>(tuning::Part::decide)) throw Error("an item from rank 0 names no part");
  share.part = static_cast<tuning::Part>(part);
  share.index = in.u64();
  share.count = in.u64();
  for (std::uint64_t n = in.u64(); n > 0; --n) seed_.put_binary(read_binary(in));
  const std::string item = scratch_.file("item.db"), out = scratch_.file("item.out"), delta = scratch_.file("delta.db");
  for (const auto& p : {item, delta}) store::remove_database_files(p);
  std::filesystem::remove(out);
  seed_.database().exec("VACUUM INTO " + detail::sql_quote(item));
  if (const std::uint64_t shares = in.u64(); shares > 0) {  // a decision: its size's shares, merged first
    auto db = store::Store::open(item, store::Store::Mode::read_write);
    const std::string path = scratch_.file("share.db");
    for (std::uint64_t k = 0; k < shares; ++k) {
      detail::write_database(path, in.str());
      auto from = store::Store::open(path, store::Store::Mode::read_only);
      store::merge(db, from, {.binaries = true});  // this job's own ranks' compiles
    }
    store::remove_database_files(path);
  }

  run::WorkerSetup setup;
  setup.stdout_path = out;
  if (o_.seed_drawn) setup.env.push_back("TUNE_DRAWN_SEED=" + std::to_string(o_.seed));
  const auto t0 = std::chrono::steady_clock::now();
  run::Supervised r;
  {
    GpuLock lock(dev_.uuid);
    r = run::supervise(item_command(o_, size, item, dev_.ordinal, share), setup);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.exit_code != 0)
    throw Error("sizes " + size + " on " + dev_.name + " (device " + std::to_string(dev_.ordinal) +
                "): the worker process exited with " + std::to_string(r.exit_code) + " (its messages are above)");
  {
    // What goes back: everything but the cubins this rank was sent; the new ones join its seed.
    auto db = store::Store::open(item, store::Store::Mode::read_write);
    db.database().exec("ATTACH DATABASE " + detail::sql_quote(seed_path_) + " AS seed");
    db.database().exec(
        "DELETE FROM main.binaries WHERE key IN (SELECT key FROM seed.binaries);"
        "INSERT OR IGNORE INTO seed.binaries SELECT * FROM main.binaries;");
    db.database().exec("DETACH DATABASE seed");
    db.database().exec("VACUUM main INTO " + detail::sql_quote(delta));
  }
  return Writer().str(detail::read_file(delta)).str(detail::read_file(out)).f64(wall).take();
}

}  // namespace tune::mpi::detail

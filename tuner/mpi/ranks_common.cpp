// The distributed commands' shared parts (ranks_common.h).
#include "mpi/ranks_common.h"
#include "log/log.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "mpi/bytes.h"
#include "store/store.h"

namespace tune::mpi::detail {

namespace {
enum Kind : std::uint64_t { kOk = 0, kInput = 1, kUnavailable = 2, kOther = 3 };
}

int agree(const World& world, const std::function<void()>& step) {
  std::uint64_t kind = kOk;
  std::string message;
  try {
    step();
  } catch (const InputError& e) {
    kind = kInput, message = e.what();
  } catch (const UnavailableError& e) {
    kind = kUnavailable, message = e.what();
  } catch (const std::exception& e) {
    kind = kOther, message = e.what();
  }
  const auto all = world.gather(Writer().u64(kind).str(message).take());
  std::string verdict = Writer().u64(kOk).str("").take();  // rank 0: the first rank's failure, if any
  for (std::size_t r = 0; r < all.size(); ++r) {
    Reader in(all[r]);
    const std::uint64_t k = in.u64();
    if (k == kOk) continue;
    const std::string m = in.str();
    verdict = Writer().u64(k).str(r == 0 ? m : "rank " + std::to_string(r) + ": " + m).take();
    break;
  }
  verdict = world.broadcast(verdict);
  Reader in(verdict);
  const std::uint64_t k = in.u64();
  const std::string m = in.str();
  if (k == kOk) return 0;
  const int code = k == kInput ? 2 : k == kUnavailable ? 3 : 1;
  if (world.rank() != 0) return code;
  if (k == kInput) throw InputError(m);
  if (k == kUnavailable) throw UnavailableError(m);
  throw Error(m);
}

Scratch::Scratch(int rank) {
  std::string pattern =
      (std::filesystem::temp_directory_path() / ("tune_rank" + std::to_string(rank) + "_XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) throw Error("cannot make a scratch directory from " + pattern);
  path_ = pattern;
}

Scratch::~Scratch() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw Error("cannot read " + path);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_database(const std::string& path, const std::string& bytes) {
  store::remove_database_files(path);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error("cannot write " + path);
}

std::string sql_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void report_ranks(const FarmStats& farm) {
  for (std::size_t r = 0; r < farm.items.size(); ++r)
    log::info("rank {}: {} items, busy {:.1f} s of {:.1f} s", r, farm.items[r], farm.busy_s[r], farm.wall_s);
  report_faults({farm});
}

void report_faults(const std::vector<FarmStats>& farms) {
  for (const auto& f : farms)
    for (const auto& why : f.faults)
      log::warn("left this run: {}; its work was done by the other ranks, nothing it finished was lost", why);
}

}  // namespace tune::mpi::detail

// The distributed commands' shared parts (ranks_common.h).
#include "mpi/ranks_common.h"

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/error.h"
#include "mpi/bytes.h"

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
  std::string verdict;
  if (world.rank() == 0) {
    Writer w;
    w.u64(kOk).str("");
    for (std::size_t r = 0; r < all.size(); ++r) {
      Reader in(all[r]);
      const std::uint64_t k = in.u64();
      std::string m = in.str();
      if (k == kOk) continue;
      w = Writer();
      w.u64(k).str(r == 0 ? m : "rank " + std::to_string(r) + ": " + m);
      break;
    }
    verdict = w.take();
  }
  Reader in(verdict = world.broadcast(verdict));
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
  const char* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base ? base : "/tmp") + "/tune_rank" + std::to_string(rank) + "_XXXXXX";
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

void write_file(const std::string& path, const std::string& bytes) {
  remove_database(path);
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!f) throw Error("cannot write " + path);
}

void remove_database(const std::string& path) {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::filesystem::remove(path + suffix, ec);
}

std::string sql_quote(const std::string& text) {
  std::string out = "'";
  for (char c : text) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace tune::mpi::detail

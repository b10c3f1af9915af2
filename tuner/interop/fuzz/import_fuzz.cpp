// libFuzzer target for Kernel Tuner cache and T4 import: any byte string is written to a file
// and imported (interop::import_file: gzip detection, JSON with Python's NaN/Infinity, the repair
// of a file an interrupted run left open, the cache and T4 layouts, entry validation, time
// checks) into one SQLite database that lives for the whole fuzzing process. Only tune::Error may
// escape; anything else (another exception, a crash, a sanitizer report, a hang, runaway memory)
// is a finding. The database must stay intact: its integrity check runs every 1000 inputs.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "common/error.h"
#include "interop/interop.h"
#include "store/store.h"

namespace fs = std::filesystem;

namespace {

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "import_fuzz: %s\n", what.c_str());
  std::abort();
}

struct Scratch {
  fs::path dir;
  std::unique_ptr<tune::store::Store> db;
  Scratch() {
    dir = fs::temp_directory_path() / ("tune_import_fuzz_" + std::to_string(::getpid()));
    fs::create_directories(dir);
    db = std::make_unique<tune::store::Store>(
        tune::store::Store::open((dir / "fuzz.db").string(), tune::store::Store::Mode::read_write));
  }
  ~Scratch() {
    db.reset();
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

Scratch& scratch() {
  static Scratch s;
  return s;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::uint64_t count = 0;
  Scratch& s = scratch();
  const fs::path file = s.dir / "input.json";
  {
    std::ofstream out(file, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    tune::interop::ImportOptions o;
    (void)tune::interop::import_file(*s.db, file, o);
  } catch (const tune::Error&) {
    // a clear refusal; nothing of the file is stored
  } catch (const std::exception& e) {
    fail(std::string("escaped std::exception: ") + e.what());
  }
  if (++count % 1000 == 0 && s.db->integrity_check() != "ok") fail("the database is damaged");
  return 0;
}

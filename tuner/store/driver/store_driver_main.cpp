// store_driver: simulates a tuning run against the store, for the kill-and-resume test.
//
//   store_driver <db> <configurations> <sizes> <sleep_ms>
//
// Opens (creating) the database, begins a run, and for every configuration x size that is not
// yet stored records a measurement, sleeping sleep_ms before each (the "benchmark"). Prints,
// flushed line by line:
//   run <id>
//   committed <params> <size>       after each record() returned (so it is durable)
//   done skipped=<n> recorded=<n>   at the end
// Exit status 0 on success, 2 on a tune::Error (message on stderr).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>
#include <thread>

#include "store/store.h"

namespace {

int positive(const char* text, const char* what) {
  char* end = nullptr;
  long v = std::strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < 0 || v > 1000000) {
    throw tune::InputError(std::string(what) + " \"" + text + "\" is not a count");
  }
  return static_cast<int>(v);
}

}  // namespace

int main(int argc, char** argv) {
  using namespace tune::store;
  if (argc != 5) {
    std::cerr << "usage: store_driver <db> <configurations> <sizes> <sleep_ms>\n";
    return 1;
  }
  try {
    const std::string path = argv[1];
    const int configs = positive(argv[2], "configurations");
    const int sizes = positive(argv[3], "sizes");
    const int sleep_ms = positive(argv[4], "sleep_ms");
    const std::string kernel = "driver_kernel", space = "driver-space", device = "Simulated GPU";

    Store store = Store::open(path, Store::Mode::read_write);
    RunInfo info;
    info.spec_path = "driver.json";
    info.spec_hash = "0";
    info.kernel = kernel;
    info.device = device;
    info.command_line = "store_driver " + path;
    info.strategy = "brute_force";
    const std::int64_t run = store.begin_run(info);
    std::cout << "run " << run << std::endl;

    // One bulk query tells what an earlier (killed) run already stored.
    const auto done = store.measured(kernel, space, device);
    int skipped = 0, recorded = 0;
    for (int c = 0; c < configs; ++c) {
      nlohmann::ordered_json params;
      params["TILE"] = 8 * (c + 1);
      params["UNROLL"] = c % 4;
      const std::string canonical = canonical_params(params);
      for (int s = 0; s < sizes; ++s) {
        const tune::sizes::Size size = tune::sizes::Size::of(256 << s, 128);
        if (done.contains(MeasuredKey{canonical, size.label()})) {
          ++skipped;
          continue;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms));
        Measurement m;
        m.config_id = store.upsert_configuration(kernel, space, params);
        m.run_id = run;
        m.device = device;
        m.size = size;
        for (int k = 0; k < 5; ++k) m.samples_ms.push_back(0.5f * (c + 1) + 0.01f * (s + k));
        m.eval_order = c * sizes + s;
        store.record(m);
        ++recorded;
        std::cout << "committed " << canonical << ' ' << size.label() << std::endl;
      }
    }
    store.finish_run(run, RunStatus::completed);
    std::cout << "done skipped=" << skipped << " recorded=" << recorded << std::endl;
    return 0;
  } catch (const tune::Error& e) {
    std::cerr << "store_driver: " << e.what() << '\n';
    return 2;
  }
}

// store::merge (merge.h): one transaction that copies another database's rows, mapped onto this
// one's ids.
#include "store/merge.h"

#include <filesystem>
#include <tuple>

#include "common/error.h"
#include "common/output_file.h"
#include "store/sqlite.h"

namespace tune::store {

namespace {

using RunKey = std::tuple<std::string, std::string, std::int64_t, std::string, std::string, std::string, std::string>;

// What makes two run rows the same run: when, where, which process, what and how it ran.
RunKey run_key(const RunInfo& r) {
  return {r.started_at, r.host, r.pid.value_or(0), r.kernel, r.device, r.command_line, std::string(to_string(r.kind))};
}

class Merger {
 public:
  Merger(Store& into, Store& from, const MergeOptions& options) : into_(into), from_(from), options_(options) {}

  MergeCounts run() {
    auto tx = into_.batch();
    runs();
    measurements();
    ceilings();
    decisions();
    if (options_.binaries) binaries();
    tx.commit();
    return std::move(counts_);
  }

 private:
  // A read of `from`: a row tune would not have written (samples that are not numbers, say) is
  // the input's fault, named with the file; SQLite's own failures (a damaged page) stay as they are.
  template <class F>
  auto read(F f) -> decltype(f()) {
    try {
      return f();
    } catch (const InputError&) {
      throw;
    } catch (const sqlite::Failure&) {
      throw;
    } catch (const Error& e) {
      throw InputError(from_.path() + " holds rows tune would not have written: " + e.what());
    }
  }

  void runs() {
    std::map<RunKey, std::int64_t> present;
    for (const auto& r : into_.runs()) present.emplace(run_key(r), r.id);
    for (const auto& r : read([&] { return from_.runs(); })) {
      std::int64_t id = 0;
      if (options_.map_run) {
        id = options_.map_run(r);
      } else if (auto it = present.find(run_key(r)); it != present.end()) {
        id = it->second;
      } else {
        RunInfo copy = r;
        id = into_.begin_run(copy);
        present.emplace(run_key(r), id);
        ++counts_.runs;
      }
      counts_.run_ids[r.id] = id;
    }
  }

  std::int64_t run_of(std::int64_t from_run) const {
    auto it = counts_.run_ids.find(from_run);
    if (it == counts_.run_ids.end())
      throw InputError(from_.path() + ": a row names run " + std::to_string(from_run) +
                       ", which the file does not hold");
    return it->second;
  }

  // The configuration in `into` of `from`'s configuration id.
  std::int64_t config_of(std::int64_t from_id) {
    if (auto it = configs_.find(from_id); it != configs_.end()) return it->second;
    auto s = from_.database().cached("SELECT kernel, space_hash, params FROM configurations WHERE id = ?");
    s->bind(1, from_id);
    if (!s->step())
      throw InputError(from_.path() + ": a row names configuration " + std::to_string(from_id) +
                       ", which the file does not hold");
    const std::int64_t id = into_.upsert_configuration_canonical(s->text(0), s->text(1), s->text(2));
    configs_.emplace(from_id, id);
    return id;
  }

  void measurements() {
    for (const auto& kernel : from_.kernels()) {
      MeasurementFilter f{kernel};
      f.ok_only = false;
      f.with_samples = true;
      for (StoredMeasurement& m : read([&] { return from_.measurements(f); })) {
        check_not_future(m.measured_at, from_.path() + ": a measurement");
        m.config_id = config_of(m.config_id);
        m.run_id = run_of(m.run_id);
        auto s = into_.database().cached(
            "SELECT measured_at FROM measurements WHERE config_id = ? AND device = ? AND size = ?");
        s->bind_all(m.config_id, m.device, m.size.label());
        const bool newer = !s->step() || s->text(0) < m.measured_at;
        s->reset();
        if (!newer) {
          ++counts_.kept;
          continue;
        }
        into_.record(static_cast<const Measurement&>(m));
        ++counts_.measurements;
        counts_.kernel_devices.emplace(kernel, m.device);
      }
    }
  }

  void ceilings() {
    std::vector<std::string> devices;
    {
      auto s = from_.database().cached("SELECT DISTINCT device FROM ceilings ORDER BY device");
      while (s->step()) devices.push_back(s->text(0));
    }
    for (const auto& device : devices)
      for (Ceiling c : read([&] { return from_.ceilings(device); })) {
        c.run_id = run_of(c.run_id);
        into_.record_ceiling(c);
        ++counts_.ceilings;
      }
  }

  void decisions() {
    for (const auto& kernel : from_.kernels())
      for (Decision d : read([&] { return from_.decisions(kernel); })) {
        check_not_future(d.decided_at, from_.path() + ": a decision");
        auto s =
            into_.database().cached("SELECT decided_at FROM decisions WHERE kernel = ? AND device = ? AND size = ?");
        s->bind_all(d.kernel, d.device, d.size);
        const bool newer = !s->step() || s->text(0) < d.decided_at;
        s->reset();
        if (!newer) continue;
        d.run_id = run_of(d.run_id);
        d.winner_id = config_of(d.winner_id);
        for (auto& c : d.candidates) c.config_id = config_of(c.config_id);
        into_.record_decision(d);
        ++counts_.decisions;
      }
  }

  void binaries() {
    std::vector<std::string> keys;
    {
      auto s = from_.database().cached("SELECT key FROM binaries ORDER BY key");
      while (s->step()) keys.push_back(s->text(0));
    }
    for (const auto& key : keys) {
      auto s = into_.database().cached("SELECT 1 FROM binaries WHERE key = ?");
      s->bind(1, key);
      const bool present = s->step();
      s->reset();
      if (present) continue;
      if (auto b = read([&] { return from_.get_binary(key); })) {
        into_.put_binary(*b);
        ++counts_.binaries;
      }
    }
  }

  Store& into_;
  Store& from_;
  const MergeOptions& options_;
  MergeCounts counts_;
  std::map<std::int64_t, std::int64_t> configs_;  // from's configuration id -> into's
};

}  // namespace

MergeCounts merge(Store& into, Store& from, const MergeOptions& options) {
  if (same_file(into.path(), from.path()))
    throw InputError("cannot merge " + from.path() + " into itself: give another database");
  return Merger(into, from, options).run();
}

}  // namespace tune::store

// Internal to the runtime library: the table `tune header --table` writes (header/emit_json.cpp),
// read, validated against the kernel's spec, and the selection of the generated headers: select.h
// run on the table's model.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "select/select.h"
#include "spec/spec.h"
#include "tune/runtime.h"

namespace tune::runtime::detail {

struct TableDevice {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::size_t fallback = 0;
  std::vector<tune_select::Point> entries;  // the measured sizes, in the file's order (ascending by size)
  std::vector<tune_select::Candidate> candidates;
  std::vector<unsigned> regret;  // entries x candidates

  tune_select::Model model() const {
    return {entries.data(),    static_cast<unsigned>(entries.size()),
            candidates.data(), static_cast<unsigned>(candidates.size()),
            regret.data(),     static_cast<unsigned>(fallback)};
  }
};

struct Table {
  std::string kernel;                              // the database's name of the kernel
  std::vector<std::vector<expr::Value>> variants;  // values in the spec's parameter order
  std::size_t default_variant = 0;
  std::vector<TableDevice> devices;
};

// Throws tune::InputError naming the file and the cause: not a tune-table of version 2, made for
// another kernel or space (the spec's space hash), a value outside the spec's Values, an index
// or size out of range, more than the bounds (64 MiB, 100000 variants, 4096 devices, 100000
// entries per device).
Table load_table(const std::filesystem::path& path, const spec::Spec& spec);

struct Pick {
  Match match = Match::default_config;
  int device = -1;  // index into Table::devices; -1 for default_config
  std::size_t variant = 0;
  std::array<long long, 3> measured{1, 1, 1};  // the nearest measured size (the asked one by default)
  double regret = 1;                           // predicted time / the best time (measured when exact)
  double expected_ms = 0;                      // the variant's time there: the nearest measured size's best, scaled by
                                               // elements, times regret (0: unknown)
  std::vector<std::array<long long, 3>> evidence;  // the measured sizes the choice rests on, nearest first
};

// The selection of the generated headers' select(): the device's own table, else the first
// device (in the table's order) of the same compute capability (Match::other_device), else the
// spec's Default values; within a device's table, tune_select::select.
Pick select(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
            const std::array<long long, 3>& size);

// A candidate of the model at a size: its variant, predicted regret and whether its fast path applies.
struct Ranked {
  std::size_t variant = 0;
  double regret = 1;
  bool applies = true;
  std::array<long long, 3> align{1, 1, 1};  // its fast path's divisor per axis
};

// The model's n best candidates at `size` on the device that select() would use (empty for
// default_config), best first: tune_select::top_candidates.
std::vector<Ranked> top_candidates(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
                                   const std::array<long long, 3>& size, std::size_t n);
// The n candidates online tuning measures there, best first: tune_select::spread_candidates.
std::vector<Ranked> spread_candidates(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
                                      const std::array<long long, 3>& size, std::size_t n);

}  // namespace tune::runtime::detail

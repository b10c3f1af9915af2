// Internal to the runtime library: the table `tune header --table` writes (header/emit_json.cpp),
// read, validated against the kernel's spec, and the selection rule of the generated headers.
#pragma once
#include <array>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "spec/spec.h"
#include "tune/runtime.h"

namespace tune::runtime::detail {

struct TableEntry {
  std::array<long long, 3> size{1, 1, 1};
  std::size_t variant = 0;
  double time_ms = 0;
};

struct TableDevice {
  std::string name;
  int cc_major = 0, cc_minor = 0;
  std::size_t fallback = 0;
  std::vector<TableEntry> entries;  // in the file's order (ascending by size)
};

struct Table {
  std::string kernel;                              // the database's name of the kernel
  std::vector<std::vector<expr::Value>> variants;  // values in the spec's parameter order
  std::size_t default_variant = 0;
  std::vector<TableDevice> devices;
};

// Throws tune::InputError naming the file and the cause: not a tune-table of version 1, made for
// another kernel or space (the spec's space hash), a value outside the spec's Values, an index
// or size out of range, more than the bounds (64 MiB, 100000 variants, 4096 devices, 100000
// entries per device).
Table load_table(const std::filesystem::path& path, const spec::Spec& spec);

struct Pick {
  Match match = Match::default_config;
  int device = -1;  // index into Table::devices; -1 for default_config
  std::size_t variant = 0;
  std::array<long long, 3> measured{1, 1, 1};
};

// The rule of the generated headers' select() (header/emit_h.cpp), step for step.
Pick select(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
            const std::array<long long, 3>& size);

}  // namespace tune::runtime::detail

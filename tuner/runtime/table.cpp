#include "runtime/table.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"

namespace tune::runtime::detail {

namespace {

using json = nlohmann::json;

constexpr std::uintmax_t kMaxBytes = std::uintmax_t{64} << 20;
constexpr std::size_t kMaxVariants = 100000, kMaxDevices = 4096, kMaxEntries = 100000;

}  // namespace

Table load_table(const std::filesystem::path& path, const spec::Spec& spec) {
  const std::string file = path.string();
  auto bad = [&](const std::string& why) { return InputError(file + ": " + why); };
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) throw bad("no such table file (or not a regular file)");
  if (std::filesystem::file_size(path, ec) > kMaxBytes) throw bad("larger than 64 MiB: not a table");
  std::ifstream f(path, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  const json t = json::parse(text.str(), nullptr, false);
  if (!t.is_object() || t.value("format", json()) != "tune-table")
    throw bad("not a tune table (write one with `tune header --kernel K --table`)");
  if (t.value("version", json()) != 1)
    throw bad("table version " + t.value("version", json()).dump() + ", this library reads 1");
  if (t.value("kernel_name", json()) != spec.kernel.name)
    throw bad("the table is for kernel " + t.value("kernel_name", json()).dump(-1, ' ', true) + ", the spec " +
              spec.path.string() + " for '" + spec.kernel.name + "'");
  if (t.value("space_hash", json()) != spec::space_hash(spec))
    throw bad("the table was made for another search space than " + spec.path.string() +
              " (regenerate it with `tune header --table`)");
  json names = json::array();
  for (const auto& p : spec.parameters) names.push_back(p.name);
  if (t.value("parameters", json()) != names) throw bad("its parameters are not the spec's, in the spec's order");

  Table table;
  if (t.contains("kernel") && t["kernel"].is_string()) table.kernel = t["kernel"].get<std::string>();
  const json& variants = t.value("variants", json());
  if (!variants.is_array() || variants.empty() || variants.size() > kMaxVariants)
    throw bad("'variants' must be a list of 1.." + std::to_string(kMaxVariants) + " configurations");
  for (std::size_t v = 0; v < variants.size(); ++v) {
    const json& values = variants[v];
    if (!values.is_array() || values.size() != spec.parameters.size())
      throw bad("variant " + std::to_string(v) + " does not hold one value per parameter");
    std::vector<expr::Value> config;
    for (std::size_t p = 0; p < values.size(); ++p) {
      const auto& allowed = spec.parameters[p].values;
      const expr::Value x = spec::to_value(values[p]).value_or(expr::Value());
      auto known = std::find(allowed.begin(), allowed.end(), x);
      if (x.is_none() || known == allowed.end())
        throw bad("variant " + std::to_string(v) + ": " + spec.parameters[p].name + " = " +
                  values[p].dump(-1, ' ', true) + " is not one of the spec's Values");
      config.push_back(*known);
    }
    table.variants.push_back(std::move(config));
  }
  auto index = [&](const json& j, const std::string& what) {
    if (!j.is_number_unsigned() || j.get<std::uint64_t>() >= table.variants.size())
      throw bad(what + " is not a variant index");
    return static_cast<std::size_t>(j.get<std::uint64_t>());
  };
  table.default_variant = index(t.value("default", json()), "'default'");
  const json& devices = t.value("devices", json());
  if (!devices.is_array() || devices.size() > kMaxDevices) throw bad("'devices' must be a list of at most 4096");
  for (const json& d : devices) {
    TableDevice dev;
    if (!d.is_object() || !d.value("name", json()).is_string() || d["name"].get_ref<const std::string&>().size() > 1024)
      throw bad("a device without a name (a string of at most 1024 bytes)");
    dev.name = d["name"].get<std::string>();
    const json& cc = d.value("compute_capability", json());
    if (!cc.is_array() || cc.size() != 2 || !cc[0].is_number_unsigned() || !cc[1].is_number_unsigned() ||
        cc[0].get<std::uint64_t>() > 99 || cc[1].get<std::uint64_t>() > 99)
      throw bad("device '" + dev.name + "': compute_capability is not [major, minor]");
    dev.cc_major = cc[0].get<int>();
    dev.cc_minor = cc[1].get<int>();
    dev.fallback = index(d.value("fallback", json()), "device '" + dev.name + "': 'fallback'");
    const json& entries = d.value("entries", json());
    if (!entries.is_array() || entries.empty() || entries.size() > kMaxEntries)
      throw bad("device '" + dev.name + "': 'entries' must be a list of 1.." + std::to_string(kMaxEntries));
    for (const json& e : entries) {
      if (!e.is_array() || e.size() != 5 || !e[4].is_number() || !(e[4].get<double>() >= 0))
        throw bad("device '" + dev.name + "': an entry is not [x, y, z, variant, time_ms]");
      TableEntry entry;
      for (int i = 0; i < 3; ++i) {
        if (!e[i].is_number_unsigned() || e[i].get<std::uint64_t>() < 1 || e[i].get<std::uint64_t>() > (1ull << 40))
          throw bad("device '" + dev.name + "': a size is not a whole number in 1..2^40");
        entry.size[i] = e[i].get<long long>();
      }
      entry.variant = index(e[3], "device '" + dev.name + "': an entry's variant");
      entry.time_ms = e[4].get<double>();
      dev.entries.push_back(entry);
    }
    table.devices.push_back(std::move(dev));
  }
  return table;
}

Pick select(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
            const std::array<long long, 3>& size) {
  auto in_device = [&](std::size_t d) {
    const TableDevice& dev = table.devices[d];
    Pick p;
    p.device = static_cast<int>(d);
    const double want = double(size[0]) * double(size[1]) * double(size[2]);
    std::size_t best = dev.entries.size();
    double best_ratio = 0, best_elems = 0;
    for (std::size_t i = 0; i < dev.entries.size(); ++i) {
      const TableEntry& e = dev.entries[i];
      if (e.size == size) {
        p.match = Match::exact;
        p.variant = e.variant;
        p.measured = size;
        return p;
      }
      const double elems = double(e.size[0]) * double(e.size[1]) * double(e.size[2]);
      const double ratio = elems > want ? elems / want : want / elems;
      if (best == dev.entries.size() || ratio < best_ratio || (ratio == best_ratio && elems < best_elems)) {
        best = i;
        best_ratio = ratio;
        best_elems = elems;
      }
    }
    p.match = Match::nearest_size;
    p.variant = best == dev.entries.size() ? dev.fallback : dev.entries[best].variant;
    p.measured = best == dev.entries.size() ? size : dev.entries[best].size;
    return p;
  };
  for (std::size_t d = 0; d < table.devices.size(); ++d)
    if (table.devices[d].name == device_name) return in_device(d);
  for (std::size_t d = 0; d < table.devices.size(); ++d)
    if (cc_major > 0 && table.devices[d].cc_major == cc_major && table.devices[d].cc_minor == cc_minor) {
      Pick p = in_device(d);
      p.match = Match::other_device;
      return p;
    }
  Pick p;
  p.variant = table.default_variant;
  p.measured = size;
  return p;
}

}  // namespace tune::runtime::detail

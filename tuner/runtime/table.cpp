#include "runtime/table.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "common/error.h"
#include "select/spread.h"

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
  if (t.value("version", json()) != 2)
    throw bad("table version " + t.value("version", json()).dump() +
              ", this library reads 2 (regenerate it with `tune header --table`)");
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
    const std::string where = "device '" + dev.name + "': ";
    const json& entries = d.value("entries", json());
    if (!entries.is_array() || entries.empty() || entries.size() > kMaxEntries)
      throw bad(where + "'entries' must be a list of 1.." + std::to_string(kMaxEntries));
    auto size_of = [&](const json& v) {
      if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 1 || v.get<std::uint64_t>() > (1ull << 40))
        throw bad(where + "a size is not a whole number in 1..2^40");
      return v.get<long long>();
    };
    for (const json& e : entries) {
      if (!e.is_array() || e.size() != 6 || !e[4].is_number() || !(e[4].get<double>() >= 0) || !e[5].is_number() ||
          !(e[5].get<double>() > 0))
        throw bad(where + "an entry is not [x, y, z, variant, time_ms, best_ms]");
      tune_select::Point p{size_of(e[0]),      size_of(e[1]),
                           size_of(e[2]),      static_cast<unsigned>(index(e[3], where + "an entry's variant")),
                           e[4].get<double>(), e[5].get<double>()};
      dev.entries.push_back(p);
    }
    const json& candidates = d.value("candidates", json());
    if (!candidates.is_array() || candidates.empty() || candidates.size() > kMaxVariants)
      throw bad(where + "'candidates' must be a list of 1.." + std::to_string(kMaxVariants));
    for (const json& c : candidates) {
      if (!c.is_array() || c.size() != 4) throw bad(where + "a candidate is not [variant, align_x, align_y, align_z]");
      dev.candidates.push_back({static_cast<unsigned>(index(c[0], where + "a candidate's variant")),
                                {size_of(c[1]), size_of(c[2]), size_of(c[3])}});
    }
    const json& regret = d.value("regret", json());
    if (!regret.is_array() || regret.size() != dev.entries.size())
      throw bad(where + "'regret' must hold one row per entry");
    if (dev.entries.size() * dev.candidates.size() > std::size_t{64} << 20) throw bad(where + "too many regrets");
    for (const json& row : regret) {
      if (!row.is_array() || row.size() != dev.candidates.size())
        throw bad(where + "a 'regret' row does not hold one value per candidate");
      for (const json& r : row) {
        if (!r.is_number_unsigned() || r.get<std::uint64_t>() > (1ull << 31))
          throw bad(where + "a regret is not a whole number in 0..2^31 (regret x 10000, 0: not measured)");
        dev.regret.push_back(r.get<unsigned>());
      }
    }
    table.devices.push_back(std::move(dev));
  }
  return table;
}

namespace {

// The device whose table answers: its own, else the first of the same compute capability; -1: none.
int device_for(const Table& table, const std::string& device_name, int cc_major, int cc_minor, bool& other) {
  other = false;
  for (std::size_t d = 0; d < table.devices.size(); ++d)
    if (table.devices[d].name == device_name) return static_cast<int>(d);
  other = true;
  for (std::size_t d = 0; d < table.devices.size(); ++d)
    if (cc_major > 0 && table.devices[d].cc_major == cc_major && table.devices[d].cc_minor == cc_minor)
      return static_cast<int>(d);
  return -1;
}

Match match_of(tune_select::How how) {
  switch (how) {
    case tune_select::How::exact:
      return Match::exact;
    case tune_select::How::predicted:
      return Match::predicted;
    default:
      return Match::extrapolated;
  }
}

}  // namespace

Pick select(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
            const std::array<long long, 3>& size) {
  Pick p;
  p.measured = size;
  bool other = false;
  p.device = device_for(table, device_name, cc_major, cc_minor, other);
  if (p.device < 0) {
    p.variant = table.default_variant;
    return p;
  }
  const TableDevice& dev = table.devices[static_cast<std::size_t>(p.device)];
  const tune_select::Model m = dev.model();
  const tune_select::Choice c = tune_select::select(m, size[0], size[1], size[2]);
  p.variant = c.variant;
  p.match = other ? Match::other_device : match_of(c.how);
  p.regret = c.regret;
  if (c.nearest < m.num_sizes) {
    const tune_select::Point& e = m.sizes[c.nearest];
    p.measured = {e.x, e.y, e.z};
    const double elements = double(size[0]) * double(size[1]) * double(size[2]);
    p.expected_ms = e.best_ms * elements / (double(e.x) * double(e.y) * double(e.z)) * c.regret;
  }
  for (unsigned k = 0; k < c.count; ++k) {
    const tune_select::Point& e = m.sizes[c.evidence[k].size];
    p.evidence.push_back({e.x, e.y, e.z});
  }
  return p;
}

namespace {

// `rank` (the model, its choices) on the device select() would use; empty for default_config or n = 0.
template <class Rank>
std::vector<Ranked> ranked(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
                           std::size_t n, Rank rank) {
  bool other = false;
  const int d = device_for(table, device_name, cc_major, cc_minor, other);
  if (d < 0 || n == 0) return {};
  const tune_select::Model m = table.devices[static_cast<std::size_t>(d)].model();
  const std::vector<tune_select::Choice> c = rank(m);
  std::vector<Ranked> out;
  out.reserve(c.size());
  for (const auto& x : c) {
    const auto& a = m.candidates[x.candidate].align;
    out.push_back({x.variant, x.regret, x.applies, {a[0], a[1], a[2]}});
  }
  return out;
}

}  // namespace

std::vector<Ranked> top_candidates(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
                                   const std::array<long long, 3>& size, std::size_t n) {
  return ranked(table, device_name, cc_major, cc_minor, n, [&](const tune_select::Model& m) {
    std::vector<tune_select::Choice> c(std::min<std::size_t>(n, m.num_candidates));
    c.resize(tune_select::top_candidates(m, size[0], size[1], size[2], c.data(), static_cast<unsigned>(c.size())));
    return c;
  });
}

std::vector<Ranked> spread_candidates(const Table& table, const std::string& device_name, int cc_major, int cc_minor,
                                      const std::array<long long, 3>& size, std::size_t n) {
  return ranked(table, device_name, cc_major, cc_minor, n, [&](const tune_select::Model& m) {
    return tune_select::spread_candidates(m, size[0], size[1], size[2], n);
  });
}

}  // namespace tune::runtime::detail

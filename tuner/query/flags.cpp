#include "query/flags.h"

#include <algorithm>
#include <cstdio>

namespace tune::query {

namespace {

std::string percent(double fraction) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * fraction);
  return buf;
}

store::Flag flag(const std::string& kernel, const std::string& device, const std::string& size, store::FlagKind kind,
                 std::string text) {
  store::Flag f;
  f.kernel = kernel;
  f.device = device;
  f.size = size;
  f.kind = kind;
  f.text = std::move(text);
  return f;
}

}  // namespace

std::vector<store::Flag> flags_of(const std::string& kernel, const std::string& device,
                                  const std::vector<SizeVerdict>& v, double dip_ratio) {
  std::vector<store::Flag> out;
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0 && v[i].used().config_id != v[i - 1].used().config_id) {
      const Contender& prev = v[i - 1].used();
      const Contender& now = v[i].used();
      const auto kept = std::find_if(v[i].all.begin(), v[i].all.end(),
                                     [&](const Contender& c) { return c.config_id == prev.config_id; });
      // only a loss beyond the noise makes the change worth a flag: the previous configuration may
      // read as fast here in its single measurement while the decision re-measured others side by side
      const double loss = kept == v[i].all.end() ? 0.0 : kept->estimate.value / now.estimate.value - 1.0;
      if (kept == v[i].all.end() || loss > v[i].noise)
        out.push_back(flag(kernel, device, v[i].size, store::FlagKind::best_changes,
                           "the configuration used changes from " + prev.params + " (at " + v[i - 1].size + ") to " +
                               now.params + ": " +
                               (kept == v[i].all.end()
                                    ? std::string("it has no verified result here")
                                    : "it is " + percent(loss) + " slower here (noise " + percent(v[i].noise) + ")")));
    }
    if (i == 0 || i + 1 >= v.size()) continue;
    const double tl = v[i - 1].throughput(), tm = v[i].throughput(), tr = v[i + 1].throughput();
    const double lowest = std::min(tl, tr);
    const double noise = std::max({v[i - 1].noise, v[i].noise, v[i + 1].noise});
    if (tl > 0 && tr > 0 && tm > 0 && tm < dip_ratio * lowest && 1.0 - tm / lowest > 3.0 * noise)
      out.push_back(flag(kernel, device, v[i].size, store::FlagKind::dip,
                         "best throughput " + percent(1.0 - tm / lowest) + " below both neighbouring sizes (noise " +
                             percent(noise) + ")"));
  }
  return out;
}

std::vector<store::Flag> refresh_flags(store::Store& db, const std::string& kernel, const std::string& device) {
  auto flags = flags_of(kernel, device, verdicts(db, kernel, device));
  db.replace_flags(kernel, device, flags);
  return flags;
}

}  // namespace tune::query

// Flags of the data of a kernel on a device, from the verdicts at every stored size (verdict.h):
//   best_changes  the configuration used here differs from the one used at the previous stored
//                 size, which is slower here beyond the noise (it is not tied with the winner) or
//                 has no verified result here;
//   dip           the best throughput here is more than 15% below both neighbouring sizes', and the
//                 drop exceeds three times the noise of the three sizes (the plotted curve dips).
// They are a property of the data, not of a run: refresh_flags() replaces the stored set, so a
// re-run that measured nothing new stores the same flags again, once.
#pragma once
#include <string>
#include <vector>

#include "query/verdict.h"
#include "store/store.h"

namespace tune::query {

inline constexpr double kDipRatio = 0.85;

std::vector<store::Flag> flags_of(const std::string& kernel, const std::string& device,
                                  const std::vector<SizeVerdict>& verdicts, double dip_ratio = kDipRatio);

// Recomputes the flags of `kernel` on `device` from what is stored and replaces them.
std::vector<store::Flag> refresh_flags(store::Store& db, const std::string& kernel, const std::string& device);

}  // namespace tune::query

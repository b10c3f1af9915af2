// After a sweep: the sizes where the best configuration changes, and the sizes where throughput
// dips well below both neighbouring sizes (the partition-camping signature of the seeds).
#pragma once
#include <map>
#include <string>
#include <vector>

namespace tune::tuning {

struct SizeResult {
  std::string size;  // label, in sweep order (ascending)
  double elements = 0;  // problem elements, for a size-independent throughput when no GB/s
  // configuration (canonical params) -> throughput (GB/s, or elements per ms); verified results only
  std::map<std::string, double> throughput;
};

struct SizeFlag {
  std::string size;
  std::string kind;  // "best_changes" or "dip"
  std::string text;
};

// `dip_ratio`: a throughput below dip_ratio x both neighbours' is a dip (0.85: 15% below).
// `change_margin`: the best configuration changes at a size when the previous size's best is more
// than this fraction slower there than the new best, or has no verified result there (0.01: 1%);
// a closer race is measurement noise between near-equal configurations, not a change.
std::vector<SizeFlag> find_flags(const std::vector<SizeResult>& sweep, double dip_ratio = 0.85,
                                 double change_margin = 0.01);

}  // namespace tune::tuning

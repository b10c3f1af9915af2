// The table of a sweep (end of `tune run`, `tune report`): for each size of the sweep, the best configuration, its time and
// throughput, its fraction of the copy ceiling (GB/s kernels) or of the FP32 peak (GFLOP/s kernels), its ratio to the
// library, and the flags.
#pragma once
#include <string>
#include <vector>

#include "store/store.h"

namespace tune::query {

struct RunTotals {
  std::size_t compiled = 0, cached = 0, measured = 0, failed = 0;
  unsigned workers = 0;
  double compile_s = 0, measure_s = 0, wall_s = 0;
};

struct TableRow {
  std::string size, best;
  double median_ms = 0;
  std::optional<double> gbps, gflops;
  std::optional<double> copy_fraction;  // gbps / d2d copy GB/s at this size
  std::optional<double> peak_fraction;  // gflops / fp32_peak GFLOP/s at this size
  std::optional<double> library_ratio;  // library time / our time (>= 1: we are faster)
  // "cublas_sgeam", "cublas_sgemm" or "cublas_sgemm_argmax" (the last of these measured at this
  // size, in that order: the most specific library equivalent wins)
  std::string library;
  std::string flags;
};

// Rows from the stored results (so a resumed run shows its whole sweep). Ceilings per size: those
// of the run that measured the best configuration, else the latest run's.
std::vector<TableRow> run_table(store::Store& db, const std::string& kernel, const std::string& device,
                                const std::vector<std::string>& sizes);

// Flags as "size kind: text" lines printed under the table. Columns: GFLOP/s and "of peak" when any
// row has GFLOP/s; GB/s and "of copy" otherwise, or when a copy ceiling was measured too. JSON:
// every field of TableRow.
void print_run_table(store::Store& db, const std::string& kernel, const std::string& device,
                     const std::vector<std::string>& sizes, const std::vector<std::string>& flag_lines,
                     const RunTotals& totals, bool json);

}  // namespace tune::query

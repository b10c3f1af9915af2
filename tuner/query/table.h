// The table of a sweep (end of `tune run`, `tune report`): for each size, the configuration used
// (verdict.h), its time by the objective's statistic with the size's noise, its throughput, its
// fraction of the copy ceiling (GB/s kernels) or of the FP32 peak (GFLOP/s kernels), its ratio to
// the library, how many configurations are tied with it, what it gains over the best single
// configuration across the sizes, and the flags; with the notes that make it a claim: how the data
// was timed (or that it is a replay), the decision rule, ceilings that disagree with their
// neighbours.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "store/store.h"

namespace tune::query {

struct RunTotals {
  std::size_t compiled = 0, cached = 0, measured = 0, failed = 0;
  unsigned workers = 0;
  double compile_s = 0, measure_s = 0, wall_s = 0;
  double timed_s = 0;  // GPU time inside timed batches
};

struct TableRow {
  std::string size, best;  // best: the configuration used (canonical JSON), "" without a verified result
  double time_ms = 0;      // its objective
  double noise = 0;        // the winner's relative 95% half-width at this size
  std::size_t tied = 0;    // other configurations tied with it
  bool remeasured = false;
  std::optional<double> gbps, gflops;
  std::optional<double> copy_fraction;  // gbps / d2d copy GB/s at this size
  std::optional<double> peak_fraction;  // gflops / fp32_peak GFLOP/s at this size
  std::optional<double> library_ratio;  // library time / our time (>= 1: we are faster)
  // the library ceiling compared with (spec/ceilings.h: the last one listed among those measured
  // at this size, the most specific library equivalent)
  std::string library;
  // every library ceiling measured at this size, in spec/ceilings.h's order (the report lists them)
  struct Library {
    std::string name;
    double ratio = 0;              // its time / ours
    std::optional<double> gflops;  // its GFLOP/s, where it has a flop count
  };
  std::vector<Library> libraries;
  std::optional<double> single_loss;  // the best single configuration's time here / ours
  bool ceiling_suspect = false;       // a ceiling here disagrees implausibly with its neighbours
  std::string flags;
};

struct Table {
  std::vector<TableRow> rows;
  std::vector<std::string> timing;  // how the rows' data was timed: one line per distinct method
  bool replayed = false;            // some rows come from replayed or imported data
  std::string rule;                 // the decision rule (decision::describe)
  std::string statistic = "mean";
  std::string single_best;  // the best single configuration, "" when none was measured at every size
};

// Rows from the stored results (so a resumed run shows its whole sweep). Ceilings per size: those
// of the run that measured the configuration used, else the latest run's.
Table run_table(store::Store& db, const std::string& kernel, const std::string& device,
                const std::vector<std::string>& sizes);

// A ceiling value that is implausible against its neighbours: below a third of both neighbouring
// sizes' (or above three times both). Throughput curves rise with size, so a neighbour-relative
// test catches a measurement disturbed by the host (the 341 GB/s between 2078 and 3212 seen on an
// H100) without flagging the real curve.
bool implausible(double value, std::optional<double> left, std::optional<double> right);

// The table, then the flags as "size kind: text" lines and the totals. Columns: GFLOP/s and
// "of peak" when any row has GFLOP/s; GB/s and "of copy" otherwise, or when a copy ceiling was
// measured too. JSON: the same, one object.
// The text fits 100 columns (configurations as labels with a legend, notes wrapped) unless `wide`,
// which prints each configuration inline and the notes unbroken.
void print_run_table(store::Store& db, const std::string& kernel, const std::string& device,
                     const std::vector<std::string>& sizes, const RunTotals& totals, bool json, bool wide = false);

}  // namespace tune::query

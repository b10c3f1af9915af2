// The selection model's data (select.h) from a kernel's measurements on one device: every
// configuration's time at every measured size and the decision there. The query path, the
// generated headers and the --table JSON all build it here, so that each consumer runs select.h
// on the same numbers.
#pragma once
#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "select/select.h"

namespace tune::select {

using Extents = std::array<long long, 3>;

// What was measured at one size.
struct SizeMeasurements {
  Extents size{1, 1, 1};
  std::string decision;    // the configuration decided there (a key of times)
  double decision_ms = 0;  // its time as decided (the verdict's value)
  std::vector<std::pair<std::string, double>>
      times;  // every verified configuration: key, time (ms)
};

// A configuration's alignment divisors per axis (its fast path applies at multiples of them).
using Alignment = std::function<Extents(const std::string& config)>;

// The arrays behind a tune_select::Model. Variant v of the model is variants[v] (the keys given
// in SizeMeasurements); candidate c is variant c.
struct Data {
  std::vector<std::string> variants;
  std::vector<tune_select::Point> points;  // by element count, then extents
  std::vector<tune_select::Candidate> candidates;
  std::vector<unsigned>
      regret;             // points.size() rows of candidates.size() (x kScale, 0: not measured)
  unsigned fallback = 0;  // the variant decided at the most sizes (ties: the largest size)

  tune_select::Model model() const {
    return {points.data(),     static_cast<unsigned>(points.size()),
            candidates.data(), static_cast<unsigned>(candidates.size()),
            regret.data(),     fallback};
  }
};

// Candidates: at each size, the kTop fastest configurations of each alignment within `keep` of that
// alignment's best there, and every decision; ordered by mean regret over the sizes that measured them,
// then by key. An absent `alignment` gives every configuration {1, 1, 1}.
Data build(std::vector<SizeMeasurements> sizes, const Alignment& alignment,
           double keep = tune_select::kKeep);

// The text of select.h, as the generated headers paste it.
std::string_view source();

}  // namespace tune::select

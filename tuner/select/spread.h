// Which of the selection model's ranked candidates online tuning measures at a size: the ranking,
// spread over the candidates' alignments (their fast-path classes).
//
// The ranking (select.h, top_candidates) predicts from measured sizes; far from them (past the
// measured range, thin rectangles) one alignment's variants can fill every place of its top k:
// at 7246x961 (H200) the shipped recording's top 32 are all scalar, while a 2-wide vector
// configuration is 6% faster than the best of them (the template's vector path reads and writes
// misaligned rows too). Online tuning measures at the size, so it loses little by giving a few of
// its places to each alignment's best ranked variants. Used by tune::runtime's online tuning
// (runtime/table.cpp: spread_candidates) and scored by bench/select_eval (SELECT_EVAL_TOPK).
// Standard C++ and select.h only.
#ifndef TUNE_SELECT_SPREAD_H
#define TUNE_SELECT_SPREAD_H
#include <array>
#include <cstddef>
#include <vector>

#include "select/select.h"

namespace tune_select {

// The places each alignment keeps among online tuning's candidates (its best ranked variants).
inline constexpr std::size_t kPerAlignment = 2;

// ranked: each ranked candidate's alignment (its divisor per axis), best first. Returns the
// indices of at most k of them, best first: the first; each alignment's kPerAlignment best; then
// the rest in rank order.
inline std::vector<std::size_t> spread(const std::vector<std::array<long long, 3>>& ranked,
                                       std::size_t k) {
  std::vector<char> chosen(ranked.size(), 0);
  std::size_t taken = 0;
  const auto take = [&](std::size_t i) {
    if (chosen[i] == 0 && taken < k) chosen[i] = 1, ++taken;
  };
  if (!ranked.empty()) take(0);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    std::size_t better = 0;  // better ranked candidates of the same alignment
    for (std::size_t j = 0; j < i && better < kPerAlignment; ++j) better += ranked[j] == ranked[i];
    if (better < kPerAlignment) take(i);
  }
  for (std::size_t i = 0; i < ranked.size(); ++i) take(i);
  std::vector<std::size_t> out;
  out.reserve(taken);
  for (std::size_t i = 0; i < ranked.size(); ++i)
    if (chosen[i] != 0) out.push_back(i);
  return out;
}

// The k candidates online tuning measures at (x, y, z), best first: top_candidates' whole ranking
// there, spread over the candidates' alignments.
inline std::vector<Choice> spread_candidates(const Model& m, long long x, long long y, long long z,
                                             std::size_t k) {
  std::vector<Choice> all(m.num_candidates);
  all.resize(top_candidates(m, x, y, z, all.data(), m.num_candidates));
  std::vector<std::array<long long, 3>> align;
  align.reserve(all.size());
  for (const Choice& c : all) {
    const long long* a = m.candidates[c.candidate].align;
    align.push_back({a[0], a[1], a[2]});
  }
  std::vector<Choice> out;
  for (std::size_t i : spread(align, k)) out.push_back(all[i]);
  return out;
}

}  // namespace tune_select
#endif  // TUNE_SELECT_SPREAD_H

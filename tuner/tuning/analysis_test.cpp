#include "tuning/analysis.h"

#include <gtest/gtest.h>

using namespace tune::tuning;

namespace {
SizeResult at(const std::string& size, std::map<std::string, double> t) { return SizeResult{size, 0, std::move(t)}; }
}  // namespace

TEST(Analysis, RisingThroughputIsNoDip) {
  std::vector<SizeResult> s{at("128", {{"a", 20}}), at("256", {{"a", 80}}), at("384", {{"a", 180}}), at("512", {{"a", 300}})};
  EXPECT_TRUE(find_flags(s).empty());
}

TEST(Analysis, BestChangeAndCampingDip) {
  // "a" is best everywhere but collapses at 2048 (partition camping); "b" takes over there.
  std::vector<SizeResult> s{at("1792", {{"a", 3000}, {"b", 2500}}), at("1920", {{"a", 3050}, {"b", 2550}}),
                            at("2048", {{"a", 1200}, {"b", 2600}}), at("2176", {{"a", 3100}, {"b", 2650}})};
  auto f = find_flags(s);
  std::vector<std::string> kinds;
  for (const auto& x : f) kinds.push_back(x.size + ":" + x.kind);
  EXPECT_EQ(kinds, (std::vector<std::string>{"2048:best_changes", "2048:dip", "2176:best_changes"}));
  EXPECT_NE(f[1].text.find("a drops 61% below"), std::string::npos) << f[1].text;
}

TEST(Analysis, ABestChangeWithinTheMarginIsNoise) {
  // "b" overtakes "a" by 0.4% at 2 (noise between near-equal configurations: not flagged), by
  // "a" takes it back by 3% at 3 (flagged, with the loss); at 4 the former best "a" has no
  // verified result.
  std::vector<SizeResult> s{at("1", {{"a", 100}, {"b", 99.5}}), at("2", {{"a", 99.6}, {"b", 100}}),
                            at("3", {{"a", 100}, {"b", 97}}), at("4", {{"b", 101}})};
  auto f = find_flags(s);
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].size + ":" + f[0].kind, "3:best_changes");
  EXPECT_NE(f[0].text.find("from b (at 2) to a; the former best is 3% slower here"), std::string::npos) << f[0].text;
  EXPECT_EQ(f[1].size + ":" + f[1].kind, "4:best_changes");
  EXPECT_NE(f[1].text.find("the former best has no verified result here"), std::string::npos) << f[1].text;
  EXPECT_EQ(find_flags(s, 0.85, 0.0).size(), 3u);  // margin 0: every change of the best counts
}

TEST(Analysis, WholeSizeDip) {
  std::vector<SizeResult> s{at("1", {{"a", 100}}), at("2", {{"a", 50}}), at("3", {{"a", 100}})};
  auto f = find_flags(s);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].kind, "dip");
  EXPECT_EQ(f[0].size, "2");
}

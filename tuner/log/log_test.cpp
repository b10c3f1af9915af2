#include "log/log.h"

#include <gtest/gtest.h>

#include <string>

namespace tune::log {
namespace {

TEST(Log, ParsesEveryLevelNameAndNothingElse) {
  EXPECT_EQ(parse_level("trace"), Level::trace);
  EXPECT_EQ(parse_level("debug"), Level::debug);
  EXPECT_EQ(parse_level("info"), Level::info);
  EXPECT_EQ(parse_level("warn"), Level::warn);
  EXPECT_EQ(parse_level("error"), Level::error);
  EXPECT_EQ(parse_level("off"), Level::off);
  EXPECT_FALSE(parse_level("warning"));
  EXPECT_FALSE(parse_level("INFO"));
  EXPECT_FALSE(parse_level(""));
  EXPECT_FALSE(parse_level("critical"));
  ASSERT_EQ(level_names().size(), 6u);
  for (std::size_t i = 0; i < level_names().size(); ++i) EXPECT_EQ(parse_level(level_names()[i]), Level(i));
}

TEST(Log, FormatsWithFormatSpecifications) {
  EXPECT_EQ(format("{} of {}", 3, std::string("44")), "3 of 44");
  EXPECT_EQ(format("{:.2f} ms, {:.0f}, {:.4g}", 1.005, 2.5, 0.000123456), "1.00 ms, 2, 0.0001235");
  EXPECT_EQ(format("{:>5}|", "ab"), "   ab|");
}

TEST(Log, WritesOnlyAtOrAboveTheLevelInTheSetUpPattern) {
  setup(Level::warn, false);
  EXPECT_EQ(level(), Level::warn);
  EXPECT_FALSE(enabled(Level::info));
  EXPECT_TRUE(enabled(Level::error));
  testing::internal::CaptureStderr();
  info("not shown {}", 1);
  warn("shown {:.1f}", 2.26);
  error("also shown");
  flush();
  const std::string out = testing::internal::GetCapturedStderr();
  EXPECT_EQ(out.find("not shown"), std::string::npos) << out;
  EXPECT_NE(out.find("] warning shown 2.3"), std::string::npos) << out;
  EXPECT_NE(out.find("] error also shown"), std::string::npos) << out;

  set_level(Level::off);
  EXPECT_EQ(level(), Level::off);
  EXPECT_FALSE(enabled(Level::error));
  EXPECT_FALSE(enabled(Level::off));
  testing::internal::CaptureStderr();
  error("silent");
  flush();
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");

  setup(Level::debug, false);  // a second setup replaces the first
  EXPECT_EQ(level(), Level::debug);
  EXPECT_TRUE(enabled(Level::debug));
  EXPECT_FALSE(enabled(Level::trace));
}

}  // namespace
}  // namespace tune::log

#include "output/output.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace tune::output;  // NOLINT

namespace {

struct Env {
  std::string name;
  std::string old;
  bool had;
  Env(const std::string& n, const char* value) : name(n) {
    const char* o = std::getenv(n.c_str());
    had = o != nullptr;
    if (had) old = o;
    if (value)
      ::setenv(n.c_str(), value, 1);
    else
      ::unsetenv(n.c_str());
  }
  ~Env() {
    if (had)
      ::setenv(name.c_str(), old.c_str(), 1);
    else
      ::unsetenv(name.c_str());
  }
};

}  // namespace

TEST(Width, ColumnsElseOneHundred) {
  Env c("COLUMNS", "132");
  EXPECT_EQ(width(), 132u);  // stdout of a test is not a terminal
  Env none("COLUMNS", nullptr);
  EXPECT_EQ(width(), kDefaultWidth);
  Env bad("COLUMNS", "wide");
  EXPECT_EQ(width(), kDefaultWidth);
}

TEST(Wrap, NoLineOverTheBudgetEvenForALongWord) {
  const std::string text = "one two three " + std::string(250, 'x') + " four";
  for (const auto& l : wrap(text, 60)) EXPECT_LE(columns(l), 60u) << l;
  EXPECT_EQ(wrap("a b", 60), std::vector<std::string>{"a b"});
  EXPECT_EQ(wrap("  indented", 60), std::vector<std::string>{"  indented"});
}

TEST(TimeUnit, MicrosecondsBelowAMillisecond) {
  Env lang("LC_ALL", "en_US.UTF-8");
  const std::vector<double> small = {0.0036, 0.12};
  const TimeUnit u = time_unit(small);
  EXPECT_EQ(u.name, "\xC2\xB5s");
  EXPECT_EQ(format_time(0.0036, u), "3.60");  // three significant digits, not 0.0036 ms
  const std::vector<double> mixed = {0.5, 2.0};
  EXPECT_EQ(time_unit(mixed).name, "ms");
  const std::vector<double> slow = {1500.0};
  EXPECT_EQ(time_unit(slow).name, "s");
}

TEST(TimeUnit, UsWhereTheLocaleIsNotUtf8) {
  Env all("LC_ALL", "C");
  const std::vector<double> small = {0.0036};
  EXPECT_EQ(time_unit(small).name, "us");
}

TEST(Table, ColumnsAlignAndTheLastColumnGivesWay) {
  Table t({{"size", Align::left}, {"time", Align::right}, {"configuration", Align::left}});
  t.add({"128x128", "3.60", "c1"});
  t.add({"4096x4096 (beyond)", "120.12", std::string(200, 'y')});
  const auto lines = t.lines(80);
  ASSERT_EQ(lines.size(), 3u);
  for (const auto& l : lines) EXPECT_LE(columns(l), 80u) << l;
  // the time column ends at the same column on every line
  const auto end = lines[1].find("3.60") + 4;
  EXPECT_EQ(lines[2].find("120.12") + 6, end);
  EXPECT_EQ(lines[0].find("time") + 4, end);
  EXPECT_NE(lines[2].find("..."), std::string::npos);
}

TEST(Wrap, JsonBreaksBetweenMembers) {
  const std::string json = R"({"block_size_x":16,"block_size_y":32,"tile_size_y":2,"vector":4})";
  for (const auto& l : wrap(breakable(json), 30)) {
    EXPECT_LE(columns(l), 30u);
    EXPECT_TRUE(l.back() == ',' || l.back() == '}') << l;
  }
}

// An echoed value of thousands of characters is cut in the message; words of ordinary length and
// the message's spaces and lines are kept as they were.
TEST(ElideLongWords, AHugeValueIsCutAndTheRestKept) {
  const std::string huge(5000, '9');
  const std::string msg = "spec.json: Tune.arch: \"sm_" + huge + "\" is not an architecture\nsecond line";
  const std::string out = elide_long_words(msg);
  EXPECT_LT(out.size(), 200U);
  EXPECT_NE(out.find("...(5005 characters)"), std::string::npos) << out;
  EXPECT_EQ(out.rfind("spec.json: Tune.arch: \"sm_999", 0), 0U) << out;  // the word: the quotes and 5,003 more
  EXPECT_NE(out.find(" is not an architecture\nsecond line"), std::string::npos) << out;
  EXPECT_EQ(elide_long_words("short words stay"), "short words stay");
  const std::string utf8 = std::string(59, 'a') + "\xC2\xB5" + std::string(100, 'b');  // never half a code point
  const std::string cut = elide_long_words(utf8);
  EXPECT_EQ(cut.substr(0, 59), std::string(59, 'a'));
  EXPECT_NE(cut.find("...(160 characters)"), std::string::npos) << cut;
}

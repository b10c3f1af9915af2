// wrap_code: every line within the width, and the program means what it meant (compiled with the
// host compiler at -Wall -Wextra -Werror, before and after, and run).
#include "header/wrap.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "header/test_util.h"
#include "store/test_util.h"

namespace tune::header {
namespace {

// Every kind of line the breaks must handle, each longer than 40 columns.
const std::string kProgram = R"(#include <cstdio>
#define SUM(a, b) ((a) + (b) + 1000 + 2000 + 3000 + 4000 + 5000 + 6000)  // a comment on a directive
#define MORE(a) \
  (SUM(a, a) + 7000 + 8000 + 9000 + 10000 + 11000 + 12000 + 13000 + 14000)
/* a block comment that goes on for a while, beyond the width of the lines
   and on a second line that is also longer than the width: x = 0; */
static const char* kSpaced = "a string literal with spaces in it, longer than the width";
static const char* kSolid = "a_string_literal_without_a_single_space_longer_than_the_width";
static const char kChar = ' ';
static const char* kEscaped = "\101\102\103\x41\x42\x43_no_space_here_\060\061\062\u00e9\x4a\x4b_but_long";
int main() {
  int aVeryLongIdentifierThatIsLongerThanTheWidthOnItsOwnXX = 3 + 4 + 5 + 6 + 7 + 8 + 9;
  int value = 1 + 2 + 3 + 4 + 5 + 6 + 7 + 8;  // a trailing comment long enough to break: value = 0;
  //a_comment_without_any_space_in_it_that_is_longer_than_the_width_of_the_lines_value_=_0;
  std::printf("%d %d %d %s %s [%c]\n", SUM(1, 2), MORE(3), value + aVeryLongIdentifierThatIsLongerThanTheWidthOnItsOwnXX, kSpaced, kSolid, kChar);
  std::printf("%s\n", kEscaped);
}
)";

std::string built_and_run(const store::testing::TempDir& t, const std::string& name, const std::string& code) {
  std::ofstream(t.file(name + ".cpp")) << code;
  return testing::run("c++ -std=c++17 -Wall -Wextra -Werror -o " + t.file(name) + " " + t.file(name + ".cpp") + " && " +
                      t.file(name));
}

}  // namespace

TEST(Wrap, LinesWithinTheWidthAndTheSameProgram) {
  constexpr std::size_t kWidth = 40;
  const std::string wrapped = wrap_code(kProgram, kWidth);
  std::istringstream in(wrapped);
  for (std::string line; std::getline(in, line);) EXPECT_LE(line.size(), kWidth) << line << "\n\n" << wrapped;
  store::testing::TempDir t;
  const std::string before = built_and_run(t, "before", kProgram);
  ASSERT_EQ(before.rfind("FAILED", 0), std::string::npos) << before;
  EXPECT_EQ(built_and_run(t, "after", wrapped), before) << wrapped;
}

TEST(Wrap, ShortLinesAndRawStringsAreKept) {
  const std::string code = "int x = 1;\nconst char* r = R\"(a raw string that is longer than the width of forty)\";\n";
  EXPECT_EQ(wrap_code(code, 40), code);
  EXPECT_EQ(wrap_code("a\nb", 40), "a\nb");
}

}  // namespace tune::header

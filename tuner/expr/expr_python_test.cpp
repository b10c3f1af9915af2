// Differential test against CPython: testdata/python_cases.txt holds a few thousand expressions
// (random and hand-picked) with the repr CPython gives them, or !error where it raises; see
// testdata/make_cases.py for how they were made and the three mirrored differences.
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "expr/expr.h"

namespace tune::expr {
namespace {

struct Case {
  std::string source;
  std::string expected;
  int line;
};

struct CaseFile {
  std::vector<std::string> names;
  std::vector<Value> values;
  std::vector<Case> cases;
};

CaseFile load() {
  CaseFile f;
  std::ifstream in(TUNE_SOURCE_DIR "/tuner/expr/testdata/python_cases.txt");
  EXPECT_TRUE(in) << "cannot open python_cases.txt";
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty() || line[0] == '#') continue;
    auto tab = line.rfind('\t');
    if (tab == std::string::npos) {
      ADD_FAILURE() << "line " << number << " has no tab: " << line;
      continue;
    }
    std::string left = line.substr(0, tab), right = line.substr(tab + 1);
    if (left.rfind("env ", 0) == 0) {
      f.names.push_back(left.substr(4));
      f.values.push_back(evaluate(right, {"python_cases.txt", "env " + left.substr(4)}));
      continue;
    }
    f.cases.push_back({left, right, number});
  }
  return f;
}

TEST(PythonCases, EveryCaseMatchesCPython) {
  CaseFile f = load();
  ASSERT_EQ(f.names.size(), 13u);
  ASSERT_GT(f.cases.size(), 3000u);
  int failures = 0, errors = 0, values = 0;
  for (const Case& c : f.cases) {
    std::string got;
    bool truth = false, test_result = false;
    try {
      Program p = Program::compile(c.source, f.names, {"python_cases.txt", "line " + std::to_string(c.line)});
      Value v = p.eval(f.values);
      got = v.repr();
      truth = v.truthy();
      test_result = p.test(f.values);
      ++values;
    } catch (const Error& e) {
      got = "!error";
      ++errors;
      if (c.expected != "!error" && failures < 40) ADD_FAILURE() << "line " << c.line << ": " << e.what();
    }
    if (got != c.expected) {
      if (++failures <= 40)
        ADD_FAILURE() << "line " << c.line << ": `" << c.source << "` gave " << got << ", CPython " << c.expected;
    } else if (got != "!error") {
      EXPECT_EQ(truth, test_result) << "test() disagrees with eval().truthy() for `" << c.source << "`";
    }
  }
  EXPECT_EQ(failures, 0) << "of " << f.cases.size() << " cases";
  // Both outcomes are well represented, so neither half of the comparison is vacuous.
  EXPECT_GT(values, 1500);
  EXPECT_GT(errors, 500);
}

}  // namespace
}  // namespace tune::expr

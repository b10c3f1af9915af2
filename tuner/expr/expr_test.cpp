// Python semantics of the expression language. Expected values were produced by CPython 3.11
// (`python3 -c 'print(repr(<expression>))'`); each line checks a group as one tuple.
#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

#include "expr/expr.h"

namespace tune::expr {
namespace {

const Location kWhere{"spaces/test.json", "ConfigurationSpace.Conditions[0].Expression"};

std::string py(std::string_view source) { return evaluate(source, kWhere).repr(); }

TEST(Literals, NumbersStringsAndContainers) {
  EXPECT_EQ(py("0x1f + 0o17 + 0b101 + 1_000"), "1051");
  EXPECT_EQ(py("1.5e3, .5, 5., 1e-7, 1e22, 1/3, 2/3, 100.0, 1e16, 123456789.123"),
            "(1500.0, 0.5, 5.0, 1e-07, 1e+22, 0.3333333333333333, 0.6666666666666666, 100.0, 1e+16, 123456789.123)");
  EXPECT_EQ(py(R"('a\tb', "it's", 'say "hi"', 'both \' and "', '\x41\101', r'\n')"),
            R"(('a\tb', "it's", 'say "hi"', 'both \' and "', 'AA', '\\n'))");
  EXPECT_EQ(py("None, True, False"), "(None, True, False)");
  EXPECT_EQ(py("(1,)"), "(1,)");
  EXPECT_EQ(py("()"), "()");
  EXPECT_EQ(py("[]"), "[]");
  EXPECT_EQ(py("[1, (2, 3), [4]]"), "[1, (2, 3), [4]]");
  EXPECT_EQ(py("1, 2"), "(1, 2)");  // a bare tuple, as eval() accepts
  EXPECT_EQ(py("'ab' 'cd'"), "'abcd'");
  EXPECT_EQ(py("9223372036854775807"), "9223372036854775807");
}

TEST(Arithmetic, IntegerOperators) {
  EXPECT_EQ(py("7 + 3, 7 - 10, 6 * 7, 7 / 2, 6 / 3, 7 // 2, 7 % 3, 2 ** 10"), "(10, -3, 42, 3.5, 2.0, 3, 1, 1024)");
  EXPECT_EQ(py("6 & 3, 6 | 3, 6 ^ 3, ~6, 1 << 10, -16 >> 2, -1 >> 100"), "(2, 7, 5, -7, 1024, -4, -1)");
  EXPECT_EQ(py("-3, +3, - -3, -(2 ** 2), -2 ** 2, 2 ** -1 * 4"), "(-3, 3, 3, -4, -4, 2.0)");
  EXPECT_EQ(py("2 + 3 * 4 ** 2 // 5 - 1"), "10");  // precedence: ** then * // then + -
}

TEST(Arithmetic, FloorDivisionAndModuloRoundTowardNegativeInfinity) {
  EXPECT_EQ(py("-7 // 2, -7 % 3, 7 % -3, 7 // -2, -7 // -2, -7 % -3"), "(-4, 2, -2, -4, 3, -1)");
  EXPECT_EQ(py("7.5 // 2, -7.5 // 2, 7.5 % -2, -7.5 % 2, 5 // 0.3, -0.0 // 1, 0.0 % -1"),
            "(3.0, -4.0, -0.5, 0.5, 16.0, -0.0, -0.0)");
  EXPECT_EQ(py("divmod(-7, 2), divmod(7.5, 2)"), "((-4, 1), (3.0, 1.5))");
}

TEST(Arithmetic, PowerIsIntForNonNegativeIntExponents) {
  EXPECT_EQ(py("2 ** -1, 2 ** -2, 2.0 ** 3, (-2) ** 3, (-8.0) ** 3, 0 ** 0, 4 ** 0.5"),
            "(0.5, 0.25, 8.0, -8, -512.0, 1, 2.0)");
  EXPECT_EQ(py("(-2) ** 63"), "-9223372036854775808");
  EXPECT_EQ(py("pow(2, 8)"), "256");
}

TEST(Arithmetic, BoolsAreInts) {
  EXPECT_EQ(py("True + True, True * 10, True / 2, -True, ~False, True & False, True | 2, True == 1, True == 1.0"),
            "(2, 10, 0.5, -1, -1, False, 3, True, True)");
}

TEST(Arithmetic, SequenceConcatenationAndRepetition) {
  EXPECT_EQ(py("[1, 2] + [3], [0] * 3, 3 * [1, 2], (1,) + (2,), 'ab' * 2, 'ab' + 'cd', [1] * -2, () * 5"),
            "([1, 2, 3], [0, 0, 0], [1, 2, 1, 2, 1, 2], (1, 2), 'abab', 'abcd', [], ())");
}

TEST(Arithmetic, FloatReprMatchesPython) {
  EXPECT_EQ(py("0.1 + 0.2, 1e15, 1e16, 1e-4, 1e-5, -0.0, 5e-324, 1.7976931348623157e308"),
            "(0.30000000000000004, 1000000000000000.0, 1e+16, 0.0001, 1e-05, -0.0, 5e-324, 1.7976931348623157e+308)");
  EXPECT_EQ(py("1e308 * 10, -1e308 * 10"), "(inf, -inf)");
  EXPECT_EQ(py("float('nan'), float('nan') == float('nan'), float('nan') != float('nan')"), "(nan, False, True)");
  // Int division is correctly rounded beyond 2**53, as Python's is.
  EXPECT_EQ(py("9007199254740993 / 1, 9223372036854775807 / 3"), "(9007199254740992.0, 3.0744573456182584e+18)");
}

TEST(Comparison, MixedTypesAndChains) {
  EXPECT_EQ(py("1 == 1.0, 'a' == 1, [1, 2] == [1, 2.0], [1] == (1,), None == 0, (1, 2) != (1, 2)"),
            "(True, False, True, False, False, False)");
  EXPECT_EQ(py("1 < 2.5, 2.5 < 2, 'abc' < 'abd', 'Z' < 'a', [1, 2] < [1, 2, 0], (2,) > (1, 9)"),
            "(True, False, True, True, True, True)");
  // Exact int/float comparison: 2**53 + 1 is not equal to the float 2**53.
  EXPECT_EQ(py("9007199254740993 > 9007199254740992.0, 9007199254740993 == 9007199254740992.0"), "(True, False)");
  EXPECT_EQ(py("32 <= 8 * 16 <= 1024, 32 <= 8 * 200 <= 1024, 1 < 2 < 3 < 4, 1 < 3 > 2, 3 > 2 == 2"),
            "(True, False, True, True, True)");
  // A chain stops at the first false link: the `1/0` after it is never evaluated.
  EXPECT_EQ(py("3 < 2 < 1 / 0"), "False");
  EXPECT_EQ(py("None is None, 1 is None, [] is not None, (1 == 1) is True"), "(True, False, True, True)");
}

TEST(Logic, ShortCircuitReturnsOperands) {
  EXPECT_EQ(py("0 or 5, 3 or 5, 0 and 5, 3 and 5, '' or [] or 'x', None and 1, not 0, not [1], 0 and 1/0, 1 or 1/0"),
            "(5, 3, 0, 5, 'x', None, True, False, 0, 1)");
  EXPECT_EQ(py("'yes' if 1 else 'no', 'yes' if [] else 'no', 1 if 0 else 2 if 0 else 3"), "('yes', 'no', 3)");
  EXPECT_EQ(py("1 / 0 if 0 else 7"), "7");
  EXPECT_EQ(py("not 1 == 2, not (1 and 0)"), "(True, True)");
}

TEST(Sequences, MembershipIndexingAndSlicing) {
  EXPECT_EQ(
      py("3 in [1, 2, 3], 4 not in (1, 2), 'bc' in 'abc', 'x' in 'abc', 2.0 in [1, 2], [1] in [[1], 2], '' in ''"),
      "(True, True, True, False, True, True, True)");
  EXPECT_EQ(py("[10, 20, 30][0], [10, 20, 30][-1], 'abc'[1], (4, 5)[-2], [[1, 2], [3]][0][1], [1, 2, 3][True]"),
            "(10, 30, 'b', 4, 2, 2)");
  EXPECT_EQ(py("[1, 2, 3, 4, 5][1:3], [1, 2, 3, 4, 5][::-1], [1, 2, 3, 4, 5][::2], 'hello'[1:-1], (1, 2, 3)[5:], "
               "[1, 2, 3][-2:]"),
            "([2, 3], [5, 4, 3, 2, 1], [1, 3, 5], 'ell', (), [2, 3])");
}

TEST(Builtins, Values) {
  EXPECT_EQ(py("list(range(5)), list(range(2, 5)), list(range(10, 0, -3)), list(range(0)), list(range(5, 1))"),
            "([0, 1, 2, 3, 4], [2, 3, 4], [10, 7, 4, 1], [], [])");
  EXPECT_EQ(py("len('abc'), len([1, 2]), len(()), min(3, 1, 2), max([4, 9, 2]), min('bca'), max(1, 1.0), max(1.0, 1)"),
            "(3, 2, 0, 1, 9, 'a', 1, 1.0)");
  EXPECT_EQ(py("abs(-3), abs(-2.5), abs(True), int(3.9), int(-3.9), int('  42 '), int(True), float(3), float('1.5'), "
               "float('-inf')"),
            "(3, 2.5, 1, 3, -3, 42, 1, 3.0, 1.5, -inf)");
  EXPECT_EQ(py("str(1.5), str([1, 'a']), str('x'), bool([]), bool(0.1), sum([1, 2, 3]), sum([0.5, 0.25], 1), "
               "sum([[1], [2]], [])"),
            "('1.5', \"[1, 'a']\", 'x', False, True, 6, 1.75, [1, 2])");
  EXPECT_EQ(py("tuple([1, 2]), tuple('ab'), list((1, 2)), sorted([3, 1, 2]), any([0, 1]), all([1, 0])"),
            "((1, 2), ('a', 'b'), [1, 2], [1, 2, 3], True, False)");
}

TEST(Builtins, RoundIsBankersAndExactOnDecimals) {
  EXPECT_EQ(py("round(2.5), round(3.5), round(-2.5), round(2.675, 2), round(1.5, 0), round(1234, -2), "
               "round(1250, -2), round(1350, -2), round(7.0)"),
            "(2, 4, -2, 2.67, 2.0, 1200, 1200, 1400, 7)");
  EXPECT_EQ(py("round(0.125, 2), round(0.375, 2), round(5.0, -1), round(15.0, -1), round(1234.5, -2)"),
            "(0.12, 0.38, 0.0, 20.0, 1200.0)");
}

TEST(Comprehensions, ValuesFromRealSpecs) {
  // kernel_tuner/test/test_T1_input.json, test_cache_file_T1_input.json and bat/pnpoly-CAFF.json.
  EXPECT_EQ(py("[i for i in range(3,35,2)]"), "[3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31, 33]");
  EXPECT_EQ(py("[2**i for i in range(6)]"), "[1, 2, 4, 8, 16, 32]");
  EXPECT_EQ(py("[16*i for i in range(1,9)]"), "[16, 32, 48, 64, 80, 96, 112, 128]");
  EXPECT_EQ(py("[1] + [2*i for i in range(1,11)]"), "[1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]");
  EXPECT_EQ(py("list(range(32, 1000+1, 32))"),
            "[32, 64, 96, 128, 160, 192, 224, 256, 288, 320, 352, 384, 416, 448, 480, 512, 544, 576, 608, 640, "
            "672, 704, 736, 768, 800, 832, 864, 896, 928, 960, 992]");
  EXPECT_EQ(py("[128+64*i for i in range(15)]"),
            "[128, 192, 256, 320, 384, 448, 512, 576, 640, 704, 768, 832, 896, 960, 1024]");
}

TEST(Comprehensions, FiltersNestingAndScopes) {
  EXPECT_EQ(py("[x * y for x in range(1, 4) for y in range(x) if y % 2 == 0]"), "[0, 0, 0, 6]");
  EXPECT_EQ(py("[[y for y in range(x)] for x in range(4)]"), "[[], [0], [0, 1], [0, 1, 2]]");
  EXPECT_EQ(py("[c * 2 for c in 'ab']"), "['aa', 'bb']");
  EXPECT_EQ(py("sum(x * x for x in range(5)), max(i % 7 for i in range(20))"), "(30, 6)");
  // The loop variable shadows a slot of the same name inside the comprehension only.
  std::vector<std::string> names{"x"};
  std::vector<Value> vars{Value::integer(100)};
  Program p = Program::compile("[x for x in range(2)] + [x]", names, kWhere);
  EXPECT_EQ(p.eval(vars).repr(), "[0, 1, 100]");
  // The first iterable is evaluated outside: `x` there is the slot.
  EXPECT_EQ(Program::compile("[x + 1 for x in [x]]", names, kWhere).eval(vars).repr(), "[101]");
}

TEST(Variables, SizeExpressionsOverListsAndProblemSize) {
  std::vector<std::string> names{"ProblemSize", "filter_width", "filter_height", "block_size_x", "tile_size_x"};
  std::vector<Value> vars{Value::list({Value::integer(4096), Value::integer(4096)}),
                          evaluate("[i for i in range(3,35,2)]", kWhere),
                          evaluate("[i for i in range(3,35,2)]", kWhere), Value::integer(128), Value::integer(2)};
  Program size =
      Program::compile("(ProblemSize[0]+max(filter_width)-1) * (ProblemSize[1]+max(filter_height)-1)", names, kWhere);
  EXPECT_EQ(size.eval(vars).repr(), "17040384");  // (4096+33-1)**2
  EXPECT_EQ(size.used(), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(Program::compile("max(filter_height) * max(filter_width)", names, kWhere).eval(vars).as_int(), 33 * 33);
  EXPECT_EQ(Program::compile("(262144 // block_size_x) // tile_size_x", names, kWhere).eval(vars).as_int(), 1024);
  EXPECT_EQ(Program::compile("ProblemSize[0]*ProblemSize[1]", names, kWhere).eval(vars).as_int(), 4096 * 4096);
  EXPECT_EQ(Program::compile("ProblemSize[-1]", names, kWhere).eval(vars).as_int(), 4096);
}

TEST(Variables, UsedListsSlotsReadAscendingWithoutRepeats) {
  std::vector<std::string> names{"a", "b", "c", "unused"};
  EXPECT_EQ(Program::compile("c + a * c + a", names, kWhere).used(), (std::vector<std::size_t>{0, 2}));
  // A name read only on a short-circuited branch is still used; loop variables and builtins are not slots.
  EXPECT_EQ(Program::compile("0 and b or [a for a in range(3)]", names, kWhere).used(), (std::vector<std::size_t>{1}));
  EXPECT_TRUE(Program::compile("max(1, 2)", names, kWhere).used().empty());
}

TEST(ValueApi, AccessorsReprAndEquality) {
  EXPECT_EQ(Value().repr(), "None");
  EXPECT_EQ(Value::boolean(true).as_int(), 1);
  EXPECT_EQ(Value::integer(3).as_float(), 3.0);
  EXPECT_EQ(Value::string("it's").repr(), "\"it's\"");
  EXPECT_EQ(Value::string("a\nb").str(), "a\nb");
  EXPECT_EQ(Value::tuple({Value::integer(1)}).repr(), "(1,)");
  EXPECT_EQ(Value::list({Value::string("a"), Value::real(0.5)}).str(), "['a', 0.5]");
  EXPECT_TRUE(Value::integer(1) == Value::real(1.0));
  EXPECT_TRUE(Value::boolean(true) == Value::integer(1));
  EXPECT_FALSE(Value::string("1") == Value::integer(1));
  EXPECT_FALSE(Value::list({}) == Value::tuple({}));
  EXPECT_FALSE(Value::list({}).truthy());
  EXPECT_TRUE(Value::string(" ").truthy());
  EXPECT_EQ(Value::list({Value::integer(7)}).items().size(), 1u);
  try {
    (void)Value::real(1.5).as_int();
    FAIL() << "as_int accepted a float";
  } catch (const Error& e) {
    EXPECT_EQ(e.cause(), "'float' object cannot be interpreted as an integer");
    EXPECT_EQ(e.column(), 0u);
  }
  EXPECT_THROW((void)Value::integer(1).as_str(), Error);
  EXPECT_THROW((void)Value::string("x").items(), Error);
  EXPECT_THROW((void)Value().as_float(), Error);
}

TEST(ProgramApi, DefaultCopyAndMove) {
  Program none;
  EXPECT_TRUE(none.eval({}).is_none());
  EXPECT_FALSE(none.test({}));
  std::vector<std::string> names{"n"};
  Program p = Program::compile("[n * i for i in range(3)]", names, kWhere);
  Program copy = p;
  Program moved = std::move(p);
  std::vector<Value> vars{Value::integer(2)};
  EXPECT_EQ(copy.eval(vars).repr(), "[0, 2, 4]");
  EXPECT_EQ(moved.eval(vars).repr(), "[0, 2, 4]");
  EXPECT_EQ(moved.source(), "[n * i for i in range(3)]");
  copy = Program::compile("n > 1", names, kWhere);
  EXPECT_TRUE(copy.test(vars));
  EXPECT_EQ(copy.used(), (std::vector<std::size_t>{0}));
}

TEST(ProgramApi, OneProgramEvaluatesFromSeveralThreads) {
  std::vector<std::string> names{"n", "tag"};
  Program p = Program::compile("[tag + str(i * n) for i in range(50) if i % 7] + [n % 32 != 0]", names, kWhere);
  auto expected = [&](int n) {
    std::vector<Value> vars{Value::integer(n), Value::string("t")};
    return p.eval(vars).repr();
  };
  std::vector<std::string> want;
  want.reserve(64);
  for (int n = 0; n < 64; ++n) want.push_back(expected(n));
  std::vector<int> mismatches(4, 0);
  std::vector<std::thread> threads;
  threads.reserve(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int round = 0; round < 50; ++round)
        for (int n = 0; n < 64; ++n) mismatches[t] += expected(n) != want[n];
    });
  }
  for (auto& th : threads) th.join();
  for (int m : mismatches) EXPECT_EQ(m, 0);
}

TEST(ProgramApi, TestAgreesWithTruthiness) {
  std::vector<std::string> names{"v"};
  for (const char* src : {"v", "v and []", "v or ''", "[v]", "v * 0.0", "'' + str(v)"}) {
    Program p = Program::compile(src, names, kWhere);
    for (const Value& v :
         {Value::integer(0), Value::integer(3), Value::string(""), Value::list({}), Value::real(0.5)}) {
      std::vector<Value> vars{v};
      bool expect_error = false;
      bool truth = false;
      try {
        truth = p.eval(vars).truthy();
      } catch (const Error&) {
        expect_error = true;
      }
      if (expect_error)
        EXPECT_THROW(p.test(vars), Error) << src;
      else
        EXPECT_EQ(p.test(vars), truth) << src << " with " << v.repr();
    }
  }
}

}  // namespace
}  // namespace tune::expr

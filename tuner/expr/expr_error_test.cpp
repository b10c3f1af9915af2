// Errors: every kind names the file, the JSON location, the expression and the 1-based column;
// compile-time errors come from Program::compile, runtime errors from eval/test at the operator.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "expr/expr.h"
#include "expr/ops.h"

namespace tune::expr {
namespace {

const Location kWhere{"spaces/conv.json", "ConfigurationSpace.Conditions[1].Expression"};
const std::vector<std::string> kNames{"block_size_x", "block_size_y", "name", "sizes"};

struct Expected {
  const char* source;
  const char* cause;
  std::size_t column;
};

std::vector<Value> vars() {
  return {Value::integer(64), Value::integer(4), Value::string("cuda"),
          Value::list({Value::integer(1), Value::integer(2)})};
}

void check_compile_error(const Expected& e) {
  try {
    (void)Program::compile(e.source, kNames, kWhere);
    ADD_FAILURE() << "`" << e.source << "` compiled";
  } catch (const Error& err) {
    EXPECT_EQ(err.cause(), e.cause) << e.source;
    EXPECT_EQ(err.column(), e.column) << e.source;
  }
}

void check_runtime_error(const Expected& e) {
  Program p = Program::compile(e.source, kNames, kWhere);  // must compile
  for (bool use_test : {false, true}) {
    try {
      if (use_test)
        (void)p.test(vars());
      else
        (void)p.eval(vars());
      ADD_FAILURE() << "`" << e.source << "` evaluated";
    } catch (const Error& err) {
      EXPECT_EQ(err.cause(), e.cause) << e.source;
      EXPECT_EQ(err.column(), e.column) << e.source;
    }
  }
}

TEST(Errors, MessageNamesFileLocationExpressionAndColumn) {
  try {
    (void)Program::compile("blok_size * 2 > 64", kNames, kWhere);
    FAIL();
  } catch (const InputError& err) {  // expr::Error is a tune::InputError (exit code 2)
    EXPECT_STREQ(err.what(),
                 "spaces/conv.json: ConfigurationSpace.Conditions[1].Expression: unknown name 'blok_size' in "
                 "`blok_size * 2 > 64` at column 1");
  }
  Program p = Program::compile("block_size_x % (block_size_y - 4) == 0", kNames, kWhere);
  try {
    (void)p.test(vars());
    FAIL();
  } catch (const Error& err) {
    EXPECT_STREQ(err.what(),
                 "spaces/conv.json: ConfigurationSpace.Conditions[1].Expression: division by zero in "
                 "`block_size_x % (block_size_y - 4) == 0` at column 14");
  }
}

TEST(Errors, SyntaxErrors) {
  for (const Expected& e : std::vector<Expected>{
           {"(block_size_x + 2))", "unexpected ')'", 19},
           {"block_size_x +", "unexpected end of expression", 15},
           {"block_size_x $ 2", "invalid character '$'", 14},
           {"name == 'cuda", "unterminated string literal", 9},
           {"block_size_x 2", "unexpected '2'", 14},
           {"[1,, 2]", "unexpected ','", 4},
           {"1 if block_size_x", "unexpected end of expression", 18},
           {"block_size_x = 2", "unexpected '=' (use '==' to compare)", 14},
           {"07", "leading zeros in decimal integer literals are not permitted", 1},
           {"1__0", "invalid decimal literal", 1},
           {"0b102", "invalid binary literal", 1},
           {"1 + 99999999999999999999", "integer overflow", 5},                    // found by the fuzzer
           {"r'\\\xe9'", "non-ASCII characters in strings are not supported", 4},  // ditto
           {"'\\xe9'", "non-ASCII characters in strings are not supported", 2},
           {"not", "unexpected end of expression", 4},
       })
    check_compile_error(e);
}

TEST(Errors, UnsupportedPythonSaysSo) {
  for (const Expected& e : std::vector<Expected>{
           {"lambda x: x", "lambda is not supported", 1},
           {"{'a': 1}", "dicts and sets are not supported", 1},
           {"name.upper()", "attribute access is not supported", 5},
           {"max(sizes, default=0)", "keyword arguments are not supported", 12},
           {"(x for x in sizes)", "generator expressions are only supported as a function's only argument", 4},
           {"max(sizes, x for x in sizes)", "a generator expression must be the only argument", 14},
           {"[a for a, b in sizes]", "only a single name can be a loop variable", 8},
           {"1.5j", "complex numbers are not supported", 1},
           {"f'{name}'", "f-strings are not supported", 1},
           {"sizes[0](1)", "only builtin functions can be called", 9},
       })
    check_compile_error(e);
}

TEST(Errors, NamesAndCallsAreCheckedAtCompileTime) {
  for (const Expected& e : std::vector<Expected>{
           {"block_size_x * blok_size", "unknown name 'blok_size'", 16},
           // Even on a branch that would never run.
           {"0 and undefined_name", "unknown name 'undefined_name'", 7},
           {"[i for i in range(3)] + [i]", "unknown name 'i'", 26},
           {"len(sizes, 2)", "len() takes exactly 1 argument (2 given)", 1},
           {"1 + range()", "range() takes 1 to 3 arguments (0 given)", 5},
           {"max()", "max() takes at least 1 argument (0 given)", 1},
           {"round(1, 2, 3)", "round() takes 1 to 2 arguments (3 given)", 1},
           {"int(1, 2)", "int() takes at most 1 argument (2 given)", 1},
           {"print(1)", "unknown name 'print'", 1},
           {"max + 1", "builtin 'max' can only be called", 1},
           {"block_size_x(2)", "'block_size_x' is not callable", 1},
       })
    check_compile_error(e);
}

TEST(Errors, RuntimeErrorsPointAtTheOperatorOrCall) {
  for (const Expected& e : std::vector<Expected>{
           {"name % 2", "unsupported operand types for %: 'str' and 'int'", 6},
           {"block_size_x + name", "unsupported operand types for +: 'int' and 'str'", 14},
           {"block_size_x < name", "'<' not supported between instances of 'int' and 'str'", 14},
           {"1 < block_size_x < name", "'<' not supported between instances of 'int' and 'str'", 18},
           {"block_size_x // (block_size_y - 4)", "division by zero", 14},
           {"block_size_x / (block_size_y - 4)", "division by zero", 14},
           {"block_size_x * 1.5 % 0", "division by zero", 20},
           {"block_size_x ** 20", "integer overflow", 14},
           {"block_size_x * 9223372036854775807", "integer overflow", 14},
           {"-(-9223372036854775807 - block_size_y // 4)", "integer overflow", 1},
           {"sizes[block_size_y]", "list index out of range", 6},
           {"name[block_size_x]", "string index out of range", 5},
           {"block_size_x[0]", "'int' object is not subscriptable", 13},
           {"sizes[name]", "list indices must be integers or slices, not str", 6},
           {"2 + max(name, block_size_x)", "'>' not supported between instances of 'int' and 'str'", 5},
           {"int(name)", "invalid literal for int() with base 10: 'cuda'", 1},
           {"round(block_size_x * 1e300)", "integer overflow", 1},
           {"round(block_size_x * 1e308)", "cannot convert float infinity to integer", 1},
           {"[x for x in block_size_x]", "'int' object is not iterable", 4},
           {"block_size_x in block_size_y", "argument of type 'int' is not iterable", 14},
           {"block_size_x in name", "'in <string>' requires string as left operand, not int", 14},
           {"-name", "bad operand type for unary -: 'str'", 1},
           {"block_size_x is 64", "'is' is only supported with None, True or False", 14},
           {"list(range(0, 10, block_size_y - 4))", "range() arg 3 must not be zero", 6},
           {"sizes * block_size_x ** 4", "result too large (more than 16777216 items)", 7},
           {"range(block_size_x ** 10)", "range too large (more than 16777216 items)", 1},
           {"(-block_size_x) ** 0.5", "negative number cannot be raised to a fractional power", 17},
           {"block_size_x * 1.0 ** 1e6 * 10.0 ** 400", "float overflow (numerical result out of range)", 34},
       })
    check_runtime_error(e);
}

TEST(Errors, ShortCircuitAndConditionalsSkipFailingOperands) {
  Program p = Program::compile("block_size_y == 4 or block_size_x // 0 and name % 1", kNames, kWhere);
  EXPECT_TRUE(p.test(vars()));
  EXPECT_EQ(Program::compile("1 / 0 if block_size_y > 100 else sizes", kNames, kWhere).eval(vars()).repr(), "[1, 2]");
}

TEST(Errors, DeepNestingIsRefusedNotACrash) {
  std::string ok = std::string(60, '(') + "1" + std::string(60, ')');
  EXPECT_EQ(evaluate(ok, kWhere).repr(), "1");
  std::string deep = std::string(5000, '(') + "1" + std::string(5000, ')');
  check_compile_error({deep.c_str(), "expression nested too deeply", 151});
  std::string unary(100000, '-');
  EXPECT_THROW((void)Program::compile(unary + "1", kNames, kWhere), Error);
  std::string chain = "1";
  for (int k = 0; k < 5000; ++k) chain += "+1";
  EXPECT_THROW((void)Program::compile(chain, kNames, kWhere), Error);
  // A long flat list is not deep: 10,000 elements (about 49 KB) evaluate; past 64 KiB the
  // expression is refused by its length.
  std::string long_list = "[";
  for (int k = 0; k < 10000; ++k) long_list += std::to_string(k) + ",";
  EXPECT_EQ(evaluate(long_list + "][-1]", kWhere).as_int(), 9999);
  for (int k = 10000; k < 20000; ++k) long_list += std::to_string(k) + ",";
  EXPECT_THROW((void)Program::compile(long_list + "]", kNames, kWhere), Error);
}

TEST(Errors, WorkBudgetStopsRunawayExpressions) {
  const std::uint64_t saved = detail::default_budget();
  detail::set_default_budget(1 << 20);  // a sixteenth of the default, to keep the test quick
  check_runtime_error({"[0 for i in range(block_size_x ** 3) for j in range(block_size_x ** 3)]",
                       "expression too expensive to evaluate", 1});
  check_runtime_error({"len([0 for i in range(4000) for j in range(5000) if block_size_x < 0])",
                       "expression too expensive to evaluate", 29});  // the inner `for`
  detail::set_default_budget(saved);
  // The default budget is far above what real specs need: a 100,000-element Values list is fine.
  EXPECT_EQ(evaluate("len([i for i in range(100000) if i % 3])", kWhere).as_int(), 66666);
}

// A chained comparison evaluates its middle operand once. Observable through the work budget:
// the middle costs about 3n units (range, loop, appends), so a budget of 5n fits one evaluation
// of it but not two.
TEST(Errors, ChainEvaluatesMiddleOperandOnce) {
  const std::uint64_t saved = detail::default_budget();
  const int n = 100000;
  detail::set_default_budget(5 * n);
  std::vector<std::string> names{"n"};
  std::vector<Value> v{Value::integer(n)};
  EXPECT_TRUE(Program::compile("0 < len([0 for i in range(n)]) <= n", names, kWhere).test(v));
  EXPECT_THROW(
      (void)Program::compile("0 < len([0 for i in range(n)]) and len([0 for i in range(n)]) <= n", names, kWhere)
          .test(v),
      Error);
  detail::set_default_budget(saved);
}

}  // namespace
}  // namespace tune::expr

// libFuzzer entry point: any byte string is compiled as an expression over a few variables of
// every kind and, when it compiles, evaluated with eval() and test(). Only expr::Error may escape
// the library; anything else (a crash, a sanitizer report, another exception, a hang, runaway
// memory) is a bug. Also checked: test() agrees with eval().truthy(), and a value's repr() reads
// back to the same repr() (Python's repr is a literal for the values the language makes).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "expr/ops.h"

namespace {

using tune::expr::Error;
using tune::expr::Program;
using tune::expr::Value;

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "expr_fuzz: %.2000s\n", what.c_str());  // long values cut
  std::abort();
}

const std::vector<std::string>& names() {
  static const std::vector<std::string> n{"a", "b", "f", "s", "L", "T", "N", "t"};
  return n;
}

const std::vector<Value>& vars() {
  static const std::vector<Value> v{
      Value::integer(7),
      Value::integer(-9223372036854775807 - 1),
      Value::real(2.5),
      Value::string("ab'c"),
      Value::list({Value::integer(1), Value::real(-0.0), Value::string(""), Value::list({})}),
      Value::tuple({Value::integer(3)}),
      Value(),
      Value::boolean(true),
  };
  return v;
}

bool exact_literal(const std::string& repr) {
  // inf/nan have no literal; INT64_MIN's magnitude does not fit in a literal.
  return repr.find("inf") == std::string::npos && repr.find("nan") == std::string::npos &&
         repr.find("9223372036854775808") == std::string::npos;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  tune::expr::detail::set_default_budget(std::uint64_t{1} << 16);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Past the library's own 64 KiB bound, so that the refusal of long inputs is exercised too
  // (a 4 KB cut kept the fuzzer from ever building the ** chain that overflowed the stack).
  if (size > (std::size_t{1} << 17)) return -1;
  std::string_view source(reinterpret_cast<const char*>(data), size);
  const tune::expr::Location where{"fuzz.json", "Expression"};
  Program program;
  try {
    program = Program::compile(source, names(), where);
  } catch (const Error& e) {
    if (e.column() == 0 || e.column() > size + 1) fail("compile error column out of range: " + std::string(e.what()));
    return 0;
  }
  for (std::size_t slot : program.used())
    if (slot >= names().size()) fail("used() slot out of range");
  Value value;
  bool evaluated = false;
  try {
    value = program.eval(vars());
    evaluated = true;
  } catch (const Error& e) {
    if (e.column() == 0 || e.column() > size) fail("runtime error column out of range: " + std::string(e.what()));
  }
  bool tested = false, truth = false;
  try {
    truth = program.test(vars());
    tested = true;
  } catch (const Error&) {}
  if (evaluated != tested) fail("eval() and test() disagree on raising");
  if (!evaluated) return 0;
  if (truth != value.truthy()) fail("test() disagrees with eval().truthy()");
  std::string repr = value.repr();
  (void)value.str();
  if (exact_literal(repr)) {
    try {
      std::string again = tune::expr::evaluate(repr, where).repr();
      if (again != repr) fail("repr does not read back: " + repr + " -> " + again);
    } catch (const Error& e) {
      // Too deeply nested or too long (the 64 KiB bound) to read back are the acceptable failures.
      if (e.cause().find("nested too deeply") == std::string::npos &&
          e.cause().find("too complex") == std::string::npos && e.cause().find("at most 65536") == std::string::npos)
        fail("repr does not parse: " + repr + ": " + e.what());
    }
  }
  return 0;
}

// Internal to tuner/expr: Python's operators and builtins over Values (the VM's general path; the
// VM handles int-with-int inline). Everything here raises location-less errors (detail::raise).
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "expr/value_access.h"

namespace tune::expr::detail {

enum class BinOp : std::uint8_t { Add, Sub, Mul, Div, FloorDiv, Mod, Pow, LShift, RShift, BitAnd, BitOr, BitXor };
enum class UnOp : std::uint8_t { Neg, Pos, Invert, Not };
enum class CmpOp : std::uint8_t { Lt, Le, Gt, Ge, Eq, Ne, In, NotIn, Is, IsNot };

const char* symbol(BinOp op);
const char* symbol(UnOp op);
const char* symbol(CmpOp op);

// Work allowed to one evaluation: elements created, loop iterations, elements compared. Keeps a
// hostile or mistaken expression such as `[0]*10**9` or a nested range loop from exhausting memory
// or time; real specs use a tiny fraction of it.
struct Budget {
  std::uint64_t left;
  void charge(std::uint64_t n) {
    if (n > left) exhausted();
    left -= n;
  }
  [[noreturn]] static void exhausted();
};
// The budget each evaluation starts with (the fuzzer lowers it to find slow inputs faster).
std::uint64_t default_budget();
void set_default_budget(std::uint64_t units);

// Every value an evaluation builds is charged with its deep size (elements of nested sequences
// counted each time they occur, strings by length), so that sharing such as `[[x] * 99] * 99`
// cannot build something whose repr or comparison costs far more than was charged.
void charge_deep(Budget& budget, const Value& v);
// Python == that charges one unit per element it visits.
bool equal(Budget& budget, const Value& a, const Value& b);

// Integer arithmetic with Python's semantics on int64; overflow raises "integer overflow".
std::int64_t int_floordiv(std::int64_t a, std::int64_t b);
std::int64_t int_mod(std::int64_t a, std::int64_t b);
[[noreturn]] void overflow();

Value binary(Budget& budget, BinOp op, const Value& a, const Value& b);
Value unary(UnOp op, const Value& a);
bool compare(Budget& budget, CmpOp op, const Value& a, const Value& b);
// Python <: numbers with numbers, str with str, list with list, tuple with tuple; else TypeError.
bool less(Budget& budget, const Value& a, const Value& b);
// Exact comparison of an int with a float: -1, 0, 1, or 2 when f is NaN.
int compare_int_float(std::int64_t i, double f);

// Sequence + and * (str, list, tuple), and `item in container`.
Value concat(Budget& budget, const Value& a, const Value& b);
Value repeat(Budget& budget, const Value& seq, std::int64_t times);
bool contains(Budget& budget, const Value& container, const Value& item);

// Sequence access. For a list or tuple, the element is returned by reference into `seq`;
// for a string, a new one-character string is built in `tmp`.
std::size_t normalize_index(const Value& seq, const Value& index);
const Value& index(const Value& seq, const Value& index, Value& tmp);
Value slice(Budget& budget, const Value& seq, const Value& lo, const Value& hi, const Value& step);
std::size_t length(const Value& seq);  // str, list or tuple; TypeError otherwise

// Builtin functions.
enum class Builtin : std::uint8_t {
  Range,
  List,
  Tuple,
  Len,
  Min,
  Max,
  Abs,
  Int,
  Float,
  Round,
  Str,
  Bool,
  Sum,
  Sorted,
  Any,
  All,
  Pow,
  Divmod
};
std::optional<Builtin> find_builtin(std::string_view name);
const char* builtin_name(Builtin b);
// Empty when `argc` arguments are accepted, else the message ("len() takes exactly 1 argument (2 given)").
std::string check_arity(Builtin b, std::size_t argc);
Value call(Budget& budget, Builtin b, std::span<const Value> args);

// Number parsing shared by the lexer and int()/float(): Python's literal syntax, underscores
// between digits allowed. Return nullopt on malformed text; parse_int raises on overflow.
std::optional<std::int64_t> parse_int(std::string_view digits, int base);
std::optional<double> parse_float(std::string_view text);

}  // namespace tune::expr::detail

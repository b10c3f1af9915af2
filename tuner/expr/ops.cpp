// Python's arithmetic on Values: floor // and %, true /, int ** int, bitwise operators on ints,
// unary operators; sequence + and * are delegated to sequence.cpp.
#include "expr/ops.h"

#include <climits>
#include <cmath>
#include <cstring>

namespace tune::expr::detail {

namespace {

std::uint64_t g_default_budget = std::uint64_t{1} << 24;

[[noreturn]] void zero_division() { raise("division by zero"); }

[[noreturn]] void operand_error(BinOp op, const Value& a, const Value& b) {
  raise(std::string("unsupported operand types for ") + symbol(op) + ": '" + type_name(a) + "' and '" + type_name(b) +
        "'");
}

// Python's true division of two ints, correctly rounded even beyond 2^53.
double int_truediv(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division();
  constexpr std::int64_t exact = std::int64_t{1} << 53;
  if (a >= -exact && a <= exact && b >= -exact && b <= exact) return static_cast<double>(a) / static_cast<double>(b);
  bool negative = (a < 0) != (b < 0);
  if (a == 0) return b < 0 ? -0.0 : 0.0;
  unsigned __int128 ua = a < 0 ? -static_cast<unsigned __int128>(a) : a;
  unsigned __int128 ub = b < 0 ? -static_cast<unsigned __int128>(b) : b;
  auto bits = [](unsigned __int128 v) { return 64 - __builtin_clzll(static_cast<std::uint64_t>(v)); };
  int shift = std::max(0, 62 + bits(ub) - bits(ua));
  unsigned __int128 num = ua << shift;
  auto q = static_cast<std::uint64_t>(num / ub);
  bool sticky = num % ub != 0;
  double r = std::ldexp(static_cast<double>(q | (sticky ? 1 : 0)), -shift);
  return negative ? -r : r;
}

double float_floordiv(double a, double b) {
  if (b == 0.0) zero_division();
  double mod = std::fmod(a, b);
  double div = (a - mod) / b;
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) div -= 1.0;
  }
  if (div != 0.0) {
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
  }
  return std::copysign(0.0, a / b);
}

double float_mod(double a, double b) {
  if (b == 0.0) zero_division();
  double mod = std::fmod(a, b);
  if (mod != 0.0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(0.0, b);
  }
  return mod;
}

bool odd_integer(double w) { return std::fmod(std::fabs(w), 2.0) == 1.0; }

// CPython's float_pow, special cases included.
double float_pow(double v, double w) {
  if (w == 0.0) return 1.0;
  if (std::isnan(v)) return v;
  if (std::isnan(w)) return v == 1.0 ? 1.0 : w;
  if (std::isinf(w)) {
    double av = std::fabs(v);
    if (av == 1.0) return 1.0;
    return ((w > 0.0) == (av > 1.0)) ? std::fabs(w) : 0.0;
  }
  if (std::isinf(v)) {
    bool odd = odd_integer(w);
    if (w > 0.0) return odd ? v : std::fabs(v);
    return odd ? std::copysign(0.0, v) : 0.0;
  }
  if (v == 0.0) {
    if (w < 0.0) raise("division by zero (0.0 cannot be raised to a negative power)");
    return odd_integer(w) ? v : 0.0;
  }
  bool negate = false;
  if (v < 0.0) {
    if (w != std::floor(w)) raise("negative number cannot be raised to a fractional power");
    v = -v;
    negate = odd_integer(w);
  }
  if (v == 1.0) return negate ? -1.0 : 1.0;
  double r = std::pow(v, w);
  if (std::isinf(r)) raise("float overflow (numerical result out of range)");
  return negate ? -r : r;
}

std::int64_t int_pow(std::int64_t base, std::int64_t exp) {
  std::int64_t result = 1;
  while (true) {
    if (exp & 1)
      if (__builtin_mul_overflow(result, base, &result)) overflow();
    exp >>= 1;
    if (!exp) return result;
    if (__builtin_mul_overflow(base, base, &base)) overflow();
  }
}

Value int_binary(BinOp op, std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  switch (op) {
    case BinOp::Add:
      if (__builtin_add_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinOp::Sub:
      if (__builtin_sub_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinOp::Mul:
      if (__builtin_mul_overflow(a, b, &r)) overflow();
      return Value::integer(r);
    case BinOp::Div:
      return Value::real(int_truediv(a, b));
    case BinOp::FloorDiv:
      return Value::integer(int_floordiv(a, b));
    case BinOp::Mod:
      return Value::integer(int_mod(a, b));
    case BinOp::Pow:
      if (b < 0) return Value::real(float_pow(static_cast<double>(a), static_cast<double>(b)));
      return Value::integer(int_pow(a, b));
    case BinOp::LShift:
      if (b < 0) raise("negative shift count");
      if (a == 0) return Value::integer(0);
      if (b >= 64) overflow();
      r = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b);
      if ((r >> b) != a) overflow();
      return Value::integer(r);
    case BinOp::RShift:
      if (b < 0) raise("negative shift count");
      return Value::integer(b >= 64 ? (a < 0 ? -1 : 0) : a >> b);
    case BinOp::BitAnd:
      return Value::integer(a & b);
    case BinOp::BitOr:
      return Value::integer(a | b);
    case BinOp::BitXor:
      return Value::integer(a ^ b);
  }
  return {};
}

Value float_binary(BinOp op, double a, double b) {
  switch (op) {
    case BinOp::Add:
      return Value::real(a + b);
    case BinOp::Sub:
      return Value::real(a - b);
    case BinOp::Mul:
      return Value::real(a * b);
    case BinOp::Div:
      if (b == 0.0) zero_division();
      return Value::real(a / b);
    case BinOp::FloorDiv:
      return Value::real(float_floordiv(a, b));
    case BinOp::Mod:
      return Value::real(float_mod(a, b));
    case BinOp::Pow:
      return Value::real(float_pow(a, b));
    default:
      return {};
  }
}

bool is_bitwise(BinOp op) {
  return op == BinOp::LShift || op == BinOp::RShift || op == BinOp::BitAnd || op == BinOp::BitOr || op == BinOp::BitXor;
}

}  // namespace

void Budget::exhausted() { raise("expression too expensive to evaluate"); }

std::uint64_t default_budget() { return g_default_budget; }
void set_default_budget(std::uint64_t units) { g_default_budget = units; }

void overflow() { raise("integer overflow"); }

std::int64_t int_floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division();
  if (b == -1) {
    if (a == INT64_MIN) overflow();
    return -a;
  }
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

std::int64_t int_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division();
  if (b == -1) return 0;
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

const char* symbol(BinOp op) {
  static const char* const names[] = {"+", "-", "*", "/", "//", "%", "**", "<<", ">>", "&", "|", "^"};
  return names[static_cast<int>(op)];
}
const char* symbol(UnOp op) {
  static const char* const names[] = {"-", "+", "~", "not"};
  return names[static_cast<int>(op)];
}
const char* symbol(CmpOp op) {
  static const char* const names[] = {"<", "<=", ">", ">=", "==", "!=", "in", "not in", "is", "is not"};
  return names[static_cast<int>(op)];
}

Value binary(Budget& budget, BinOp op, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.is_integral() && b.is_integral()) {
      if (a.type() == Type::Bool && b.type() == Type::Bool &&
          (op == BinOp::BitAnd || op == BinOp::BitOr || op == BinOp::BitXor)) {
        bool x = a.truthy(), y = b.truthy();
        return Value::boolean(op == BinOp::BitAnd ? (x && y) : op == BinOp::BitOr ? (x || y) : (x != y));
      }
      return int_binary(op, a.as_int(), b.as_int());
    }
    if (is_bitwise(op)) operand_error(op, a, b);
    return float_binary(op, a.as_float(), b.as_float());
  }
  bool seq_a = a.type() == Type::Str || a.is_sequence();
  bool seq_b = b.type() == Type::Str || b.is_sequence();
  if (op == BinOp::Add && seq_a && a.type() == b.type()) return concat(budget, a, b);
  if (op == BinOp::Mul && seq_a && b.is_integral()) return repeat(budget, a, b.as_int());
  if (op == BinOp::Mul && seq_b && a.is_integral()) return repeat(budget, b, a.as_int());
  operand_error(op, a, b);
}

Value unary(UnOp op, const Value& a) {
  if (op == UnOp::Not) return Value::boolean(!a.truthy());
  if (a.is_integral()) {
    std::int64_t v = a.as_int();
    if (op == UnOp::Invert) return Value::integer(~v);
    if (op == UnOp::Neg) {
      if (v == INT64_MIN) overflow();
      return Value::integer(-v);
    }
    return Value::integer(v);
  }
  if (a.type() == Type::Float && op != UnOp::Invert) return Value::real(op == UnOp::Neg ? -a.as_float() : a.as_float());
  raise(std::string("bad operand type for unary ") + symbol(op) + ": '" + type_name(a) + "'");
}

}  // namespace tune::expr::detail

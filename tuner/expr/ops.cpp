// Python's operators on Values: arithmetic (floor // and %, true /, int ** int), sequence +/*,
// comparisons (numeric across int/float, lexicographic for str/list/tuple), `in`, indexing, slicing.
#include "expr/ops.h"

#include <climits>
#include <cmath>
#include <cstring>

namespace tune::expr::detail {

namespace {

std::uint64_t g_default_budget = std::uint64_t{1} << 24;
constexpr std::size_t kMaxLength = std::size_t{1} << 24;  // elements or characters in one value

[[noreturn]] void zero_division() { raise("division by zero"); }

[[noreturn]] void operand_error(BinOp op, const Value& a, const Value& b) {
  raise(std::string("unsupported operand types for ") + symbol(op) + ": '" + type_name(a) + "' and '" +
        type_name(b) + "'");
}

void check_length(std::uint64_t n) {
  if (n > kMaxLength) raise("result too large (more than " + std::to_string(kMaxLength) + " items)");
}

// Python's true division of two ints, correctly rounded even beyond 2^53.
double int_truediv(std::int64_t a, std::int64_t b) {
  if (b == 0) zero_division();
  constexpr std::int64_t exact = std::int64_t{1} << 53;
  if (a >= -exact && a <= exact && b >= -exact && b <= exact)
    return static_cast<double>(a) / static_cast<double>(b);
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
    case BinOp::Div: return Value::real(int_truediv(a, b));
    case BinOp::FloorDiv: return Value::integer(int_floordiv(a, b));
    case BinOp::Mod: return Value::integer(int_mod(a, b));
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
    case BinOp::BitAnd: return Value::integer(a & b);
    case BinOp::BitOr: return Value::integer(a | b);
    case BinOp::BitXor: return Value::integer(a ^ b);
  }
  return {};
}

Value float_binary(BinOp op, double a, double b) {
  switch (op) {
    case BinOp::Add: return Value::real(a + b);
    case BinOp::Sub: return Value::real(a - b);
    case BinOp::Mul: return Value::real(a * b);
    case BinOp::Div:
      if (b == 0.0) zero_division();
      return Value::real(a / b);
    case BinOp::FloorDiv: return Value::real(float_floordiv(a, b));
    case BinOp::Mod: return Value::real(float_mod(a, b));
    case BinOp::Pow: return Value::real(float_pow(a, b));
    default: return {};
  }
}

Value concat(Budget& budget, const Value& a, const Value& b) {
  if (a.type() == Type::Str) {
    const std::string& x = a.as_str();
    const std::string& y = b.as_str();
    check_length(x.size() + y.size());
    budget.charge(x.size() + y.size());
    return Value::string(x + y);
  }
  const auto& x = a.items();
  const auto& y = b.items();
  check_length(x.size() + y.size());
  charge_deep(budget, a);
  charge_deep(budget, b);
  std::vector<Value> out;
  out.reserve(x.size() + y.size());
  out.insert(out.end(), x.begin(), x.end());
  out.insert(out.end(), y.begin(), y.end());
  return a.type() == Type::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

Value repeat(Budget& budget, const Value& seq, std::int64_t times) {
  std::size_t n = seq.type() == Type::Str ? seq.as_str().size() : seq.items().size();
  std::uint64_t count = times <= 0 || n == 0 ? 0 : static_cast<std::uint64_t>(times);
  if (count > kMaxLength) check_length(count);
  check_length(count * n);
  budget.charge(count * n);
  if (seq.is_sequence())
    for (std::uint64_t k = 0; k < count; ++k) charge_deep(budget, seq);
  if (seq.type() == Type::Str) {
    std::string out;
    out.reserve(count * n);
    for (std::uint64_t k = 0; k < count; ++k) out += seq.as_str();
    return Value::string(std::move(out));
  }
  std::vector<Value> out;
  out.reserve(count * n);
  for (std::uint64_t k = 0; k < count; ++k) out.insert(out.end(), seq.items().begin(), seq.items().end());
  return seq.type() == Type::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

bool is_bitwise(BinOp op) {
  return op == BinOp::LShift || op == BinOp::RShift || op == BinOp::BitAnd || op == BinOp::BitOr ||
         op == BinOp::BitXor;
}

std::int64_t clamp_index(const Value& v, std::int64_t none_value) {
  if (v.is_none()) return none_value;
  if (!v.is_integral())
    raise("slice indices must be integers or None, not " + std::string(type_name(v)));
  return v.as_int();
}

}  // namespace

void Budget::exhausted() { raise("expression too expensive to evaluate"); }

void charge_deep(Budget& budget, const Value& v) {
  budget.charge(1);
  if (v.type() == Type::Str) {
    budget.charge(v.as_str().size() / 16);
  } else if (v.is_sequence()) {
    for (const Value& e : v.items()) charge_deep(budget, e);
  }
}

bool equal(Budget& budget, const Value& a, const Value& b) {
  budget.charge(1);
  if (a.type() == Type::Str && b.type() == Type::Str) budget.charge(a.as_str().size() / 64);
  if (a.type() != b.type() || !a.is_sequence()) return a == b;
  const auto& x = a.items();
  const auto& y = b.items();
  if (&x == &y) return true;
  if (x.size() != y.size()) return false;
  for (std::size_t k = 0; k < x.size(); ++k)
    if (!equal(budget, x[k], y[k])) return false;
  return true;
}
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
  if (a.type() == Type::Float && op != UnOp::Invert)
    return Value::real(op == UnOp::Neg ? -a.as_float() : a.as_float());
  raise(std::string("bad operand type for unary ") + symbol(op) + ": '" + type_name(a) + "'");
}

int compare_int_float(std::int64_t i, double f) {
  if (std::isnan(f)) return 2;
  if (f >= 9223372036854775808.0) return -1;
  if (f < -9223372036854775808.0) return 1;
  auto t = static_cast<std::int64_t>(f);  // truncation is exact in range
  if (i != t) return i < t ? -1 : 1;
  double frac = f - static_cast<double>(t);
  return frac > 0 ? -1 : frac < 0 ? 1 : 0;
}

namespace {

// -1, 0, 1 for numbers (2 if unordered because of NaN).
int compare_numbers(const Value& a, const Value& b) {
  if (a.type() == Type::Float && b.type() == Type::Float) {
    double x = a.as_float(), y = b.as_float();
    return x < y ? -1 : x > y ? 1 : x == y ? 0 : 2;
  }
  if (a.type() == Type::Float) {
    int c = compare_int_float(b.as_int(), a.as_float());
    return c == 2 ? 2 : -c;
  }
  if (b.type() == Type::Float) return compare_int_float(a.as_int(), b.as_float());
  std::int64_t x = a.as_int(), y = b.as_int();
  return x < y ? -1 : x > y ? 1 : 0;
}

bool ordered(Budget& budget, CmpOp op, const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    int c = compare_numbers(a, b);
    if (c == 2) return false;
    switch (op) {
      case CmpOp::Lt: return c < 0;
      case CmpOp::Le: return c <= 0;
      case CmpOp::Gt: return c > 0;
      default: return c >= 0;
    }
  }
  if (a.type() == b.type() && a.type() == Type::Str) {
    int c = a.as_str().compare(b.as_str());
    budget.charge(1 + std::min(a.as_str().size(), b.as_str().size()) / 64);
    switch (op) {
      case CmpOp::Lt: return c < 0;
      case CmpOp::Le: return c <= 0;
      case CmpOp::Gt: return c > 0;
      default: return c >= 0;
    }
  }
  if (a.type() == b.type() && a.is_sequence()) {
    const auto& x = a.items();
    const auto& y = b.items();
    std::size_t k = 0;
    while (k < x.size() && k < y.size() && equal(budget, x[k], y[k])) ++k;
    if (k < x.size() && k < y.size()) return ordered(budget, op, x[k], y[k]);
    std::size_t n = x.size(), m = y.size();
    switch (op) {
      case CmpOp::Lt: return n < m;
      case CmpOp::Le: return n <= m;
      case CmpOp::Gt: return n > m;
      default: return n >= m;
    }
  }
  raise(std::string("'") + symbol(op) + "' not supported between instances of '" + type_name(a) + "' and '" +
        type_name(b) + "'");
}

bool contains(Budget& budget, const Value& container, const Value& item) {
  if (container.type() == Type::Str) {
    if (item.type() != Type::Str)
      raise(std::string("'in <string>' requires string as left operand, not ") + type_name(item));
    // std::string::find is quadratic in the worst case.
    budget.charge(1 + (container.as_str().size() + 1) * (item.as_str().size() + 1) / 32);
    return container.as_str().find(item.as_str()) != std::string::npos;
  }
  if (!container.is_sequence())
    raise(std::string("argument of type '") + type_name(container) + "' is not iterable");
  for (const Value& v : container.items())
    if (equal(budget, v, item)) return true;
  return false;
}

}  // namespace

bool less(Budget& budget, const Value& a, const Value& b) { return ordered(budget, CmpOp::Lt, a, b); }

bool compare(Budget& budget, CmpOp op, const Value& a, const Value& b) {
  switch (op) {
    case CmpOp::Eq:
    case CmpOp::Ne: {
      bool eq = equal(budget, a, b);
      return op == CmpOp::Eq ? eq : !eq;
    }
    case CmpOp::In: return contains(budget, b, a);
    case CmpOp::NotIn: return !contains(budget, b, a);
    case CmpOp::Is:
    case CmpOp::IsNot: {
      auto singleton = [](const Value& v) { return v.is_none() || v.type() == Type::Bool; };
      if (!singleton(a) && !singleton(b)) raise("'is' is only supported with None, True or False");
      bool same = a.type() == b.type() && (a.is_none() || a.truthy() == b.truthy());
      return op == CmpOp::Is ? same : !same;
    }
    default: return ordered(budget, op, a, b);
  }
}

std::size_t length(const Value& seq) {
  if (seq.type() == Type::Str) return seq.as_str().size();
  if (seq.is_sequence()) return seq.items().size();
  raise(std::string("object of type '") + type_name(seq) + "' has no len()");
}

std::size_t normalize_index(const Value& seq, const Value& index) {
  const char* what = seq.type() == Type::Str ? "string" : type_name(seq);
  if (!index.is_integral())
    raise(std::string(what) + " indices must be integers or slices, not " + type_name(index));
  auto n = static_cast<std::int64_t>(length(seq));
  std::int64_t i = index.as_int();
  if (i < 0) i += n;
  if (i < 0 || i >= n) raise(std::string(what) + " index out of range");
  return static_cast<std::size_t>(i);
}

const Value& index(const Value& seq, const Value& idx, Value& tmp) {
  if (seq.is_sequence()) return seq.items()[normalize_index(seq, idx)];
  if (seq.type() == Type::Str) {
    tmp = Value::string(std::string(1, seq.as_str()[normalize_index(seq, idx)]));
    return tmp;
  }
  raise(std::string("'") + type_name(seq) + "' object is not subscriptable");
}

Value slice(Budget& budget, const Value& seq, const Value& lo, const Value& hi, const Value& stepv) {
  if (seq.type() != Type::Str && !seq.is_sequence())
    raise(std::string("'") + type_name(seq) + "' object is not subscriptable");
  std::int64_t step = clamp_index(stepv, 1);
  if (step == 0) raise("slice step cannot be zero");
  if (step < -INT64_MAX) step = -INT64_MAX;
  auto n = static_cast<std::int64_t>(length(seq));
  auto adjust = [&](const Value& v, std::int64_t none_value) {
    std::int64_t i = clamp_index(v, none_value);
    if (i < 0) {
      i = i < -n ? (step < 0 ? -1 : 0) : i + n;
    } else if (i >= n) {
      i = step < 0 ? n - 1 : n;
    }
    return i;
  };
  std::int64_t start = adjust(lo, step < 0 ? INT64_MAX : 0);
  std::int64_t stop = adjust(hi, step < 0 ? INT64_MIN : INT64_MAX);
  std::int64_t count = 0;
  if (step < 0 && stop < start) count = (start - stop - 1) / (-step) + 1;
  if (step > 0 && start < stop) count = (stop - start - 1) / step + 1;
  budget.charge(static_cast<std::uint64_t>(count));
  if (seq.type() == Type::Str) {
    std::string out;
    for (std::int64_t k = 0; k < count; ++k) out += seq.as_str()[static_cast<std::size_t>(start + k * step)];
    return Value::string(std::move(out));
  }
  std::vector<Value> out;
  out.reserve(static_cast<std::size_t>(count));
  for (std::int64_t k = 0; k < count; ++k) {
    out.push_back(seq.items()[static_cast<std::size_t>(start + k * step)]);
    charge_deep(budget, out.back());
  }
  return seq.type() == Type::List ? Value::list(std::move(out)) : Value::tuple(std::move(out));
}

}  // namespace tune::expr::detail

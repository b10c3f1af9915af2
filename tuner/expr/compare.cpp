// Python's comparisons: numbers across int/float exactly, str/list/tuple lexicographically,
// `in`, and `is` (for None, True and False only).
#include <cmath>

#include "expr/ops.h"

namespace tune::expr::detail {

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
      case CmpOp::Lt:
        return c < 0;
      case CmpOp::Le:
        return c <= 0;
      case CmpOp::Gt:
        return c > 0;
      default:
        return c >= 0;
    }
  }
  if (a.type() == b.type() && a.type() == Type::Str) {
    int c = a.as_str().compare(b.as_str());
    budget.charge(1 + std::min(a.as_str().size(), b.as_str().size()) / 64);
    switch (op) {
      case CmpOp::Lt:
        return c < 0;
      case CmpOp::Le:
        return c <= 0;
      case CmpOp::Gt:
        return c > 0;
      default:
        return c >= 0;
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
      case CmpOp::Lt:
        return n < m;
      case CmpOp::Le:
        return n <= m;
      case CmpOp::Gt:
        return n > m;
      default:
        return n >= m;
    }
  }
  raise(std::string("'") + symbol(op) + "' not supported between instances of '" + type_name(a) + "' and '" +
        type_name(b) + "'");
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
    case CmpOp::In:
      return contains(budget, b, a);
    case CmpOp::NotIn:
      return !contains(budget, b, a);
    case CmpOp::Is:
    case CmpOp::IsNot: {
      auto singleton = [](const Value& v) { return v.is_none() || v.type() == Type::Bool; };
      if (!singleton(a) && !singleton(b)) raise("'is' is only supported with None, True or False");
      bool same = a.type() == b.type() && (a.is_none() || a.truthy() == b.truthy());
      return op == CmpOp::Is ? same : !same;
    }
    default:
      return ordered(budget, op, a, b);
  }
}

}  // namespace tune::expr::detail

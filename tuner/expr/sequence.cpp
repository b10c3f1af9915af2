// Python's sequence operations on str, list and tuple: + and *, len, indexing, slicing, `in`,
// element-wise ==, and the deep-size charging that keeps shared nesting from escaping the budget.
#include "expr/ops.h"

#include <climits>

namespace tune::expr::detail {

namespace {

constexpr std::size_t kMaxLength = std::size_t{1} << 24;  // elements or characters in one value

void check_length(std::uint64_t n) {
  if (n > kMaxLength) raise("result too large (more than " + std::to_string(kMaxLength) + " items)");
}

std::int64_t clamp_index(const Value& v, std::int64_t none_value) {
  if (v.is_none()) return none_value;
  if (!v.is_integral()) raise("slice indices must be integers or None, not " + std::string(type_name(v)));
  return v.as_int();
}

}  // namespace

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

bool contains(Budget& budget, const Value& container, const Value& item) {
  if (container.type() == Type::Str) {
    if (item.type() != Type::Str)
      raise(std::string("'in <string>' requires string as left operand, not ") + type_name(item));
    // std::string::find is quadratic in the worst case.
    budget.charge(1 + (container.as_str().size() + 1) * (item.as_str().size() + 1) / 32);
    return container.as_str().find(item.as_str()) != std::string::npos;
  }
  if (!container.is_sequence()) raise(std::string("argument of type '") + type_name(container) + "' is not iterable");
  for (const Value& v : container.items())
    if (equal(budget, v, item)) return true;
  return false;
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

std::size_t length(const Value& seq) {
  if (seq.type() == Type::Str) return seq.as_str().size();
  if (seq.is_sequence()) return seq.items().size();
  raise(std::string("object of type '") + type_name(seq) + "' has no len()");
}

std::size_t normalize_index(const Value& seq, const Value& index) {
  const char* what = seq.type() == Type::Str ? "string" : type_name(seq);
  if (!index.is_integral()) raise(std::string(what) + " indices must be integers or slices, not " + type_name(index));
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

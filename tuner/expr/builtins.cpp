// The builtin functions T1 expressions call (range list tuple len min max abs int float round str
// bool sum sorted any all pow divmod) and Python's number syntax for literals, int() and float().
#include <array>
#include <charconv>
#include <climits>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "expr/ops.h"

namespace tune::expr::detail {

namespace {

struct BuiltinInfo {
  const char* name;
  std::size_t min_args;
  std::size_t max_args;
};
constexpr std::size_t kMany = SIZE_MAX;
constexpr std::array<BuiltinInfo, 18> kBuiltins{{
    {"range", 1, 3},
    {"list", 0, 1},
    {"tuple", 0, 1},
    {"len", 1, 1},
    {"min", 1, kMany},
    {"max", 1, kMany},
    {"abs", 1, 1},
    {"int", 0, 1},
    {"float", 0, 1},
    {"round", 1, 2},
    {"str", 0, 1},
    {"bool", 0, 1},
    {"sum", 1, 2},
    {"sorted", 1, 1},
    {"any", 1, 1},
    {"all", 1, 1},
    {"pow", 2, 2},
    {"divmod", 2, 2},
}};
constexpr std::size_t kMaxRange = std::size_t{1} << 24;

bool is_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view strip(std::string_view s) {
  while (!s.empty() && is_space(s.front())) s.remove_prefix(1);
  while (!s.empty() && is_space(s.back())) s.remove_suffix(1);
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// digitpart: digit (["_"] digit)*; advances `at` past it. False when none is there or it is malformed.
bool digitpart(std::string_view s, std::size_t& at, std::string& out) {
  if (at >= s.size() || !is_digit(s[at])) return false;
  while (at < s.size()) {
    if (is_digit(s[at])) {
      out += s[at++];
    } else if (s[at] == '_' && at + 1 < s.size() && is_digit(s[at + 1])) {
      ++at;
    } else {
      break;
    }
  }
  return true;
}

// Elements of an iterable: a list's or tuple's items, or a string's characters (built in `storage`).
std::span<const Value> elements(Budget& budget, const Value& v, std::vector<Value>& storage) {
  if (v.is_sequence()) return v.items();
  if (v.type() == Type::Str) {
    budget.charge(v.as_str().size());
    for (char c : v.as_str()) storage.push_back(Value::string(std::string(1, c)));
    return storage;
  }
  raise(std::string("'") + type_name(v) + "' object is not iterable");
}

Value make_range(Budget& budget, std::span<const Value> args) {
  for (const Value& a : args)
    if (!a.is_integral()) raise(std::string("'") + type_name(a) + "' object cannot be interpreted as an integer");
  std::int64_t start = 0, stop = 0, step = 1;
  if (args.size() == 1) {
    stop = args[0].as_int();
  } else {
    start = args[0].as_int();
    stop = args[1].as_int();
    if (args.size() == 3) step = args[2].as_int();
  }
  if (step == 0) raise("range() arg 3 must not be zero");
  __int128 span = static_cast<__int128>(stop) - start;
  __int128 count = 0;
  if (step > 0 && span > 0) count = (span - 1) / step + 1;
  if (step < 0 && span < 0) count = (-span - 1) / -static_cast<__int128>(step) + 1;
  if (count > static_cast<__int128>(kMaxRange))
    raise("range too large (more than " + std::to_string(kMaxRange) + " items)");
  budget.charge(static_cast<std::uint64_t>(count));
  std::vector<Value> out;
  out.reserve(static_cast<std::size_t>(count));
  for (__int128 k = 0; k < count; ++k) out.push_back(Value::integer(static_cast<std::int64_t>(start + k * step)));
  return Value::list(std::move(out));
}

Value min_max(Budget& budget, std::span<const Value> args, bool max) {
  std::vector<Value> storage;
  std::span<const Value> items = args.size() == 1 ? elements(budget, args[0], storage) : args;
  if (items.empty()) raise(std::string(max ? "max" : "min") + "() arg is an empty sequence");
  const Value* best = &items[0];
  for (std::size_t k = 1; k < items.size(); ++k) {
    budget.charge(1);
    if (compare(budget, max ? CmpOp::Gt : CmpOp::Lt, items[k], *best)) best = &items[k];  // as CPython
  }
  return *best;
}

std::int64_t float_to_int(double v) {
  if (std::isnan(v)) raise("cannot convert float NaN to integer");
  if (std::isinf(v)) raise("cannot convert float infinity to integer");
  if (v >= 9223372036854775808.0 || v < -9223372036854775808.0) overflow();
  return static_cast<std::int64_t>(v);
}

Value to_int(const Value& v) {
  if (v.is_integral()) return Value::integer(v.as_int());
  if (v.type() == Type::Float) return Value::integer(float_to_int(std::trunc(v.as_float())));
  if (v.type() == Type::Str) {
    std::string_view s = strip(v.as_str());
    bool negative = !s.empty() && s[0] == '-';
    if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
    std::string digits;
    std::size_t at = 0;
    std::optional<std::int64_t> r;
    if (digitpart(s, at, digits) && at == s.size()) {
      // Accumulate negatively so that -9223372036854775808 fits.
      std::int64_t x = 0;
      for (char c : digits)
        if (__builtin_mul_overflow(x, 10, &x) || __builtin_sub_overflow(x, c - '0', &x)) overflow();
      if (!negative && x == INT64_MIN) overflow();
      r = negative ? x : -x;
    }
    if (!r) raise("invalid literal for int() with base 10: " + v.repr());
    return Value::integer(*r);
  }
  raise(std::string("int() argument must be a string or a real number, not '") + type_name(v) + "'");
}

Value to_float(const Value& v) {
  if (v.is_number()) return Value::real(v.as_float());
  if (v.type() == Type::Str) {
    std::optional<double> r = parse_float(strip(v.as_str()));
    if (!r) raise("could not convert string to float: " + v.repr());
    return Value::real(*r);
  }
  raise(std::string("float() argument must be a string or a real number, not '") + type_name(v) + "'");
}

// round(x) for a float: half to even, as an int.
std::int64_t round_half_even(double x) {
  double r = std::round(x);
  if (std::fabs(x - r) == 0.5) r = 2.0 * std::round(x / 2.0);
  return float_to_int(r);
}

// round(x, n) for an int and n < 0: to a multiple of 10**-n, ties to even.
std::int64_t round_int(std::int64_t x, std::int64_t n) {
  if (n >= 0) return x;
  if (n < -38) return 0;
  __int128 p = 1;
  for (std::int64_t k = 0; k < -n; ++k) p *= 10;
  __int128 q = x / p, r = x % p;
  if (r < 0) {
    r += p;
    --q;
  }
  if (2 * r > p || (2 * r == p && (q & 1))) ++q;
  __int128 result = q * p;
  if (result > INT64_MAX || result < INT64_MIN) overflow();
  return static_cast<std::int64_t>(result);
}

// round(x, n) for a float: CPython rounds the exact binary value to n decimals (ties to even) and
// reads the decimal back. The exact expansion comes from printf (glibc prints it exactly).
double round_float(double x, std::int64_t n) {
  if (n > 323) return x;
  if (n < -308) return 0.0 * x;
  if (x == 0.0 || !std::isfinite(x)) return x;
  std::array<char, 1100> buf{};
  std::snprintf(buf.data(), buf.size(), "%.800e", std::fabs(x));
  std::string_view text(buf.data());
  std::size_t e = text.find('e');
  std::string digits(1, text[0]);
  digits.append(text.substr(2, e - 2));
  long exp = std::strtol(buf.data() + e + 1, nullptr, 10);
  long keep = exp + 1 + static_cast<long>(n);  // significant digits kept
  if (keep < 0) return std::copysign(0.0, x);
  if (keep >= static_cast<long>(digits.size())) return x;
  auto k = static_cast<std::size_t>(keep);
  bool up = digits[k] > '5';
  if (digits[k] == '5') {
    bool rest = digits.find_first_not_of('0', k + 1) != std::string::npos;
    bool odd = k > 0 && ((digits[k - 1] - '0') & 1);
    up = rest || odd;
  }
  std::string kept = digits.substr(0, k);
  if (up) {
    std::size_t at = kept.size();
    while (at > 0 && kept[at - 1] == '9') kept[--at] = '0';
    if (at == 0) {
      kept.insert(kept.begin(), '1');
      ++exp;
    } else {
      ++kept[at - 1];
    }
  }
  if (kept.empty()) return std::copysign(0.0, x);
  // kept holds digits d0 d1 ... with d0 at 10**exp.
  std::string s = kept + "e" + std::to_string(exp - static_cast<long>(kept.size()) + 1);
  double r = std::strtod(s.c_str(), nullptr);
  if (std::isinf(r)) raise("rounded value too large to represent");
  return std::copysign(r, x);
}

Value do_round(std::span<const Value> args) {
  const Value& x = args[0];
  bool has_n = args.size() == 2 && !args[1].is_none();
  if (has_n && !args[1].is_integral())
    raise(std::string("'") + type_name(args[1]) + "' object cannot be interpreted as an integer");
  if (x.is_integral()) return Value::integer(has_n ? round_int(x.as_int(), args[1].as_int()) : x.as_int());
  if (x.type() != Type::Float) raise(std::string("type ") + type_name(x) + " doesn't define __round__ method");
  if (!has_n) return Value::integer(round_half_even(x.as_float()));
  return Value::real(round_float(x.as_float(), args[1].as_int()));
}

// A stable merge sort with Python's <: the same result as sorted() for any consistent order.
void merge_sort(Budget& budget, std::vector<Value>& v, std::vector<Value>& tmp, std::size_t lo, std::size_t hi) {
  if (hi - lo < 2) return;
  std::size_t mid = lo + (hi - lo) / 2;
  merge_sort(budget, v, tmp, lo, mid);
  merge_sort(budget, v, tmp, mid, hi);
  std::size_t a = lo, b = mid, out = lo;
  while (a < mid && b < hi) {
    budget.charge(1);
    tmp[out++] = less(budget, v[b], v[a]) ? v[b++] : v[a++];
  }
  while (a < mid) tmp[out++] = v[a++];
  while (b < hi) tmp[out++] = v[b++];
  for (std::size_t k = lo; k < hi; ++k) v[k] = tmp[k];
}

}  // namespace

std::optional<Builtin> find_builtin(std::string_view name) {
  for (std::size_t k = 0; k < kBuiltins.size(); ++k)
    if (name == kBuiltins[k].name) return static_cast<Builtin>(k);
  return std::nullopt;
}

const char* builtin_name(Builtin b) { return kBuiltins[static_cast<std::size_t>(b)].name; }

std::string check_arity(Builtin b, std::size_t argc) {
  const BuiltinInfo& info = kBuiltins[static_cast<std::size_t>(b)];
  if (argc >= info.min_args && argc <= info.max_args) return {};
  std::string head = std::string(info.name) + "() takes ";
  auto args = [](std::size_t n) { return std::to_string(n) + (n == 1 ? " argument" : " arguments"); };
  std::string given = " (" + std::to_string(argc) + " given)";
  if (info.min_args == info.max_args) return head + "exactly " + args(info.min_args) + given;
  if (info.max_args == kMany) return head + "at least " + args(info.min_args) + given;
  if (info.min_args == 0) return head + "at most " + args(info.max_args) + given;
  return head + std::to_string(info.min_args) + " to " + args(info.max_args) + given;
}

Value call(Budget& budget, Builtin b, std::span<const Value> args) {
  std::vector<Value> storage;
  switch (b) {
    case Builtin::Range:
      return make_range(budget, args);
    case Builtin::List:
    case Builtin::Tuple: {
      std::vector<Value> items;
      if (!args.empty()) {
        auto src = elements(budget, args[0], storage);
        charge_deep(budget, args[0]);
        items.assign(src.begin(), src.end());
      }
      return b == Builtin::List ? Value::list(std::move(items)) : Value::tuple(std::move(items));
    }
    case Builtin::Len:
      return Value::integer(static_cast<std::int64_t>(length(args[0])));
    case Builtin::Min:
      return min_max(budget, args, false);
    case Builtin::Max:
      return min_max(budget, args, true);
    case Builtin::Abs: {
      const Value& x = args[0];
      if (x.type() == Type::Float) return Value::real(std::fabs(x.as_float()));
      if (!x.is_integral()) raise(std::string("bad operand type for abs(): '") + type_name(x) + "'");
      if (x.as_int() == INT64_MIN) overflow();
      return Value::integer(x.as_int() < 0 ? -x.as_int() : x.as_int());
    }
    case Builtin::Int:
      return args.empty() ? Value::integer(0) : to_int(args[0]);
    case Builtin::Float:
      return args.empty() ? Value::real(0.0) : to_float(args[0]);
    case Builtin::Round:
      return do_round(args);
    case Builtin::Str:
      if (args.empty()) return Value::string({});
      charge_deep(budget, args[0]);  // the repr is about as long
      return Value::string(args[0].str());
    case Builtin::Bool:
      return Value::boolean(!args.empty() && args[0].truthy());
    case Builtin::Sum: {
      Value total = args.size() == 2 ? args[1] : Value::integer(0);
      if (total.type() == Type::Str) raise("sum() can't sum strings [use ''.join(seq) instead]");
      for (const Value& v : elements(budget, args[0], storage)) {
        budget.charge(1);
        total = binary(budget, BinOp::Add, total, v);
      }
      return total;
    }
    case Builtin::Sorted: {
      auto src = elements(budget, args[0], storage);
      std::vector<Value> items(src.begin(), src.end()), tmp(src.size());
      charge_deep(budget, args[0]);
      merge_sort(budget, items, tmp, 0, items.size());
      return Value::list(std::move(items));
    }
    case Builtin::Any:
    case Builtin::All: {
      bool any = b == Builtin::Any;
      for (const Value& v : elements(budget, args[0], storage)) {
        budget.charge(1);
        if (v.truthy() == any) return Value::boolean(any);
      }
      return Value::boolean(!any);
    }
    case Builtin::Pow:
      return binary(budget, BinOp::Pow, args[0], args[1]);
    case Builtin::Divmod: {
      if (!args[0].is_number() || !args[1].is_number())
        raise(std::string("unsupported operand types for divmod(): '") + type_name(args[0]) + "' and '" +
              type_name(args[1]) + "'");
      return Value::tuple(
          {binary(budget, BinOp::FloorDiv, args[0], args[1]), binary(budget, BinOp::Mod, args[0], args[1])});
    }
  }
  return {};
}

std::optional<std::int64_t> parse_int(std::string_view text, int base) {
  std::int64_t value = 0;
  bool any = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    char c = text[k];
    if (c == '_') {
      // Between digits, or right after a base prefix (which the caller has removed).
      if (k + 1 >= text.size() || text[k + 1] == '_' || (k == 0 && base == 10)) return std::nullopt;
      continue;
    }
    int d = is_digit(c) ? c - '0' : (c >= 'a' && c <= 'f') ? c - 'a' + 10 : (c >= 'A' && c <= 'F') ? c - 'A' + 10 : 99;
    if (d >= base) return std::nullopt;
    if (__builtin_mul_overflow(value, base, &value) || __builtin_add_overflow(value, d, &value)) overflow();
    any = true;
  }
  if (!any) return std::nullopt;
  return value;
}

std::optional<double> parse_float(std::string_view s) {
  bool negative = false;
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) {
    negative = s[0] == '-';
    s.remove_prefix(1);
  }
  auto lower_equals = [&](std::string_view word) {
    if (s.size() != word.size()) return false;
    for (std::size_t k = 0; k < s.size(); ++k)
      if ((s[k] | 0x20) != word[k]) return false;
    return true;
  };
  if (lower_equals("inf") || lower_equals("infinity")) return negative ? -HUGE_VAL : HUGE_VAL;
  if (lower_equals("nan")) return std::nan("");
  std::string mant_int, mant_frac, exp_digits;
  std::size_t at = 0;
  bool has_int = digitpart(s, at, mant_int);
  bool has_frac = false;
  if (at < s.size() && s[at] == '.') {
    ++at;
    has_frac = digitpart(s, at, mant_frac);
  }
  if (!has_int && !has_frac) return std::nullopt;
  bool exp_negative = false;
  if (at < s.size() && (s[at] == 'e' || s[at] == 'E')) {
    ++at;
    if (at < s.size() && (s[at] == '+' || s[at] == '-')) exp_negative = s[at++] == '-';
    if (!digitpart(s, at, exp_digits)) return std::nullopt;
  }
  if (at != s.size()) return std::nullopt;
  std::string clean =
      mant_int + "." + mant_frac + "e" + (exp_negative ? "-" : "") + (exp_digits.empty() ? "0" : exp_digits);
  if (mant_int.empty()) clean.insert(clean.begin(), '0');
  double v = 0;
  auto res = std::from_chars(clean.data(), clean.data() + clean.size(), v);
  if (res.ec == std::errc::result_out_of_range) {
    // Too large or too small for a double: Python gives inf or 0.0.
    std::string digits = mant_int + mant_frac;
    std::size_t first = digits.find_first_not_of('0');
    long exp10 = 0;
    for (char c : exp_digits) exp10 = std::min(exp10 * 10 + (c - '0'), 100000L);
    if (exp_negative) exp10 = -exp10;
    long order = static_cast<long>(mant_int.size()) - static_cast<long>(first) + exp10;
    v = order > 0 ? HUGE_VAL : 0.0;
  } else if (res.ec != std::errc() || res.ptr != clean.data() + clean.size()) {
    return std::nullopt;
  }
  return negative ? -v : v;
}

}  // namespace tune::expr::detail

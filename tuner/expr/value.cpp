// Value: construction, accessors, Python repr()/str() and ==.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "expr/expr.h"
#include "expr/ops.h"
#include "expr/value_access.h"

namespace tune::expr {

namespace detail {

const char* type_name(Type t) {
  switch (t) {
    case Type::None:
      return "NoneType";
    case Type::Bool:
      return "bool";
    case Type::Int:
      return "int";
    case Type::Float:
      return "float";
    case Type::Str:
      return "str";
    case Type::List:
      return "list";
    case Type::Tuple:
      return "tuple";
  }
  return "?";
}

void raise(const std::string& cause) { throw Error(Location{}, {}, 0, cause); }

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  // Shortest round-trip digits, then Python's layout: positional when -4 <= exponent < 16.
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string_view sci(buf, static_cast<std::size_t>(res.ptr - buf));
  std::string out;
  std::size_t at = 0;
  if (sci[0] == '-') {
    out += '-';
    at = 1;
  }
  std::size_t e = sci.find('e');
  std::string digits;
  for (std::size_t k = at; k < e; ++k)
    if (sci[k] != '.') digits += sci[k];
  int exp = std::atoi(std::string(sci.substr(e + 1)).c_str());
  if (exp < -4 || exp >= 16) {
    out += digits[0];
    if (digits.size() > 1) {
      out += '.';
      out.append(digits, 1);
    }
    char ebuf[16];
    std::snprintf(ebuf, sizeof ebuf, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    return out + ebuf;
  }
  if (exp < 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-exp - 1), '0');
    return out + digits;
  }
  auto whole = static_cast<std::size_t>(exp) + 1;
  if (digits.size() <= whole) {
    digits.append(whole - digits.size(), '0');
    return out + digits + ".0";
  }
  return out + digits.substr(0, whole) + "." + digits.substr(whole);
}

}  // namespace detail

using detail::raise;
using detail::type_name;

Value Value::boolean(bool v) {
  Value r;
  detail::ValueAccess::set_bool(r, v);
  return r;
}
Value Value::integer(std::int64_t v) {
  Value r;
  detail::ValueAccess::set_int(r, v);
  return r;
}
Value Value::real(double v) {
  Value r;
  detail::ValueAccess::set_float(r, v);
  return r;
}
Value Value::string(std::string v) {
  Value r;
  r.type_ = Type::Str;
  r.s_ = std::make_shared<const std::string>(std::move(v));
  return r;
}
Value Value::list(std::vector<Value> items) {
  Value r;
  r.type_ = Type::List;
  r.items_ = std::make_shared<const std::vector<Value>>(std::move(items));
  return r;
}
Value Value::tuple(std::vector<Value> items) {
  Value r;
  r.type_ = Type::Tuple;
  r.items_ = std::make_shared<const std::vector<Value>>(std::move(items));
  return r;
}

std::int64_t Value::as_int() const {
  if (type_ == Type::Int) return i_;
  if (type_ == Type::Bool) return b_ ? 1 : 0;
  raise(std::string("'") + type_name(type_) + "' object cannot be interpreted as an integer");
}

double Value::as_float() const {
  if (type_ == Type::Float) return f_;
  if (type_ == Type::Int) return static_cast<double>(i_);
  if (type_ == Type::Bool) return b_ ? 1.0 : 0.0;
  raise(std::string("must be real number, not ") + type_name(type_));
}

bool Value::truthy() const {
  switch (type_) {
    case Type::None:
      return false;
    case Type::Bool:
      return b_;
    case Type::Int:
      return i_ != 0;
    case Type::Float:
      return f_ != 0.0;
    case Type::Str:
      return !s_->empty();
    case Type::List:
    case Type::Tuple:
      return !items_->empty();
  }
  return false;
}

const std::string& Value::as_str() const {
  if (type_ != Type::Str) raise(std::string("expected str, not ") + type_name(type_));
  return *s_;
}

const std::vector<Value>& Value::items() const {
  if (type_ != Type::List && type_ != Type::Tuple)
    raise(std::string("'") + type_name(type_) + "' object is not iterable");
  return *items_;
}

namespace {

std::string string_repr(const std::string& s) {
  char quote = '\'';
  if (s.find('\'') != std::string::npos && s.find('"') == std::string::npos) quote = '"';
  std::string out(1, quote);
  for (char ch : s) {
    auto c = static_cast<unsigned char>(ch);
    if (ch == quote || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\r') {
      out += "\\r";
    } else if (c < 0x20 || c == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  out += quote;
  return out;
}

}  // namespace

std::string Value::repr() const {
  switch (type_) {
    case Type::None:
      return "None";
    case Type::Bool:
      return b_ ? "True" : "False";
    case Type::Int:
      return std::to_string(i_);
    case Type::Float:
      return detail::float_repr(f_);
    case Type::Str:
      return string_repr(*s_);
    case Type::List:
    case Type::Tuple: {
      bool list = type_ == Type::List;
      std::string out(1, list ? '[' : '(');
      for (std::size_t k = 0; k < items_->size(); ++k) {
        if (k) out += ", ";
        out += (*items_)[k].repr();
      }
      if (!list && items_->size() == 1) out += ',';
      out += list ? ']' : ')';
      return out;
    }
  }
  return "?";
}

std::string Value::str() const { return type_ == Type::Str ? *s_ : repr(); }

bool operator==(const Value& a, const Value& b) {
  if (a.is_number() && b.is_number()) {
    if (a.type_ == Type::Float && b.type_ == Type::Float) return a.f_ == b.f_;
    if (a.type_ == Type::Float) return detail::compare_int_float(b.as_int(), a.f_) == 0;
    if (b.type_ == Type::Float) return detail::compare_int_float(a.as_int(), b.f_) == 0;
    return a.as_int() == b.as_int();
  }
  if (a.type_ != b.type_) return false;
  switch (a.type_) {
    case Type::None:
      return true;
    case Type::Str:
      return *a.s_ == *b.s_;
    case Type::List:
    case Type::Tuple: {
      if (a.items_ == b.items_) return true;
      if (a.items_->size() != b.items_->size()) return false;
      for (std::size_t k = 0; k < a.items_->size(); ++k)
        if (!((*a.items_)[k] == (*b.items_)[k])) return false;
      return true;
    }
    default:
      return false;
  }
}

}  // namespace tune::expr

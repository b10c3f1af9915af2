// Internal to tuner/expr: direct access to a Value's scalar fields for the VM (no copies, no
// shared_ptr traffic), the Python type names used in messages, and location-less errors that the
// VM re-raises with the column of the failing instruction.
#pragma once
#include <string>

#include "expr/expr.h"

namespace tune::expr::detail {

struct ValueAccess {
  static bool b(const Value& v) { return v.b_; }
  static std::int64_t i(const Value& v) { return v.i_; }
  static double f(const Value& v) { return v.f_; }
  static void set_none(Value& v) { v.type_ = Type::None; }
  static void set_bool(Value& v, bool x) {
    v.type_ = Type::Bool;
    v.b_ = x;
  }
  static void set_int(Value& v, std::int64_t x) {
    v.type_ = Type::Int;
    v.i_ = x;
  }
  static void set_float(Value& v, double x) {
    v.type_ = Type::Float;
    v.f_ = x;
  }
};

// Python's name for a type: 'NoneType', 'bool', 'int', 'float', 'str', 'list', 'tuple'.
const char* type_name(Type t);
inline const char* type_name(const Value& v) { return type_name(v.type()); }

// Throws an expr::Error without location (column 0); Program re-raises it with its own.
[[noreturn]] void raise(const std::string& cause);

// Shortest repr of a double as Python writes it: 1.0, 0.1, 1e+16, 1e-05, inf, nan, -0.0.
std::string float_repr(double v);

}  // namespace tune::expr::detail

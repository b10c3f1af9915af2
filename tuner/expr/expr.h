// The expression language of T1 files: the subset of Python that real specs use in `Values`,
// `Conditions`, argument `Size`, `GlobalSize`/`LocalSize` and `FillValue`, with Python's semantics
// (floor `//` and `%`, true `/`, `True == 1`, chained comparisons, short-circuit `and`/`or`).
// An expression is parsed once into a Program and evaluated many times against a slot array.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace tune::expr {

enum class Type : std::uint8_t { None, Bool, Int, Float, Str, List, Tuple };

namespace detail {
struct ValueAccess;  // the VM's allocation-free view of a Value's fields (expr/value_access.h)
}

// A Python value. Scalars are held inline; strings and sequences are shared and immutable.
class Value {
 public:
  Value() = default;  // None
  static Value boolean(bool v);
  static Value integer(std::int64_t v);
  static Value real(double v);
  static Value string(std::string v);
  static Value list(std::vector<Value> items);
  static Value tuple(std::vector<Value> items);

  Type type() const { return type_; }
  bool is_none() const { return type_ == Type::None; }
  bool is_number() const { return type_ == Type::Bool || type_ == Type::Int || type_ == Type::Float; }
  bool is_integral() const { return type_ == Type::Bool || type_ == Type::Int; }
  bool is_sequence() const { return type_ == Type::List || type_ == Type::Tuple; }

  // Accessors throw TypeError (an expr::Error without location) when the type does not fit.
  std::int64_t as_int() const;  // bool or int
  double as_float() const;      // bool, int or float
  bool truthy() const;          // Python truthiness
  const std::string& as_str() const;
  const std::vector<Value>& items() const;  // list or tuple

  std::string repr() const;  // Python repr(): 1, 1.5, True, 'a', [1, 2], (1,)
  std::string str() const;   // Python str(): like repr but strings unquoted

  friend bool operator==(const Value& a, const Value& b);  // Python ==, so True == 1 == 1.0

 private:
  friend struct detail::ValueAccess;
  Type type_ = Type::None;
  union {
    bool b_;
    std::int64_t i_;
    double f_ = 0.0;
  };
  std::shared_ptr<const std::string> s_;
  std::shared_ptr<const std::vector<Value>> items_;
};

// Where an expression came from, for error messages.
struct Location {
  std::string file;       // e.g. "spaces/transpose.json"
  std::string json_path;  // e.g. "ConfigurationSpace.Conditions[2].Expression"
};

// A syntax error, an unknown name, a type error, a division by zero, an integer overflow.
// what() reads: "<file>: <json_path>: <cause> in `<source>` at column <n>" (column 1-based).
class Error : public tune::InputError {
 public:
  Error(const Location& where, std::string_view source, std::size_t column, const std::string& cause);
  std::size_t column() const { return column_; }
  const std::string& cause() const { return cause_; }

 private:
  std::size_t column_;
  std::string cause_;
};

// A compiled expression. Names resolve at compile time to slots (their index in `names`);
// builtins (range list len min max abs int float round, also str bool sum tuple sorted any all
// pow divmod; True False None) need no slot. A name in `names` shadows a builtin of that name.
// eval() and test() keep no state: one Program may be evaluated from several threads at once.
class Program {
 public:
  Program();
  Program(Program&&) noexcept;
  Program& operator=(Program&&) noexcept;
  Program(const Program&);
  Program& operator=(const Program&);
  ~Program();

  // Throws expr::Error for a syntax error or a name that is neither in `names` nor a builtin.
  static Program compile(std::string_view source, std::span<const std::string> names, const Location& where);

  // Evaluates with vars[i] bound to names[i]. Throws expr::Error on a runtime error.
  Value eval(std::span<const Value> vars) const;
  // eval(vars).truthy(), without building a Value where the VM can avoid it.
  bool test(std::span<const Value> vars) const;

  // Slots the expression reads, ascending, without repeats.
  const std::vector<std::size_t>& used() const;
  const std::string& source() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Compiles and evaluates an expression that names nothing but builtins.
Value evaluate(std::string_view source, const Location& where);

}  // namespace tune::expr

// Program and Error: compile = tokenize + parse + resolve + generate (with constant folding).
#include "expr/expr.h"

#include "expr/parser.h"
#include "expr/vm.h"

namespace tune::expr {

namespace {

std::string describe(const Location& where, std::string_view source, std::size_t column, const std::string& cause) {
  std::string out;
  if (!where.file.empty()) out += where.file + ": ";
  if (!where.json_path.empty()) out += where.json_path + ": ";
  out += cause;
  if (!source.empty() || column != 0) {
    out += " in `";
    out += source;
    out += "`";
    if (column != 0) out += " at column " + std::to_string(column);
  }
  return out;
}

}  // namespace

Error::Error(const Location& where, std::string_view source, std::size_t column, const std::string& cause)
    : InputError(describe(where, source, column, cause)), column_(column), cause_(cause) {}

struct Program::Impl {
  std::string source;
  Location where;
  detail::Code code;
  std::vector<std::size_t> used;
};

Program::Program() = default;
Program::Program(Program&&) noexcept = default;
Program& Program::operator=(Program&&) noexcept = default;
Program::Program(const Program& other) : impl_(other.impl_ ? std::make_unique<Impl>(*other.impl_) : nullptr) {}
Program& Program::operator=(const Program& other) {
  if (this != &other) impl_ = other.impl_ ? std::make_unique<Impl>(*other.impl_) : nullptr;
  return *this;
}
Program::~Program() = default;

Program Program::compile(std::string_view source, std::span<const std::string> names, const Location& where) {
  auto impl = std::make_unique<Impl>();
  impl->source = std::string(source);
  impl->where = where;
  detail::Ast ast = detail::parse(impl->source, where);
  impl->used = detail::resolve(ast, names, impl->source, where);
  impl->code = detail::generate(ast, true);
  Program p;
  p.impl_ = std::move(impl);
  return p;
}

Value Program::eval(std::span<const Value> vars) const {
  if (!impl_) return Value();
  return detail::run(impl_->code, vars, impl_->where, impl_->source);
}

bool Program::test(std::span<const Value> vars) const {
  if (!impl_) return false;
  return detail::run_test(impl_->code, vars, impl_->where, impl_->source);
}

const std::vector<std::size_t>& Program::used() const {
  static const std::vector<std::size_t> none;
  return impl_ ? impl_->used : none;
}

const std::string& Program::source() const {
  static const std::string none;
  return impl_ ? impl_->source : none;
}

Value evaluate(std::string_view source, const Location& where) { return Program::compile(source, {}, where).eval({}); }

}  // namespace tune::expr

// Internal to tuner/expr: the syntax tree (a flat node array, children by index), the parser, and
// name resolution (comprehension locals, slots, builtins) with constant-subtree marking.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "expr/ops.h"

namespace tune::expr::detail {

enum class Kind : std::uint8_t {
  Const,    // value
  Name,     // name; resolved to ref/index
  Unary,    // op = UnOp; kids = {operand}
  Binary,   // op = BinOp; kids = {left, right}
  And,      // kids = {left, right}
  Or,       // kids = {left, right}
  IfElse,   // kids = {then, condition, else} (Python order: `then if condition else else`)
  Compare,  // kids = operands; ops = CmpOps; cols = operator columns
  List,     // kids = items
  Tuple,    // kids = items
  Comp,     // kids = {element, clause exprs...}; ops = clause kinds; names/cols/locals per clause
  Index,    // kids = {sequence, index}
  Slice,    // kids = {sequence, lo, hi, step}, kNoNode where absent
  Call,     // name = callee; op = Builtin; kids = args
};

enum class Clause : std::uint8_t { For, If };
enum class Ref : std::uint8_t { Unresolved, Local, Slot };

constexpr std::uint32_t kNoNode = UINT32_MAX;

struct Node {
  Kind kind = Kind::Const;
  std::uint8_t op = 0;
  Ref ref = Ref::Unresolved;
  bool constant = false;    // no slot read and no local bound outside: can be folded
  std::uint32_t col = 0;    // 1-based: the operator, call, '[' or the token itself
  std::uint32_t index = 0;  // Name: local or slot index
  Value value;
  std::string name;
  std::vector<std::uint32_t> kids;
  std::vector<std::uint8_t> ops;
  std::vector<std::uint32_t> cols;
  std::vector<std::string> names;     // Comp: loop variable per clause ("" for If)
  std::vector<std::uint32_t> locals;  // Comp: local index per For clause (after resolution)
};

struct Ast {
  std::vector<Node> nodes;
  std::uint32_t root = kNoNode;
  std::uint32_t num_locals = 0;
};

// Parses Python expression syntax. Throws expr::Error (syntax error) with the offending column.
Ast parse(std::string_view source, const Location& where);

// Resolves names (innermost comprehension variable, then `names`, then builtins), checks call
// arity, marks constant subtrees, and returns the slots read. Throws expr::Error for an unknown
// name, a builtin used as a value, a call of a non-function or a wrong argument count.
std::vector<std::size_t> resolve(Ast& ast, std::span<const std::string> names, std::string_view source,
                                 const Location& where);

}  // namespace tune::expr::detail

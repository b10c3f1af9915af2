// Internal to tuner/expr: the bytecode (a flat instruction vector for a small stack machine), the
// code generator with constant folding, and the interpreter.
#pragma once
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "expr/expr.h"
#include "expr/parser.h"

namespace tune::expr::detail {

// The opcodes, listed once for the enum and for the interpreter's handler table (vm.cpp).
// clang-format off
#define TUNE_EXPR_OPS(X)                                                                            \
  X(LoadNone) X(LoadBool) X(LoadInt) X(LoadFloat) X(LoadConst) X(LoadVar) X(LoadLocal)              \
  /* binary operators; the common ones have their own opcode and an inline int path */              \
  X(Add) X(Sub) X(Mul) X(FloorDiv) X(Mod) X(Binary)                                                 \
  X(Neg) X(Not) X(Unary)                                                                            \
  X(Eq) X(Ne) X(Lt) X(Le) X(Gt) X(Ge) X(Compare)                                                    \
  X(CompareKeep)      /* a chain link: [a, b] -> [b] if `a op b`, else [False] and jump */          \
  X(JumpIfFalseOrPop) /* `and`: keep the left operand and jump if it is false, else pop it */       \
  X(JumpIfTrueOrPop)  /* `or` */                                                                    \
  X(PopJumpIfFalse) X(Jump)                                                                         \
  X(BuildList) X(BuildTuple) /* arg = item count */                                                 \
  X(Index)                                                                                          \
  X(Slice)      /* [seq, lo, hi, step] -> seq[lo:hi:step] */                                        \
  X(Call)       /* sub = Builtin, arg = argument count */                                           \
  X(ListNew)    /* pushes an empty list under construction (a comprehension's result) */           \
  X(IterStart)  /* replaces a sequence with an iterator over it */                                  \
  X(ForIter)    /* next item into local `local`, or pop the iterator and jump to arg */             \
  X(ListAppend) /* pops an item onto the list under construction at stack position arg */           \
  X(ListFinish) /* turns the list under construction into a list value */                           \
  X(Return)
// clang-format on

enum class Op : std::uint8_t {
#define TUNE_EXPR_OP_ENUM(name) name,
  TUNE_EXPR_OPS(TUNE_EXPR_OP_ENUM)
#undef TUNE_EXPR_OP_ENUM
};

struct Instr {
  Op op = Op::Return;
  std::uint8_t sub = 0;     // BinOp / UnOp / CmpOp / Builtin
  std::uint16_t local = 0;  // ForIter: the loop variable
  std::uint32_t col = 0;    // the column runtime errors of this instruction report
  std::int64_t arg = 0;     // immediate, slot, constant index, jump target, count, stack position
};

struct Code {
  std::vector<Instr> instrs;
  std::vector<Value> consts;
  std::uint32_t max_stack = 0;
  std::uint32_t num_locals = 0;
  std::size_t min_vars = 0;  // 1 + the largest slot read
};

// Generates code for the subtree at `node` (the whole tree by default). With `fold`, constant
// subtrees are evaluated now and emitted as constants when they evaluate without error.
Code generate(const Ast& ast, bool fold, std::uint32_t node = kNoNode);

// Runs code against `vars` (at least code.min_vars of them) with `budget` work units (0: the
// default). Runtime errors are thrown as expr::Error naming `where`, `source` and the column of
// the failing instruction.
Value run(const Code& code, std::span<const Value> vars, const Location& where, std::string_view source,
          std::uint64_t budget = 0);
bool run_test(const Code& code, std::span<const Value> vars, const Location& where, std::string_view source);

}  // namespace tune::expr::detail

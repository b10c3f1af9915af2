// Syntax tree -> bytecode. Short-circuit operators, conditional expressions and comparison chains
// become jumps; comprehensions become iterator loops; constant subtrees are folded.
#include <algorithm>
#include <bit>

#include "expr/vm.h"

namespace tune::expr::detail {

namespace {

// Work one folding attempt may spend. Folding pays off for conditions, which are evaluated millions
// of times and whose constants are small; a subtree that needs more is left to run time. The cap
// also bounds compile time when attempts fail and are retried on the children.
constexpr std::uint64_t kFoldBudget = std::uint64_t{1} << 14;

class Emitter {
 public:
  Emitter(const Ast& ast, bool fold) : ast_(ast), fold_(fold) { code_.num_locals = ast.num_locals; }

  Code finish(std::uint32_t node) {
    emit(node);
    op(Op::Return, 0, -1);
    return std::move(code_);
  }

 private:
  std::size_t op(Op o, std::uint32_t col, int effect, std::int64_t arg = 0, std::uint8_t sub = 0) {
    Instr in;
    in.op = o;
    in.sub = sub;
    in.col = col;
    in.arg = arg;
    code_.instrs.push_back(in);
    depth_ += effect;
    code_.max_stack = std::max(code_.max_stack, static_cast<std::uint32_t>(std::max(depth_, 0)));
    return code_.instrs.size() - 1;
  }

  void patch(std::size_t at) { code_.instrs[at].arg = static_cast<std::int64_t>(code_.instrs.size()); }

  void constant(const Value& v, std::uint32_t col) {
    switch (v.type()) {
      case Type::None:
        op(Op::LoadNone, col, 1);
        break;
      case Type::Bool:
        op(Op::LoadBool, col, 1, v.truthy() ? 1 : 0);
        break;
      case Type::Int:
        op(Op::LoadInt, col, 1, v.as_int());
        break;
      case Type::Float:
        op(Op::LoadFloat, col, 1, std::bit_cast<std::int64_t>(v.as_float()));
        break;
      default:
        code_.consts.push_back(v);
        op(Op::LoadConst, col, 1, static_cast<std::int64_t>(code_.consts.size() - 1));
    }
  }

  bool try_fold(const Node& n, std::uint32_t id) {
    if (!fold_ || !n.constant || n.kind == Kind::Const) return false;
    try {
      Code sub = generate(ast_, false, id);
      constant(run(sub, {}, Location{}, {}, kFoldBudget), n.col);
      return true;
    } catch (const Error&) {
      return false;  // the error, if reached, is raised at run time with its location
    }
  }

  void emit(std::uint32_t id) {
    const Node& n = ast_.nodes[id];
    if (try_fold(n, id)) return;
    switch (n.kind) {
      case Kind::Const:
        constant(n.value, n.col);
        break;
      case Kind::Name:
        if (n.ref == Ref::Local) {
          op(Op::LoadLocal, n.col, 1, n.index);
        } else {
          op(Op::LoadVar, n.col, 1, n.index);
          code_.min_vars = std::max<std::size_t>(code_.min_vars, n.index + 1);
        }
        break;
      case Kind::Unary: {
        emit(n.kids[0]);
        auto u = static_cast<UnOp>(n.op);
        op(u == UnOp::Neg ? Op::Neg : u == UnOp::Not ? Op::Not : Op::Unary, n.col, 0, 0, n.op);
        break;
      }
      case Kind::Binary: {
        emit(n.kids[0]);
        emit(n.kids[1]);
        Op o = Op::Binary;
        switch (static_cast<BinOp>(n.op)) {
          case BinOp::Add:
            o = Op::Add;
            break;
          case BinOp::Sub:
            o = Op::Sub;
            break;
          case BinOp::Mul:
            o = Op::Mul;
            break;
          case BinOp::FloorDiv:
            o = Op::FloorDiv;
            break;
          case BinOp::Mod:
            o = Op::Mod;
            break;
          default:
            break;
        }
        op(o, n.col, -1, 0, n.op);
        break;
      }
      case Kind::And:
      case Kind::Or: {
        emit(n.kids[0]);
        std::size_t jump = op(n.kind == Kind::And ? Op::JumpIfFalseOrPop : Op::JumpIfTrueOrPop, n.col, -1);
        emit(n.kids[1]);
        patch(jump);
        break;
      }
      case Kind::IfElse: {
        emit(n.kids[1]);
        std::size_t to_else = op(Op::PopJumpIfFalse, n.col, -1);
        emit(n.kids[0]);
        std::size_t to_end = op(Op::Jump, n.col, -1);
        patch(to_else);
        emit(n.kids[2]);
        patch(to_end);
        break;
      }
      case Kind::Compare:
        compare(n);
        break;
      case Kind::List:
      case Kind::Tuple:
        for (std::uint32_t k : n.kids) emit(k);
        op(n.kind == Kind::List ? Op::BuildList : Op::BuildTuple, n.col, 1 - static_cast<int>(n.kids.size()),
           static_cast<std::int64_t>(n.kids.size()));
        break;
      case Kind::Index:
        emit(n.kids[0]);
        emit(n.kids[1]);
        op(Op::Index, n.col, -1);
        break;
      case Kind::Slice:
        for (std::uint32_t k : n.kids) {
          if (k == kNoNode)
            op(Op::LoadNone, n.col, 1);
          else
            emit(k);
        }
        op(Op::Slice, n.col, -3);
        break;
      case Kind::Call:
        for (std::uint32_t k : n.kids) emit(k);
        op(Op::Call, n.col, 1 - static_cast<int>(n.kids.size()), static_cast<std::int64_t>(n.kids.size()), n.op);
        break;
      case Kind::Comp: {
        auto acc = static_cast<std::int64_t>(depth_);
        op(Op::ListNew, n.col, 1);
        clauses(n, 0, acc);
        op(Op::ListFinish, n.col, 0);
        break;
      }
    }
  }

  void compare(const Node& n) {
    emit(n.kids[0]);
    std::vector<std::size_t> keeps;
    for (std::size_t k = 0; k < n.ops.size(); ++k) {
      emit(n.kids[k + 1]);
      auto c = static_cast<CmpOp>(n.ops[k]);
      if (k + 1 < n.ops.size()) {
        keeps.push_back(op(Op::CompareKeep, n.cols[k], -1, 0, n.ops[k]));
        continue;
      }
      Op o = Op::Compare;
      switch (c) {
        case CmpOp::Eq:
          o = Op::Eq;
          break;
        case CmpOp::Ne:
          o = Op::Ne;
          break;
        case CmpOp::Lt:
          o = Op::Lt;
          break;
        case CmpOp::Le:
          o = Op::Le;
          break;
        case CmpOp::Gt:
          o = Op::Gt;
          break;
        case CmpOp::Ge:
          o = Op::Ge;
          break;
        default:
          break;
      }
      op(o, n.cols[k], -1, 0, n.ops[k]);
    }
    for (std::size_t at : keeps) patch(at);
  }

  // Clause `c` of a comprehension and everything inside it; `acc` is the result's stack position.
  void clauses(const Node& n, std::size_t c, std::int64_t acc) {
    if (c == n.ops.size()) {
      emit(n.kids[0]);
      op(Op::ListAppend, n.col, -1, acc);
      return;
    }
    if (static_cast<Clause>(n.ops[c]) == Clause::If) {
      emit(n.kids[c + 1]);
      std::size_t skip = op(Op::PopJumpIfFalse, n.cols[c], -1);
      clauses(n, c + 1, acc);
      patch(skip);
      return;
    }
    emit(n.kids[c + 1]);
    op(Op::IterStart, n.cols[c], 0);
    auto top = static_cast<std::int64_t>(code_.instrs.size());
    std::size_t loop = op(Op::ForIter, n.cols[c], 0);
    code_.instrs[loop].local = static_cast<std::uint16_t>(n.locals[c]);
    clauses(n, c + 1, acc);
    op(Op::Jump, n.cols[c], 0, top);
    patch(loop);
    depth_ -= 1;  // the iterator is popped when it is exhausted
  }

  const Ast& ast_;
  bool fold_;
  Code code_;
  int depth_ = 0;
};

}  // namespace

Code generate(const Ast& ast, bool fold, std::uint32_t node) {
  return Emitter(ast, fold).finish(node == kNoNode ? ast.root : node);
}

}  // namespace tune::expr::detail

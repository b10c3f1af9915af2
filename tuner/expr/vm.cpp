// The interpreter. Stack cells are 16-byte PODs: scalars inline, everything else a pointer to a
// Value that outlives the run (a variable, a constant, an element of one, or a value this run made
// and keeps in its arena). Int-with-int arithmetic and comparisons run inline; everything else
// goes through ops.cpp. A run over scalars allocates nothing.
#include <bit>
#include <deque>
#include <memory>

#include "expr/vm.h"

namespace tune::expr::detail {

namespace {

enum class Tag : std::uint8_t { None, Bool, Int, Float, Ref, Iter, Builder };

// The header is one 64-bit word written whole, so that copying a cell right after making it
// forwards from the stores (a 1-byte tag store followed by an 8-byte load stalls).
struct Cell {
  std::uint64_t head;  // the Tag in the low byte; Iter: the next position in the high 32 bits
  union {
    bool b;
    std::int64_t i;
    double f;
    const Value* ref;             // Ref, Iter
    std::vector<Value>* builder;  // Builder
  };
};
static_assert(sizeof(Cell) == 16);

constexpr std::uint64_t head(Tag t) { return static_cast<std::uint64_t>(t); }
inline Tag tag(const Cell& c) { return static_cast<Tag>(c.head & 0xff); }
inline std::uint32_t iter_pos(const Cell& c) { return static_cast<std::uint32_t>(c.head >> 32); }

Cell scalar_cell(Tag t) {
  Cell c;
  c.head = head(t);
  c.i = 0;
  return c;
}

inline Cell cell_of(const Value& v) {
  Cell c;
  switch (v.type()) {
    case Type::None:
      c.head = head(Tag::None);
      c.i = 0;
      break;
    case Type::Bool:
      c.head = head(Tag::Bool);
      c.i = 0;
      c.b = ValueAccess::b(v);
      break;
    case Type::Int:
      c.head = head(Tag::Int);
      c.i = ValueAccess::i(v);
      break;
    case Type::Float:
      c.head = head(Tag::Float);
      c.f = ValueAccess::f(v);
      break;
    default:
      c.head = head(Tag::Ref);
      c.ref = &v;
  }
  return c;
}

inline bool truthy(const Cell& c) {
  switch (tag(c)) {
    case Tag::Bool:
      return c.b;
    case Tag::Int:
      return c.i != 0;
    case Tag::Float:
      return c.f != 0.0;
    case Tag::Ref:
      return c.ref->truthy();
    default:
      return false;
  }
}

inline Cell bool_cell(bool v) {
  Cell c;
  c.head = head(Tag::Bool);
  c.i = 0;
  c.b = v;
  return c;
}

// A scalar cell as a Value in `tmp`, or the referenced Value itself.
const Value& view(const Cell& c, Value& tmp) {
  switch (tag(c)) {
    case Tag::Bool:
      ValueAccess::set_bool(tmp, c.b);
      return tmp;
    case Tag::Int:
      ValueAccess::set_int(tmp, c.i);
      return tmp;
    case Tag::Float:
      ValueAccess::set_float(tmp, c.f);
      return tmp;
    case Tag::Ref:
      return *c.ref;
    default:
      ValueAccess::set_none(tmp);
      return tmp;
  }
}

Value value_of(const Cell& c) {
  Value tmp;
  return view(c, tmp);
}

// The strings and sequences a run makes, and its lists under construction.
struct Arena {
  std::deque<Value> values;
  std::deque<std::vector<Value>> builders;
};

// Everything one run owns. Constructing it allocates nothing and writes two words (zeroing two
// deques in place took a quarter of a scalar run's time): the arena comes with a first string or sequence.
struct Ctx {
  Budget budget;
  std::unique_ptr<Arena> arena;

  Arena& owned() {
    if (!arena) arena = std::make_unique<Arena>();
    return *arena;
  }
  Cell own(Value&& v) {
    if (!v.is_sequence() && v.type() != Type::Str) return cell_of(v);
    std::deque<Value>& values = owned().values;
    values.push_back(std::move(v));
    return cell_of(values.back());
  }
  Cell new_builder() {
    Cell c;
    c.head = head(Tag::Builder);
    c.builder = &owned().builders.emplace_back();
    return c;
  }
};

[[gnu::noinline]] Cell slow_binary(Ctx& ctx, BinOp op, const Cell& a, const Cell& b) {
  Value ta, tb;
  return ctx.own(binary(ctx.budget, op, view(a, ta), view(b, tb)));
}

[[gnu::noinline]] Cell slow_unary(Ctx& ctx, UnOp op, const Cell& a) {
  Value ta;
  return ctx.own(unary(op, view(a, ta)));
}

[[gnu::noinline]] bool slow_compare(Ctx& ctx, CmpOp op, const Cell& a, const Cell& b) {
  Value ta, tb;
  return compare(ctx.budget, op, view(a, ta), view(b, tb));
}

inline bool int_compare(CmpOp op, std::int64_t a, std::int64_t b) {
  switch (op) {
    case CmpOp::Lt:
      return a < b;
    case CmpOp::Le:
      return a <= b;
    case CmpOp::Gt:
      return a > b;
    case CmpOp::Ge:
      return a >= b;
    case CmpOp::Eq:
      return a == b;
    default:
      return a != b;
  }
}

inline bool compare_cells(Ctx& ctx, CmpOp op, const Cell& a, const Cell& b) {
  if (tag(a) == Tag::Int && tag(b) == Tag::Int && op <= CmpOp::Ne) return int_compare(op, a.i, b.i);
  return slow_compare(ctx, op, a, b);
}

Cell call_builtin(Ctx& ctx, Builtin b, const Cell* args, std::size_t argc) {
  constexpr std::size_t kInline = 4;
  if (argc <= kInline) {
    Value vals[kInline];
    for (std::size_t k = 0; k < argc; ++k) vals[k] = value_of(args[k]);
    return ctx.own(call(ctx.budget, b, std::span<const Value>(vals, argc)));
  }
  std::vector<Value> vals;
  vals.reserve(argc);
  for (std::size_t k = 0; k < argc; ++k) vals.push_back(value_of(args[k]));
  return ctx.own(call(ctx.budget, b, vals));
}

Cell index_cell(Ctx& ctx, const Cell& seq, const Cell& idx) {
  Value ts, ti, tmp;
  const Value& s = view(seq, ts);
  const Value& r = index(s, view(idx, ti), tmp);
  if (&r == &tmp) return ctx.own(std::move(tmp));
  return cell_of(r);  // an element of a sequence that outlives the run
}

// Executes from instruction 0; `failed` tells the caller which instruction threw. The instruction
// pointer lives in a register (written through `failed` on every step it cost a store and a reload)
// and the dispatch is threaded (below): nearly half the time of a simple test() (expr_spec_test.cpp).
Cell execute(const Code& code, std::span<const Value> vars, Ctx& ctx, Cell* locals, Cell* stack, std::size_t& failed) {
  const Instr* const ins = code.instrs.data();
  const Instr* ip = ins;
  Cell* sp = stack;
  // Threaded dispatch (labels as values, GCC and Clang): every handler ends in its own indirect jump,
  // which the branch predictor learns per handler; with one shared switch jump, perf put most of a
  // condition's time on that jump.
  static const void* const kHandlers[] = {
#define TUNE_EXPR_OP_HANDLER(name) &&op_##name,
      TUNE_EXPR_OPS(TUNE_EXPR_OP_HANDLER)
#undef TUNE_EXPR_OP_HANDLER
  };
#define TUNE_DISPATCH()                                \
  do {                                                 \
    goto* kHandlers[static_cast<std::size_t>(ip->op)]; \
  } while (0)
#define TUNE_NEXT()  \
  do {               \
    ++ip;            \
    TUNE_DISPATCH(); \
  } while (0)
  try {
    TUNE_DISPATCH();
  op_LoadNone:
    *sp++ = scalar_cell(Tag::None);
    TUNE_NEXT();
  op_LoadBool:
    *sp++ = bool_cell(ip->arg != 0);
    TUNE_NEXT();
  op_LoadInt:
    sp->head = head(Tag::Int);
    sp->i = ip->arg;
    ++sp;
    TUNE_NEXT();
  op_LoadFloat:
    sp->head = head(Tag::Float);
    sp->f = std::bit_cast<double>(ip->arg);
    ++sp;
    TUNE_NEXT();
  op_LoadConst:
    *sp++ = cell_of(code.consts[static_cast<std::size_t>(ip->arg)]);
    TUNE_NEXT();
  op_LoadVar:
    *sp++ = cell_of(vars[static_cast<std::size_t>(ip->arg)]);
    TUNE_NEXT();
  op_LoadLocal:
    *sp++ = locals[ip->arg];
    TUNE_NEXT();

#define TUNE_INT_BINARY(OPCODE, BINOP, INT_EXPR)               \
  op_##OPCODE : {                                              \
    Cell& a = sp[-2];                                          \
    const Cell& b = sp[-1];                                    \
    if (tag(a) == Tag::Int && tag(b) == Tag::Int) [[likely]] { \
      INT_EXPR;                                                \
    } else {                                                   \
      a = slow_binary(ctx, BinOp::BINOP, a, b);                \
    }                                                          \
    --sp;                                                      \
    TUNE_NEXT();                                               \
  }
    TUNE_INT_BINARY(Add, Add, if (__builtin_add_overflow(a.i, b.i, &a.i)) overflow())
    TUNE_INT_BINARY(Sub, Sub, if (__builtin_sub_overflow(a.i, b.i, &a.i)) overflow())
    TUNE_INT_BINARY(Mul, Mul, if (__builtin_mul_overflow(a.i, b.i, &a.i)) overflow())
    TUNE_INT_BINARY(FloorDiv, FloorDiv, a.i = int_floordiv(a.i, b.i))
    TUNE_INT_BINARY(Mod, Mod, a.i = int_mod(a.i, b.i))
#undef TUNE_INT_BINARY

  op_Binary:
    sp[-2] = slow_binary(ctx, static_cast<BinOp>(ip->sub), sp[-2], sp[-1]);
    --sp;
    TUNE_NEXT();
  op_Neg:
    if (tag(sp[-1]) == Tag::Int && sp[-1].i != INT64_MIN)
      sp[-1].i = -sp[-1].i;
    else
      sp[-1] = slow_unary(ctx, UnOp::Neg, sp[-1]);
    TUNE_NEXT();
  op_Not:
    sp[-1] = bool_cell(!truthy(sp[-1]));
    TUNE_NEXT();
  op_Unary:
    sp[-1] = slow_unary(ctx, static_cast<UnOp>(ip->sub), sp[-1]);
    TUNE_NEXT();

#define TUNE_COMPARE(OPCODE, CMPOP)                                                   \
  op_##OPCODE : sp[-2] = bool_cell(compare_cells(ctx, CmpOp::CMPOP, sp[-2], sp[-1])); \
  --sp;                                                                               \
  TUNE_NEXT();
    TUNE_COMPARE(Eq, Eq)
    TUNE_COMPARE(Ne, Ne)
    TUNE_COMPARE(Lt, Lt)
    TUNE_COMPARE(Le, Le)
    TUNE_COMPARE(Gt, Gt)
    TUNE_COMPARE(Ge, Ge)
#undef TUNE_COMPARE
  op_Compare:
    sp[-2] = bool_cell(compare_cells(ctx, static_cast<CmpOp>(ip->sub), sp[-2], sp[-1]));
    --sp;
    TUNE_NEXT();
  op_CompareKeep:
    if (compare_cells(ctx, static_cast<CmpOp>(ip->sub), sp[-2], sp[-1])) {
      sp[-2] = sp[-1];
      --sp;
    } else {
      sp[-2] = bool_cell(false);
      --sp;
      ip = ins + ip->arg;
      TUNE_DISPATCH();
    }
    TUNE_NEXT();
  op_JumpIfFalseOrPop:
  op_JumpIfTrueOrPop:
    if (truthy(sp[-1]) == (ip->op == Op::JumpIfTrueOrPop)) {
      ip = ins + ip->arg;
      TUNE_DISPATCH();
    }
    --sp;
    TUNE_NEXT();
  op_PopJumpIfFalse:
    if (!truthy(*--sp)) {
      ip = ins + ip->arg;
      TUNE_DISPATCH();
    }
    TUNE_NEXT();
  op_Jump:
    ip = ins + ip->arg;
    TUNE_DISPATCH();
  op_BuildList:
  op_BuildTuple : {
    auto n = static_cast<std::size_t>(ip->arg);
    std::vector<Value> items;
    items.reserve(n);
    sp -= n;
    for (std::size_t k = 0; k < n; ++k) {
      items.push_back(value_of(sp[k]));
      charge_deep(ctx.budget, items.back());
    }
    *sp++ = ctx.own(ip->op == Op::BuildList ? Value::list(std::move(items)) : Value::tuple(std::move(items)));
  }
    TUNE_NEXT();
  op_Index:
    sp[-2] = index_cell(ctx, sp[-2], sp[-1]);
    --sp;
    TUNE_NEXT();
  op_Slice : {
    Value t0, t1, t2, t3;
    sp[-4] = ctx.own(slice(ctx.budget, view(sp[-4], t0), view(sp[-3], t1), view(sp[-2], t2), view(sp[-1], t3)));
    sp -= 3;
  }
    TUNE_NEXT();
  op_Call : {
    auto n = static_cast<std::size_t>(ip->arg);
    Cell r = call_builtin(ctx, static_cast<Builtin>(ip->sub), sp - n, n);
    sp -= n;
    *sp++ = r;
  }
    TUNE_NEXT();
  op_ListNew:
    *sp++ = ctx.new_builder();
    TUNE_NEXT();
  op_IterStart : {
    Cell& c = sp[-1];
    if (tag(c) != Tag::Ref) {
      Value t;
      raise(std::string("'") + type_name(view(c, t)) + "' object is not iterable");
    }
    c.head = head(Tag::Iter);
  }
    TUNE_NEXT();
  op_ForIter : {
    Cell& it = sp[-1];
    const Value& seq = *it.ref;
    std::uint32_t pos = iter_pos(it);
    if (pos >= length(seq)) {
      --sp;
      ip = ins + ip->arg;
      TUNE_DISPATCH();
    }
    ctx.budget.charge(1);
    if (seq.type() == Type::Str)
      locals[ip->local] = ctx.own(Value::string(std::string(1, seq.as_str()[pos])));
    else
      locals[ip->local] = cell_of(seq.items()[pos]);
    it.head = head(Tag::Iter) | (static_cast<std::uint64_t>(pos + 1) << 32);
  }
    TUNE_NEXT();
  op_ListAppend : {
    std::vector<Value>& list = *stack[ip->arg].builder;
    list.push_back(value_of(*--sp));
    charge_deep(ctx.budget, list.back());
  }
    TUNE_NEXT();
  op_ListFinish:
    sp[-1] = ctx.own(Value::list(std::move(*sp[-1].builder)));
    TUNE_NEXT();
  op_Return:
    return sp[-1];
  } catch (...) {
    failed = static_cast<std::size_t>(ip - ins);
    throw;
  }
#undef TUNE_NEXT
#undef TUNE_DISPATCH
}

template <typename Finish>
auto run_code(const Code& code, std::span<const Value> vars, const Location& where, std::string_view source,
              std::uint64_t budget, Finish finish) {
  constexpr std::size_t kInlineCells = 64;
  Cell inline_cells[kInlineCells];
  std::vector<Cell> heap_cells;
  std::size_t need = code.num_locals + code.max_stack + 1;
  Cell* cells = inline_cells;
  if (need > kInlineCells) {
    heap_cells.resize(need);
    cells = heap_cells.data();
  }
  if (vars.size() < code.min_vars)
    throw tune::Error("expression `" + std::string(source) + "` reads variable " + std::to_string(code.min_vars - 1) +
                      " but only " + std::to_string(vars.size()) + " were given");
  Ctx ctx{Budget{budget ? budget : default_budget()}, nullptr};
  std::size_t pc = 0;
  try {
    return finish(execute(code, vars, ctx, cells, cells + code.num_locals, pc));
  } catch (const Error& e) {
    if (e.column() != 0) throw;
    throw Error(where, source, code.instrs[pc].col, e.cause());
  }
}

}  // namespace

Value run(const Code& code, std::span<const Value> vars, const Location& where, std::string_view source,
          std::uint64_t budget) {
  return run_code(code, vars, where, source, budget, [](const Cell& c) { return value_of(c); });
}

bool run_test(const Code& code, std::span<const Value> vars, const Location& where, std::string_view source) {
  return run_code(code, vars, where, source, 0, [](const Cell& c) { return truthy(c); });
}

}  // namespace tune::expr::detail

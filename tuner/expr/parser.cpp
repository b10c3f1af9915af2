// Recursive-descent parser for Python's expression grammar (the `test` rule downwards), building a
// flat node array. Unsupported Python (lambda, dicts, attributes, keyword arguments) is a syntax
// error that says so.
#include <algorithm>

#include "expr/lexer.h"
#include "expr/parser.h"

namespace tune::expr::detail {

namespace {

constexpr int kMaxDepth = 300;              // recursion guard: 150 nested parentheses
constexpr std::uint32_t kMaxHeight = 1000;  // longest operator chain such as 1+1+...+1

// An expression longer than this is refused before it is tokenized (real T1 expressions are a few
// hundred characters).
constexpr std::size_t kMaxSource = 64 * 1024;

std::vector<Token> checked(std::string_view src, const Location& where) {
  if (src.size() > kMaxSource)
    throw Error(
        where, src.substr(0, 80), 0,
        "expression of " + std::to_string(src.size()) + " characters (at most " + std::to_string(kMaxSource) + ")");
  return tokenize(src, where);
}

class Parser {
 public:
  Parser(std::string_view src, const Location& where) : src_(src), where_(where), toks_(checked(src, where)) {}

  Ast run() {
    ast_.root = testlist();
    if (cur().kind != Tok::End) unexpected();
    return std::move(ast_);
  }

 private:
  struct Guard {
    Parser& p;
    Guard(Parser& parser, std::uint32_t col) : p(parser) {
      if (++p.depth_ > kMaxDepth) p.fail(col, "expression nested too deeply");
    }
    ~Guard() { --p.depth_; }
    Guard(const Guard&) = delete;
    Guard& operator=(const Guard&) = delete;
  };

  const Token& cur() const { return toks_[pos_]; }
  const Token& next() const { return toks_[std::min(pos_ + 1, toks_.size() - 1)]; }
  void advance() {
    if (cur().kind != Tok::End) ++pos_;
  }

  [[noreturn]] void fail(std::uint32_t col, const std::string& cause) const { throw Error(where_, src_, col, cause); }

  [[noreturn]] void unexpected() const {
    const Token& t = cur();
    if (t.kind == Tok::End) fail(t.col, "unexpected end of expression");
    if (t.op("{") || t.op("}")) fail(t.col, "dicts and sets are not supported");
    if (t.op("=")) fail(t.col, "unexpected '=' (use '==' to compare)");
    if (t.keyword("lambda")) fail(t.col, "lambda is not supported");
    std::string text(t.text.substr(0, 24));
    if (t.text.size() > 24) text += "...";
    fail(t.col, "unexpected '" + text + "'");
  }

  void expect_op(std::string_view op) {
    if (!cur().op(op)) unexpected();
    advance();
  }

  std::uint32_t add(Node n) {
    std::uint32_t height = 1;
    for (std::uint32_t k : n.kids)
      if (k != kNoNode) height = std::max(height, heights_[k] + 1);
    if (height > kMaxHeight) fail(n.col, "expression too complex (chain of more than 1000 operations)");
    ast_.nodes.push_back(std::move(n));
    heights_.push_back(height);
    return static_cast<std::uint32_t>(ast_.nodes.size() - 1);
  }

  std::uint32_t make(Kind kind, std::uint32_t col, std::vector<std::uint32_t> kids, std::uint8_t op = 0) {
    Node n;
    n.kind = kind;
    n.col = col;
    n.kids = std::move(kids);
    n.op = op;
    return add(std::move(n));
  }

  std::uint32_t constant(Value v, std::uint32_t col) {
    Node n;
    n.col = col;
    n.value = std::move(v);
    return add(std::move(n));
  }

  bool ends_sequence() const { return cur().kind == Tok::End || cur().op(")") || cur().op("]"); }

  // test (',' test)* [','] at the top: a bare tuple, as Python's eval() accepts.
  std::uint32_t testlist() {
    std::uint32_t col = cur().col;
    std::uint32_t first = test();
    if (!cur().op(",")) return first;
    std::vector<std::uint32_t> items{first};
    while (cur().op(",")) {
      advance();
      if (ends_sequence()) break;
      items.push_back(test());
    }
    return make(Kind::Tuple, col, std::move(items));
  }

  std::uint32_t test() {
    Guard guard(*this, cur().col);
    if (cur().keyword("lambda")) unexpected();
    std::uint32_t then = or_test();
    if (!cur().keyword("if")) return then;
    std::uint32_t col = cur().col;
    advance();
    std::uint32_t cond = or_test();
    if (!cur().keyword("else")) unexpected();
    advance();
    std::uint32_t other = test();
    return make(Kind::IfElse, col, {then, cond, other});
  }

  std::uint32_t or_test() {
    std::uint32_t left = and_test();
    while (cur().keyword("or")) {
      std::uint32_t col = cur().col;
      advance();
      left = make(Kind::Or, col, {left, and_test()});
    }
    return left;
  }

  std::uint32_t and_test() {
    std::uint32_t left = not_test();
    while (cur().keyword("and")) {
      std::uint32_t col = cur().col;
      advance();
      left = make(Kind::And, col, {left, not_test()});
    }
    return left;
  }

  std::uint32_t not_test() {
    if (!cur().keyword("not")) return comparison();
    Guard guard(*this, cur().col);
    std::uint32_t col = cur().col;
    advance();
    return make(Kind::Unary, col, {not_test()}, static_cast<std::uint8_t>(UnOp::Not));
  }

  // The comparison operator at the cursor, consuming it; false if there is none.
  bool comparison_op(CmpOp& op) {
    const Token& t = cur();
    static const std::pair<std::string_view, CmpOp> simple[] = {
        {"<", CmpOp::Lt}, {"<=", CmpOp::Le}, {">", CmpOp::Gt}, {">=", CmpOp::Ge}, {"==", CmpOp::Eq}, {"!=", CmpOp::Ne}};
    for (const auto& [text, o] : simple) {
      if (t.op(text)) {
        op = o;
        advance();
        return true;
      }
    }
    if (t.keyword("in")) {
      op = CmpOp::In;
    } else if (t.keyword("not") && next().keyword("in")) {
      op = CmpOp::NotIn;
      advance();
    } else if (t.keyword("is")) {
      op = CmpOp::Is;
      if (next().keyword("not")) {
        op = CmpOp::IsNot;
        advance();
      }
    } else {
      return false;
    }
    advance();
    return true;
  }

  std::uint32_t comparison() {
    std::uint32_t first = bitor_expr();
    Node n;
    n.kind = Kind::Compare;
    n.kids.push_back(first);
    while (true) {
      std::uint32_t col = cur().col;
      CmpOp op;
      if (!comparison_op(op)) break;
      n.ops.push_back(static_cast<std::uint8_t>(op));
      n.cols.push_back(col);
      n.kids.push_back(bitor_expr());
    }
    if (n.ops.empty()) return first;
    n.col = n.cols[0];
    return add(std::move(n));
  }

  // One level of left-associative binary operators.
  template <typename Next>
  std::uint32_t binary_level(std::initializer_list<std::pair<std::string_view, BinOp>> ops, Next next_level) {
    std::uint32_t left = (this->*next_level)();
    while (true) {
      const Token& t = cur();
      auto it = std::find_if(ops.begin(), ops.end(), [&](const auto& p) { return t.op(p.first); });
      if (it == ops.end()) return left;
      std::uint32_t col = t.col;
      advance();
      std::uint32_t right = (this->*next_level)();
      left = make(Kind::Binary, col, {left, right}, static_cast<std::uint8_t>(it->second));
    }
  }

  std::uint32_t bitor_expr() { return binary_level({{"|", BinOp::BitOr}}, &Parser::xor_expr); }
  std::uint32_t xor_expr() { return binary_level({{"^", BinOp::BitXor}}, &Parser::and_expr); }
  std::uint32_t and_expr() { return binary_level({{"&", BinOp::BitAnd}}, &Parser::shift_expr); }
  std::uint32_t shift_expr() {
    return binary_level({{"<<", BinOp::LShift}, {">>", BinOp::RShift}}, &Parser::arith_expr);
  }
  std::uint32_t arith_expr() { return binary_level({{"+", BinOp::Add}, {"-", BinOp::Sub}}, &Parser::term); }
  std::uint32_t term() {
    return binary_level({{"*", BinOp::Mul}, {"/", BinOp::Div}, {"//", BinOp::FloorDiv}, {"%", BinOp::Mod}},
                        &Parser::factor);
  }

  std::uint32_t factor() {
    const Token& t = cur();
    UnOp op;
    if (t.op("-")) {
      op = UnOp::Neg;
    } else if (t.op("+")) {
      op = UnOp::Pos;
    } else if (t.op("~")) {
      op = UnOp::Invert;
    } else {
      return power();
    }
    Guard guard(*this, t.col);
    std::uint32_t col = t.col;
    advance();
    return make(Kind::Unary, col, {factor()}, static_cast<std::uint8_t>(op));
  }

  std::uint32_t power() {
    std::uint32_t base = atom_expr();
    if (!cur().op("**")) return base;
    std::uint32_t col = cur().col;
    Guard guard(*this, col);  // ** is right-associative: a ** chain recurses through factor()
    advance();
    return make(Kind::Binary, col, {base, factor()}, static_cast<std::uint8_t>(BinOp::Pow));
  }

  std::uint32_t atom_expr() {
    std::uint32_t n = atom();
    while (true) {
      if (cur().op("(")) {
        n = call(n);
      } else if (cur().op("[")) {
        n = subscript(n);
      } else if (cur().op(".")) {
        fail(cur().col, "attribute access is not supported");
      } else {
        return n;
      }
    }
  }

  std::uint32_t call(std::uint32_t callee) {
    if (ast_.nodes[callee].kind != Kind::Name) fail(cur().col, "only builtin functions can be called");
    Node n;
    n.kind = Kind::Call;
    n.col = ast_.nodes[callee].col;
    n.name = ast_.nodes[callee].name;
    advance();
    while (!cur().op(")")) {
      if (cur().kind == Tok::Name && next().op("=")) fail(cur().col, "keyword arguments are not supported");
      if (cur().op("*") || cur().op("**")) fail(cur().col, "argument unpacking is not supported");
      std::uint32_t arg = test();
      if (cur().keyword("for")) {
        if (!n.kids.empty()) fail(cur().col, "a generator expression must be the only argument");
        arg = comprehension(arg, ast_.nodes[arg].col);
        if (!cur().op(")")) fail(cur().col, "a generator expression must be the only argument");
      }
      n.kids.push_back(arg);
      if (!cur().op(",")) break;
      advance();
    }
    expect_op(")");
    return add(std::move(n));
  }

  std::uint32_t subscript(std::uint32_t seq) {
    std::uint32_t col = cur().col;
    advance();
    std::uint32_t lo = kNoNode, hi = kNoNode, step = kNoNode;
    bool is_slice = false;
    if (!cur().op(":")) lo = test();
    if (cur().op(":")) {
      is_slice = true;
      advance();
      if (!cur().op("]") && !cur().op(":")) hi = test();
      if (cur().op(":")) {
        advance();
        if (!cur().op("]")) step = test();
      }
    } else if (cur().op(",")) {
      std::vector<std::uint32_t> items{lo};
      while (cur().op(",")) {
        advance();
        if (ends_sequence()) break;
        items.push_back(test());
      }
      lo = make(Kind::Tuple, ast_.nodes[lo].col, std::move(items));
    }
    expect_op("]");
    if (is_slice) return make(Kind::Slice, col, {seq, lo, hi, step});
    return make(Kind::Index, col, {seq, lo});
  }

  // `element for x in iterable [if cond] [for y in ...]`, the cursor at the first `for`.
  std::uint32_t comprehension(std::uint32_t element, std::uint32_t col) {
    Node n;
    n.kind = Kind::Comp;
    n.col = col;
    n.kids.push_back(element);
    while (cur().keyword("for") || (!n.ops.empty() && cur().keyword("if"))) {
      std::uint32_t kw = cur().col;
      if (cur().keyword("if")) {
        advance();
        n.kids.push_back(or_test());
        n.ops.push_back(static_cast<std::uint8_t>(Clause::If));
        n.names.emplace_back();
      } else {
        advance();
        const Token& target = cur();
        if (target.kind != Tok::Name || is_keyword(target.text) || next().op(","))
          fail(target.col, "only a single name can be a loop variable");
        n.names.emplace_back(target.text);
        advance();
        if (!cur().keyword("in")) unexpected();
        advance();
        n.kids.push_back(or_test());
        n.ops.push_back(static_cast<std::uint8_t>(Clause::For));
      }
      n.cols.push_back(kw);
    }
    return add(std::move(n));
  }

  std::uint32_t atom() {
    const Token& t = cur();
    std::uint32_t col = t.col;
    if (t.op("(") || t.op("[")) {
      bool list = t.op("[");
      const char* close = list ? "]" : ")";
      Guard guard(*this, col);
      advance();
      if (cur().op(close)) {
        advance();
        return make(list ? Kind::List : Kind::Tuple, col, {});
      }
      std::uint32_t first = test();
      if (cur().keyword("for")) {
        if (!list) fail(cur().col, "generator expressions are only supported as a function's only argument");
        std::uint32_t comp = comprehension(first, col);
        expect_op("]");
        return comp;
      }
      if (!list && !cur().op(",")) {
        expect_op(")");
        return first;
      }
      std::vector<std::uint32_t> items{first};
      while (cur().op(",")) {
        advance();
        if (cur().op(close)) break;
        items.push_back(test());
      }
      expect_op(close);
      return make(list ? Kind::List : Kind::Tuple, col, std::move(items));
    }
    if (t.kind == Tok::Name) {
      if (t.text == "None" || t.text == "True" || t.text == "False") {
        Value v = t.text == "None" ? Value() : Value::boolean(t.text == "True");
        advance();
        return constant(std::move(v), col);
      }
      if (is_keyword(t.text)) unexpected();
      Node n;
      n.kind = Kind::Name;
      n.col = col;
      n.name = std::string(t.text);
      advance();
      return add(std::move(n));
    }
    if (t.kind == Tok::Int || t.kind == Tok::Float) {
      Value v = t.kind == Tok::Int ? Value::integer(t.int_value) : Value::real(t.float_value);
      advance();
      return constant(std::move(v), col);
    }
    if (t.kind == Tok::Str) {
      std::string s;
      while (cur().kind == Tok::Str) {
        s += cur().str_value;
        advance();
      }
      return constant(Value::string(std::move(s)), col);
    }
    unexpected();
  }

  std::string_view src_;
  const Location& where_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  int depth_ = 0;
  Ast ast_;
  std::vector<std::uint32_t> heights_;
};

}  // namespace

Ast parse(std::string_view source, const Location& where) { return Parser(source, where).run(); }

}  // namespace tune::expr::detail

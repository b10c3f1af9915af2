// Python tokens: names, int/float literals (with underscores, 0x/0o/0b), string literals (quotes,
// triple quotes, escapes, r-prefix, adjacent literals are joined by the parser), operators.
#include "expr/lexer.h"

#include <array>
#include <cstdio>

#include "expr/ops.h"

namespace tune::expr::detail {

namespace {

constexpr std::array<std::string_view, 35> kKeywords{
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

// Longest first, so "**" wins over "*".
constexpr std::array<std::string_view, 34> kOperators{
    "**=", "//=", ">>=", "<<=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "->", ":=", "+=", "-=", "*=",
    "/=",  "%=",  "+",   "-",   "*",  "/",  "%",  "<",  ">",  "(",  ")",  "[",  "]",  ",",  ":",  ".",  "~"};
constexpr std::string_view kSingles = "&|^{}=;@";

bool name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool name_char(char c) { return name_start(c) || (c >= '0' && c <= '9'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(std::string_view src, const Location& where) : src_(src), where_(where) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    while (true) {
      skip_space();
      Token t;
      t.col = static_cast<std::uint32_t>(at_ + 1);
      if (at_ >= src_.size()) {
        out.push_back(std::move(t));
        return out;
      }
      char c = src_[at_];
      std::size_t start = at_;
      if (name_start(c)) {
        while (at_ < src_.size() && name_char(src_[at_])) ++at_;
        std::string_view word = src_.substr(start, at_ - start);
        if (at_ < src_.size() && (src_[at_] == '\'' || src_[at_] == '"') && prefix(word, t)) {
          // handled as a string literal
        } else {
          t.kind = Tok::Name;
        }
      } else if (digit(c) || (c == '.' && at_ + 1 < src_.size() && digit(src_[at_ + 1]))) {
        number(t);
      } else if (c == '\'' || c == '"') {
        string(t, false);
      } else {
        op(t);
      }
      t.text = src_.substr(start, at_ - start);
      out.push_back(std::move(t));
    }
  }

 private:
  [[noreturn]] void fail(std::size_t pos, const std::string& cause) const { throw Error(where_, src_, pos + 1, cause); }

  void skip_space() {
    while (at_ < src_.size()) {
      char c = src_[at_];
      if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') {
        ++at_;
      } else if (c == '\\' && at_ + 1 < src_.size() && (src_[at_ + 1] == '\n' || src_[at_ + 1] == '\r')) {
        at_ += 2;
      } else if (c == '#') {
        while (at_ < src_.size() && src_[at_] != '\n') ++at_;
      } else {
        return;
      }
    }
  }

  // A string prefix directly before a quote: r/R (raw), u/U; b and f prefixes are refused.
  bool prefix(std::string_view word, Token& t) {
    std::string lower;
    for (char ch : word) lower += static_cast<char>(ch | 0x20);
    if (lower == "r" || lower == "u") {
      string(t, lower == "r");
      return true;
    }
    if (lower.size() <= 2 && lower.find_first_not_of("rbf") == std::string::npos) {
      if (lower.find('f') != std::string::npos) fail(at_ - word.size(), "f-strings are not supported");
      fail(at_ - word.size(), "bytes literals are not supported");
    }
    return false;
  }

  void number(Token& t) {
    try {
      number_at(t);
    } catch (const Error& e) {
      if (e.column() != 0) throw;
      fail(at_start_, e.cause());  // "integer overflow" from parse_int
    }
  }

  void number_at(Token& t) {
    std::size_t start = at_;
    at_start_ = start;
    auto rest = [&](auto pred) {
      while (at_ < src_.size() && (pred(src_[at_]) || src_[at_] == '_')) ++at_;
    };
    if (src_[at_] == '0' && at_ + 1 < src_.size() &&
        std::string_view("xXoObB").find(src_[at_ + 1]) != std::string_view::npos) {
      char kind = static_cast<char>(src_[at_ + 1] | 0x20);
      int base = kind == 'x' ? 16 : kind == 'o' ? 8 : 2;
      at_ += 2;
      rest([](char ch) { return name_char(ch); });
      std::optional<std::int64_t> v = parse_int(src_.substr(start + 2, at_ - start - 2), base);
      if (!v)
        fail(start, std::string("invalid ") +
                        (base == 16  ? "hexadecimal"
                         : base == 8 ? "octal"
                                     : "binary") +
                        " literal");
      t.kind = Tok::Int;
      t.int_value = *v;
      return;
    }
    rest(digit);
    std::size_t int_end = at_;
    bool is_float = false;
    if (at_ < src_.size() && src_[at_] == '.') {
      is_float = true;
      ++at_;
      rest(digit);
    }
    if (at_ < src_.size() && (src_[at_] == 'e' || src_[at_] == 'E')) {
      std::size_t save = at_++;
      if (at_ < src_.size() && (src_[at_] == '+' || src_[at_] == '-')) ++at_;
      if (at_ < src_.size() && digit(src_[at_])) {
        is_float = true;
        rest(digit);
      } else {
        at_ = save;  // "1else": leave the letter for the name check below
      }
    }
    if (at_ < src_.size() && (src_[at_] == 'j' || src_[at_] == 'J')) fail(start, "complex numbers are not supported");
    if (at_ < src_.size() && name_char(src_[at_])) fail(start, "invalid decimal literal");
    std::string_view text = src_.substr(start, at_ - start);
    if (!is_float) {
      std::string_view digits = src_.substr(start, int_end - start);
      if (digits.size() > 1 && digits[0] == '0' && digits.find_first_not_of("0_") != std::string_view::npos)
        fail(start, "leading zeros in decimal integer literals are not permitted");
      std::optional<std::int64_t> v = parse_int(digits, 10);
      if (!v) fail(start, "invalid decimal literal");
      t.kind = Tok::Int;
      t.int_value = *v;
      return;
    }
    std::optional<double> v = parse_float(text);
    if (!v) fail(start, "invalid decimal literal");
    t.kind = Tok::Float;
    t.float_value = *v;
  }

  int hex_value(char c) const {
    if (digit(c)) return c - '0';
    c = static_cast<char>(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
  }

  void string(Token& t, bool raw) {
    std::size_t start = at_;
    char quote = src_[at_];
    bool triple = src_.substr(at_, 3) == std::string(3, quote);
    at_ += triple ? 3 : 1;
    std::string out;
    while (true) {
      if (at_ >= src_.size()) fail(start, "unterminated string literal");
      char c = src_[at_];
      if (static_cast<unsigned char>(c) >= 0x80) fail(at_, "non-ASCII characters in strings are not supported");
      if (c == quote && (!triple || src_.substr(at_, 3) == std::string(3, quote))) {
        at_ += triple ? 3 : 1;
        break;
      }
      if (c == '\n' && !triple) fail(start, "unterminated string literal");
      if (c != '\\') {
        out += c;
        ++at_;
        continue;
      }
      if (at_ + 1 >= src_.size()) fail(start, "unterminated string literal");
      char e = src_[at_ + 1];
      if (static_cast<unsigned char>(e) >= 0x80) fail(at_ + 1, "non-ASCII characters in strings are not supported");
      if (raw) {
        out += c;
        out += e;
        at_ += 2;
        continue;
      }
      std::size_t esc = at_;
      at_ += 2;
      switch (e) {
        case '\n':
          break;
        case '\\':
          out += '\\';
          break;
        case '\'':
          out += '\'';
          break;
        case '"':
          out += '"';
          break;
        case 'a':
          out += '\a';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'v':
          out += '\v';
          break;
        case 'x':
        case 'u':
        case 'U': {
          int n = e == 'x' ? 2 : e == 'u' ? 4 : 8;
          long v = 0;
          for (int k = 0; k < n; ++k, ++at_) {
            int h = at_ < src_.size() ? hex_value(src_[at_]) : -1;
            if (h < 0) fail(esc, std::string("truncated \\") + e + " escape");
            v = v * 16 + h;
          }
          if (v >= 0x80) fail(esc, "non-ASCII characters in strings are not supported");
          out += static_cast<char>(v);
          break;
        }
        case 'N':
          fail(esc, "non-ASCII characters in strings are not supported");
        default:
          if (e >= '0' && e <= '7') {
            int v = e - '0';
            for (int k = 0; k < 2 && at_ < src_.size() && src_[at_] >= '0' && src_[at_] <= '7'; ++k, ++at_)
              v = v * 8 + (src_[at_] - '0');
            if (v >= 0x80) fail(esc, "non-ASCII characters in strings are not supported");
            out += static_cast<char>(v);
          } else {
            out += '\\';  // Python keeps unknown escapes as they are
            out += e;
          }
      }
    }
    t.kind = Tok::Str;
    t.str_value = std::move(out);
  }

  void op(Token& t) {
    for (std::string_view o : kOperators) {
      if (src_.substr(at_, o.size()) == o) {
        at_ += o.size();
        t.kind = Tok::Op;
        return;
      }
    }
    char c = src_[at_];
    if (kSingles.find(c) != std::string_view::npos) {
      ++at_;
      t.kind = Tok::Op;
      return;
    }
    auto u = static_cast<unsigned char>(c);
    char buf[16];
    if (u >= 0x20 && u < 0x7f)
      std::snprintf(buf, sizeof buf, "'%c'", c);
    else
      std::snprintf(buf, sizeof buf, "'\\x%02x'", u);
    fail(at_, std::string("invalid character ") + buf);
  }

  std::string_view src_;
  const Location& where_;
  std::size_t at_ = 0;
  std::size_t at_start_ = 0;  // where the number being read starts
};

}  // namespace

bool is_keyword(std::string_view name) {
  for (std::string_view k : kKeywords)
    if (k == name) return true;
  return false;
}

std::vector<Token> tokenize(std::string_view source, const Location& where) { return Lexer(source, where).run(); }

}  // namespace tune::expr::detail

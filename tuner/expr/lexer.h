// Internal to tuner/expr: Python tokens for the expression subset.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "expr/expr.h"

namespace tune::expr::detail {

enum class Tok : std::uint8_t { End, Name, Int, Float, Str, Op };

struct Token {
  Tok kind = Tok::End;
  std::uint32_t col = 0;       // 1-based column of the first character
  std::string_view text;       // the characters in the source ("" for End)
  std::int64_t int_value = 0;  // Int
  double float_value = 0.0;    // Float
  std::string str_value;       // Str, escapes resolved

  bool op(std::string_view s) const { return kind == Tok::Op && text == s; }
  bool keyword(std::string_view s) const { return kind == Tok::Name && text == s; }
};

// Python's reserved words; none of them is a usable name.
bool is_keyword(std::string_view name);

// Splits `source` into tokens ending with one End token. Throws expr::Error for a malformed
// literal or a character that Python does not allow.
std::vector<Token> tokenize(std::string_view source, const Location& where);

}  // namespace tune::expr::detail

#include "header/wrap.h"

#include <algorithm>
#include <cctype>
#include <vector>

namespace tune::header {

namespace {

// Where a character of a line stands in the C++ lexical grammar, as far as a break cares.
enum class In { code, string, character, line_comment, block_comment };

struct Scan {
  std::vector<In> at;        // the state at each character
  std::vector<bool> escape;  // the character continues an escape sequence (\012: the 0, 1 and 2)
  In end = In::code;         // the state after the line
  std::size_t comment = 0;   // the column of the line's `//`, when it has one
  bool raw = false;          // the line holds a raw string literal
};

Scan scan(std::string_view line, bool in_block) {
  Scan s;
  s.at.resize(line.size());
  s.escape.resize(line.size());
  In st = in_block ? In::block_comment : In::code;
  for (std::size_t i = 0; i < line.size(); ++i) {
    s.at[i] = st;
    const char c = line[i], next = i + 1 < line.size() ? line[i + 1] : '\0';
    switch (st) {
      case In::code:
        if (c == '/' && next == '/') {
          st = In::line_comment;
          s.comment = i;
          s.at[i] = st;
        } else if (c == '/' && next == '*') {
          st = In::block_comment;
          s.at[i] = st;
          s.at[++i] = st;
        } else if (c == '"') {
          s.raw = s.raw || (i > 0 && line[i - 1] == 'R');
          st = In::string;
        } else if (c == '\'' && !(i > 0 && std::isxdigit(static_cast<unsigned char>(line[i - 1])))) {
          st = In::character;  // a quote after a digit is a digit separator (1'000)
        }
        break;
      case In::string:
      case In::character:
        if (c == '\\' && i + 1 < line.size()) {
          // as the compiler reads it: up to 3 octal digits, every hex digit after x, 4 after u, 8 after U
          std::size_t n = 1;
          const auto is = [&](std::size_t k, auto pred) {
            return i + k < line.size() && pred(static_cast<unsigned char>(line[i + k]));
          };
          const auto octal = [](unsigned char d) { return d >= '0' && d <= '7'; };
          const auto hex = [](unsigned char d) { return std::isxdigit(d) != 0; };
          if (octal(static_cast<unsigned char>(next))) {
            while (n < 3 && is(n + 1, octal)) ++n;
          } else if (next == 'x') {
            while (is(n + 1, hex)) ++n;
          } else if (next == 'u' || next == 'U') {
            const std::size_t digits = next == 'u' ? 4 : 8;
            while (n <= digits && is(n + 1, hex)) ++n;
          }
          for (std::size_t k = 1; k <= n && i + 1 < line.size(); ++k) {
            s.at[++i] = st;
            s.escape[i] = true;
          }
        } else if (c == (st == In::string ? '"' : '\'')) {
          st = In::code;
        }
        break;
      case In::block_comment:
        if (c == '*' && next == '/') {
          s.at[++i] = st;
          st = In::code;
        }
        break;
      case In::line_comment:
        break;
    }
  }
  // A literal does not go on past its line (a splice aside, which tune never pastes).
  s.end = st == In::string || st == In::character ? In::code : st;
  return s;
}

std::size_t indent_of(std::string_view line) {
  const std::size_t i = line.find_first_not_of(' ');
  return i == std::string_view::npos ? 0 : i;
}

std::string rtrim(std::string_view s) {
  const std::size_t e = s.find_last_not_of(' ');
  return std::string(e == std::string_view::npos ? std::string_view{} : s.substr(0, e + 1));
}

// One line over the width, broken as wrap_code() says.
std::string wrap_line(std::string_view line, const Scan& s, bool directive, std::size_t width) {
  const std::size_t indent = indent_of(line);
  const std::size_t comment_col = s.comment <= width / 2 ? s.comment : indent;
  std::string out, prefix;
  std::size_t start = 0;
  while (prefix.size() + (line.size() - start) > width) {
    // The last space at which the piece (and its ` \`) fits; in code, the last after a comma when
    // that leaves the piece at least half the width.
    std::size_t cut = std::string_view::npos, comma = std::string_view::npos;
    for (std::size_t p = start + 1; p < line.size(); ++p) {
      if (line[p] != ' ' || s.at[p] == In::string || s.at[p] == In::character) continue;
      const bool b = directive && s.at[p] != In::line_comment;
      if (prefix.size() + (p - start) + (b ? 2 : 0) > width) break;
      if (line.substr(start, p - start).find_first_not_of(' ') == std::string_view::npos) continue;
      cut = p;
      if (s.at[p] == In::code && line[p - 1] == ',' && prefix.size() + (p - start) >= width / 2) comma = p;
    }
    if (comma != std::string_view::npos && s.at[cut] == In::code) cut = comma;
    const bool slash = cut != std::string_view::npos && directive && s.at[cut] != In::line_comment;
    if (cut != std::string_view::npos) {
      out += prefix + rtrim(line.substr(start, cut - start)) + (slash ? " \\" : "") + "\n";
      prefix = s.at[cut] == In::line_comment ? std::string(comment_col, ' ') + "// "
                                             : std::string(std::min(indent + 4, width / 2), ' ');
      start = line.find_first_not_of(' ', cut);
      if (start == std::string_view::npos) return out;
      continue;
    }
    // No space outside a literal fits: a string literal of code is cut into two that the compiler
    // joins again ("ab" "c"), after a space of its own if one leaves half the width, never inside
    // an escape sequence.
    std::size_t in_string = std::string_view::npos, after_space = std::string_view::npos;
    for (std::size_t p = start + 1; !directive && p < line.size(); ++p) {
      if (prefix.size() + (p - start) + 1 > width) break;
      const bool closing = line[p] == '"' && !s.escape[p];
      if (s.at[p] != In::string || s.at[p - 1] != In::string || s.escape[p] || closing) continue;
      in_string = p;
      if (line[p - 1] == ' ' && !s.escape[p - 1] && prefix.size() + (p - start) >= width / 2) after_space = p;
    }
    if (after_space != std::string_view::npos) in_string = after_space;
    if (in_string != std::string_view::npos) {
      out += prefix + std::string(line.substr(start, in_string - start)) + "\"\n";
      prefix = std::string(std::min(indent + 4, width / 2), ' ') + "\"";
      start = in_string;
      continue;
    }
    // Else a comment goes on as a comment; anything else is spliced where it reaches the width.
    const std::size_t q = start + (width - prefix.size() - 1);
    if (s.at[q] == In::line_comment) {
      out += prefix + std::string(line.substr(start, q - start)) + "\n";
      prefix = std::string(comment_col, ' ') + "// ";
    } else {
      out += prefix + std::string(line.substr(start, q - start)) + "\\\n";
      prefix.clear();
    }
    start = q;
  }
  return out + prefix + std::string(line.substr(start)) + "\n";
}

}  // namespace

std::string wrap_code(std::string_view code, std::size_t width) {
  std::string out;
  bool in_block = false, continued = false, directive = false;
  std::size_t pos = 0;
  while (pos < code.size()) {
    std::size_t nl = code.find('\n', pos);
    const bool last = nl == std::string_view::npos;
    if (last) nl = code.size();
    const std::string_view line = code.substr(pos, nl - pos);
    pos = nl + 1;
    if (!continued) directive = line.substr(indent_of(line)).starts_with("#") && !in_block;
    const Scan s = scan(line, in_block);
    // A raw string keeps its text; a line ending in a backslash (a directive's) keeps its last piece.
    if (line.size() <= width || s.raw || width < 24) {
      out += std::string(line) + (last ? "" : "\n");
    } else {
      std::string w = wrap_line(line, s, directive || line.ends_with('\\'), width);
      if (last) w.pop_back();
      out += w;
    }
    in_block = s.end == In::block_comment;
    continued = line.ends_with('\\');
  }
  return out;
}

}  // namespace tune::header

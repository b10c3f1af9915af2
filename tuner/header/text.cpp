#include "header/text.h"

#include <algorithm>
#include <cstdio>
#include <iterator>

#include "common/hash.h"

namespace tune::header {

namespace {

// C++20 keywords and alternative tokens, plus the CUDA qualifiers a name must not become.
constexpr std::string_view kKeywords[] = {"alignas",
                                          "alignof",
                                          "and",
                                          "and_eq",
                                          "asm",
                                          "auto",
                                          "bitand",
                                          "bitor",
                                          "bool",
                                          "break",
                                          "case",
                                          "catch",
                                          "char",
                                          "char8_t",
                                          "char16_t",
                                          "char32_t",
                                          "class",
                                          "compl",
                                          "concept",
                                          "const",
                                          "consteval",
                                          "constexpr",
                                          "constinit",
                                          "const_cast",
                                          "continue",
                                          "co_await",
                                          "co_return",
                                          "co_yield",
                                          "decltype",
                                          "default",
                                          "delete",
                                          "do",
                                          "double",
                                          "dynamic_cast",
                                          "else",
                                          "enum",
                                          "explicit",
                                          "export",
                                          "extern",
                                          "false",
                                          "float",
                                          "for",
                                          "friend",
                                          "goto",
                                          "if",
                                          "inline",
                                          "int",
                                          "long",
                                          "mutable",
                                          "namespace",
                                          "new",
                                          "noexcept",
                                          "not",
                                          "not_eq",
                                          "nullptr",
                                          "operator",
                                          "or",
                                          "or_eq",
                                          "private",
                                          "protected",
                                          "public",
                                          "register",
                                          "reinterpret_cast",
                                          "requires",
                                          "return",
                                          "short",
                                          "signed",
                                          "sizeof",
                                          "static",
                                          "static_assert",
                                          "static_cast",
                                          "struct",
                                          "switch",
                                          "template",
                                          "this",
                                          "thread_local",
                                          "throw",
                                          "true",
                                          "try",
                                          "typedef",
                                          "typeid",
                                          "typename",
                                          "union",
                                          "unsigned",
                                          "using",
                                          "virtual",
                                          "void",
                                          "volatile",
                                          "wchar_t",
                                          "while",
                                          "xor",
                                          "xor_eq",
                                          "restrict",
                                          "_Pragma",
                                          "defined",
                                          "__global__",
                                          "__device__",
                                          "__host__",
                                          "__shared__",
                                          "__constant__",
                                          "__managed__",
                                          "__restrict__",
                                          "__launch_bounds__",
                                          "__noinline__",
                                          "__forceinline__",
                                          "__grid_constant__"};

bool is_keyword(std::string_view name) {
  return std::find(std::begin(kKeywords), std::end(kKeywords), name) != std::end(kKeywords);
}

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::string comment(std::string_view text, std::size_t max) {
  std::string out;
  const std::size_t n = std::min(text.size(), max);
  for (std::size_t i = 0; i < n; ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    // no "??": "??/" is a trigraph for the backslash where trigraphs are enabled (-trigraphs,
    // C++14 and older), which would continue the comment over the next line
    if (c >= 0x20 && c < 0x7f && c != '\\' && !(c == '?' && !out.empty() && out.back() == '?')) {
      out += static_cast<char>(c);
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "<%02X>", c);
      out += buf;
    }
  }
  if (text.size() > max) out += "...";
  return out;
}

std::string c_string(std::string_view text) {
  std::string out = "\"";
  for (char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\' && c != '?') {
      out += ch;
    } else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\%03o", c);
      out += buf;
    }
  }
  return out + "\"";
}

bool is_identifier(std::string_view name) {
  if (name.empty() || (name[0] >= '0' && name[0] <= '9')) return false;
  return std::all_of(name.begin(), name.end(), word_char) && !is_keyword(name);
}

std::string identifier(std::string_view name) {
  std::string out;
  for (char c : name) out += word_char(c) ? c : '_';
  if (out.empty() || (out[0] >= '0' && out[0] <= '9')) out.insert(out.begin(), '_');
  if (is_keyword(out)) out += '_';
  constexpr std::size_t kMax = 64;
  if (out.size() > kMax) out = out.substr(0, kMax - 17) + "_" + content_hash(name).substr(0, 16);
  return out;
}

std::string file_stem(std::string_view name) { return identifier(name); }

}  // namespace tune::header

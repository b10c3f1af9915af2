#include "store/json_check.h"

#include <charconv>
#include <cstddef>
#include <system_error>

namespace tune::store {

namespace {

// A recursive-descent recogniser; every function advances `i` past what it accepted.
class Checker {
 public:
  explicit Checker(std::string_view t) : t_(t) {}

  bool document(bool object) {
    space();
    if (object && (i_ >= t_.size() || t_[i_] != '{')) return false;
    if (!value(0)) return false;
    space();
    return i_ == t_.size();
  }

 private:
  bool at(char c) const { return i_ < t_.size() && t_[i_] == c; }
  unsigned char byte(std::size_t k) const { return static_cast<unsigned char>(t_[k]); }

  void space() {
    while (i_ < t_.size() && (t_[i_] == ' ' || t_[i_] == '\n' || t_[i_] == '\r' || t_[i_] == '\t')) ++i_;
  }

  bool literal(std::string_view word) {
    if (t_.substr(i_, word.size()) != word) return false;
    i_ += word.size();
    return true;
  }

  bool value(int depth) {
    if (i_ >= t_.size()) return false;
    switch (t_[i_]) {
      case '{':
        return object(depth + 1);
      case '[':
        return array(depth + 1);
      case '"':
        return string();
      case 't':
        return literal("true");
      case 'f':
        return literal("false");
      case 'n':
        return literal("null");
      default:
        return number();
    }
  }

  bool object(int depth) {
    if (depth > kJsonMaxDepth) return false;
    ++i_;  // '{'
    space();
    if (at('}')) {
      ++i_;
      return true;
    }
    while (true) {
      if (!at('"') || !string()) return false;
      space();
      if (!at(':')) return false;
      ++i_;
      space();
      if (!value(depth)) return false;
      space();
      if (at('}')) {
        ++i_;
        return true;
      }
      if (!at(',')) return false;
      ++i_;
      space();
    }
  }

  bool array(int depth) {
    if (depth > kJsonMaxDepth) return false;
    ++i_;  // '['
    space();
    if (at(']')) {
      ++i_;
      return true;
    }
    while (true) {
      if (!value(depth)) return false;
      space();
      if (at(']')) {
        ++i_;
        return true;
      }
      if (!at(',')) return false;
      ++i_;
      space();
    }
  }

  // Digits at i_; returns how many.
  long digits() {
    const std::size_t start = i_;
    while (i_ < t_.size() && t_[i_] >= '0' && t_[i_] <= '9') ++i_;
    return static_cast<long>(i_ - start);
  }

  // The number grammar, and a value that is finite as a double (nlohmann refuses 1e999, and
  // it is what reads the columns back): only numbers of 308 decimal orders are parsed to tell.
  bool number() {
    const std::size_t start = i_;
    if (at('-')) ++i_;
    long int_digits = 0;  // of a non-zero integer part
    if (at('0')) {
      ++i_;
    } else if (i_ < t_.size() && t_[i_] >= '1' && t_[i_] <= '9') {
      int_digits = digits();
    } else {
      return false;
    }
    long zeros = 0;  // of the fraction, before its first non-zero digit (integer part 0)
    bool nonzero = int_digits > 0;
    if (at('.')) {
      ++i_;
      const std::size_t frac = i_;
      if (digits() == 0) return false;
      for (std::size_t k = frac; k < i_ && !nonzero; ++k) {
        if (t_[k] == '0')
          ++zeros;
        else
          nonzero = true;
      }
    }
    long exponent = 0;
    if (at('e') || at('E')) {
      ++i_;
      const bool negative = at('-');
      if (at('+') || at('-')) ++i_;
      const std::size_t from = i_;
      if (digits() == 0) return false;
      for (std::size_t k = from; k < i_ && exponent < 100000; ++k) exponent = exponent * 10 + (t_[k] - '0');
      if (negative) exponent = -exponent;
    }
    if (!nonzero) return true;  // zero, whatever its exponent
    const long order = (int_digits > 0 ? int_digits - 1 : -(zeros + 1)) + exponent;
    if (order != 308) return order < 308;
    double v = 0;
    return std::from_chars(t_.data() + start, t_.data() + i_, v).ec == std::errc();
  }

  // The four hex digits of a \u escape at i_, as a code unit; -1 when they are not four hex digits.
  long hex4() {
    long v = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      if (i_ >= t_.size()) return -1;
      const char c = t_[i_];
      const int d = c >= '0' && c <= '9'   ? c - '0'
                    : c >= 'a' && c <= 'f' ? c - 'a' + 10
                    : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                           : -1;
      if (d < 0) return -1;
      v = v * 16 + d;
    }
    return v;
  }

  // After "\u": a code unit, and a high surrogate only when a \u low surrogate follows it.
  bool unicode_escape() {
    const long u = hex4();
    if (u < 0 || (u >= 0xDC00 && u <= 0xDFFF)) return false;
    if (u < 0xD800 || u > 0xDBFF) return true;
    if (t_.substr(i_, 2) != "\\u") return false;
    i_ += 2;
    const long low = hex4();
    return low >= 0xDC00 && low <= 0xDFFF;
  }

  // One UTF-8 sequence of 2 to 4 bytes at i_ (its lead byte >= 0x80), as RFC 3629 allows them:
  // no overlong forms, no surrogates, nothing above U+10FFFF.
  bool utf8() {
    const unsigned char b = byte(i_);
    std::size_t n = 0;
    unsigned char lo = 0x80, hi = 0xBF;  // range of the second byte
    if (b >= 0xC2 && b <= 0xDF) {
      n = 1;
    } else if (b >= 0xE0 && b <= 0xEF) {
      n = 2;
      if (b == 0xE0) lo = 0xA0;
      if (b == 0xED) hi = 0x9F;
    } else if (b >= 0xF0 && b <= 0xF4) {
      n = 3;
      if (b == 0xF0) lo = 0x90;
      if (b == 0xF4) hi = 0x8F;
    } else {
      return false;
    }
    if (i_ + n >= t_.size()) return false;
    if (byte(i_ + 1) < lo || byte(i_ + 1) > hi) return false;
    for (std::size_t k = 2; k <= n; ++k)
      if (byte(i_ + k) < 0x80 || byte(i_ + k) > 0xBF) return false;
    i_ += n + 1;
    return true;
  }

  bool string() {
    ++i_;  // '"'
    while (i_ < t_.size()) {
      const unsigned char c = byte(i_);
      if (c == '"') {
        ++i_;
        return true;
      }
      if (c < 0x20) return false;
      if (c == '\\') {
        ++i_;
        if (i_ >= t_.size()) return false;
        const char e = t_[i_++];
        if (e == 'u') {
          if (!unicode_escape()) return false;
        } else if (e != '"' && e != '\\' && e != '/' && e != 'b' && e != 'f' && e != 'n' && e != 'r' && e != 't') {
          return false;
        }
      } else if (c >= 0x80) {
        if (!utf8()) return false;
      } else {
        ++i_;
      }
    }
    return false;  // unterminated
  }

  std::string_view t_;
  std::size_t i_ = 0;
};

}  // namespace

bool json_valid(std::string_view text) { return Checker(text).document(false); }

bool json_valid(std::string_view text, bool object) { return Checker(text).document(object); }

}  // namespace tune::store

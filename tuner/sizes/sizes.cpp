#include "sizes/sizes.h"

#include <algorithm>
#include <charconv>

#include "common/error.h"
#include "sizes/design.h"

namespace tune::sizes {

namespace {

[[noreturn]] void bad(std::string_view text, std::string_view item, const std::string& why) {
  throw InputError("bad --sizes '" + std::string(text) + "': '" + std::string(item) + "' " + why);
}

// `part` names the number within a range A:B:STEP ("start", "end", "step"), "" for a plain item.
std::int64_t number(std::string_view text, std::string_view item, std::string_view digits, std::string_view part = "") {
  // "is ..." for a plain item, "has step '0', which is ..." within a range
  const std::string what = part.empty() ? "" : "has " + std::string(part) + " '" + std::string(digits) + "', which ";
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size())
    bad(text, item, what + "is not a whole number");
  if (v <= 0) bad(text, item, what + "must be positive");
  if (v > kMaxDimension)
    bad(text, item, what + "exceeds the largest problem dimension, " + std::to_string(kMaxDimension));
  return v;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

// An item of 1 to 3 dimensions split at any of `separators`, each part read by `read`; a fourth
// part calls `too_many`, which throws.
template <class Read, class TooMany>
Size split_dims(std::string_view item, std::string_view separators, Read read, TooMany too_many) {
  Size s;
  s.rank = 0;
  std::string_view rest = item;
  while (true) {
    const auto cut = rest.find_first_of(separators);
    if (s.rank == 3) too_many();
    s.dims[static_cast<std::size_t>(s.rank++)] = read(rest.substr(0, cut));
    if (cut == std::string_view::npos) break;
    rest.remove_prefix(cut + 1);
  }
  return s;
}

Size parse_item(std::string_view text, std::string_view item) {
  return split_dims(
      item, "xX", [&](std::string_view digits) { return number(text, item, digits); },
      [&] { bad(text, item, "has more than 3 dimensions"); });
}

}  // namespace

std::array<std::int64_t, 3> Size::as_rank(int problem_rank) const {
  std::array<std::int64_t, 3> out{1, 1, 1};
  for (int d = 0; d < 3; ++d) out[d] = d < rank ? dims[d] : (rank == 1 && d < problem_rank ? dims[0] : 1);
  return out;
}

std::string Size::label() const {
  std::string s = std::to_string(dims[0]);
  for (int d = 1; d < rank; ++d) {
    s += 'x';
    s += std::to_string(dims[d]);
  }
  return s;
}

Size Size::full(int problem_rank) const { return Size{as_rank(problem_rank), std::max(problem_rank, rank)}; }

Size Size::of(std::int64_t x) { return Size{{x, 1, 1}, 1}; }
Size Size::of(std::int64_t x, std::int64_t y) { return Size{{x, y, 1}, 2}; }
Size Size::of(std::int64_t x, std::int64_t y, std::int64_t z) { return Size{{x, y, z}, 3}; }

Size Size::parse_label(std::string_view text) {
  auto bad_label = [&]() -> void {
    throw InputError("problem size \"" + std::string(text) +
                     "\" is not 1 to 3 positive integers joined by 'x' (e.g. 4096x2048)");
  };
  return split_dims(
      text, "x",
      [&](std::string_view part) {
        std::int64_t v = 0;
        auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), v);
        if (part.empty() || ec != std::errc() || end != part.data() + part.size() || v < 1) bad_label();
        return v;
      },
      bad_label);
}

Size parse_one(std::string_view item) { return parse_item(item, trim(item)); }

std::vector<Size> parse(std::string_view text) {
  std::vector<Size> out;
  if (trim(text).empty()) throw InputError("bad --sizes '': expected e.g. 128:4096, 1000,1024 or 4096x2048");
  std::string_view rest = text;
  while (true) {
    auto comma = rest.find(',');
    std::string_view item = trim(rest.substr(0, comma));
    if (item.empty()) bad(text, item, "is empty");
    if (item.starts_with("design:")) {
      std::string_view r = item.substr(7);
      std::int64_t v[3] = {0, 0, kDesignDefault};
      int n = 0;
      while (true) {
        const auto c = r.find(':');
        if (n == 3) bad(text, item, "has more than three numbers (use design:A:B or design:A:B:N)");
        v[n++] = number(text, item, r.substr(0, c));
        if (c == std::string_view::npos) break;
        r.remove_prefix(c + 1);
      }
      if (n < 2) bad(text, item, "needs a range (design:A:B or design:A:B:N)");
      const auto d = design(v[0], v[1], v[2], text);
      if (static_cast<std::int64_t>(out.size() + d.size()) > kMaxSizes)
        bad(text, item, "makes more than " + std::to_string(kMaxSizes) + " sizes");
      out.insert(out.end(), d.begin(), d.end());
    } else if (item.find(':') != std::string_view::npos) {
      std::string_view parts[3];
      int n = 0;
      std::string_view r = item;
      while (true) {
        auto c = r.find(':');
        if (n == 3) bad(text, item, "has more than two ':' (use A:B or A:B:STEP)");
        parts[n++] = r.substr(0, c);
        if (c == std::string_view::npos) break;
        r.remove_prefix(c + 1);
      }
      std::int64_t a = number(text, item, parts[0], "start"), b = number(text, item, parts[1], "end");
      std::int64_t step = n == 3 ? number(text, item, parts[2], "step") : a;
      if (b < a) bad(text, item, "ends before it starts");
      const std::int64_t count = (b - a) / step + 1;  // no overflow: 0 < a <= b <= kMaxDimension
      if (count > kMaxSizes || static_cast<std::int64_t>(out.size()) + count > kMaxSizes)
        bad(text, item, "makes more than " + std::to_string(kMaxSizes) + " sizes");
      for (std::int64_t i = 0; i < count; ++i) out.push_back(Size{{a + i * step, 1, 1}, 1});
    } else {
      if (static_cast<std::int64_t>(out.size()) >= kMaxSizes)
        bad(text, item, "makes more than " + std::to_string(kMaxSizes) + " sizes");
      out.push_back(parse_item(text, item));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return out;
}

}  // namespace tune::sizes

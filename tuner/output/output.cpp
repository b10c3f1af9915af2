#include "output/output.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace tune::output {

std::size_t terminal_width(int fd) {
  winsize ws{};
  if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0) return ws.ws_col;
  if (const char* c = std::getenv("COLUMNS"); c != nullptr && *c != 0) {
    const std::string_view s(c);
    std::size_t v = 0;
    auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc() && end == s.data() + s.size()) return v;
  }
  return 0;
}

std::size_t width() {
  const std::size_t w = terminal_width(STDOUT_FILENO);
  return std::max(w == 0 ? kDefaultWidth : w, kMinWidth);
}

bool utf8() {
  for (const char* name : {"LC_ALL", "LC_CTYPE", "LANG"}) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == 0) continue;
    std::string s(v);
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    return s.find("utf-8") != std::string::npos || s.find("utf8") != std::string::npos;
  }
  return false;  // the C locale
}

std::size_t columns(std::string_view text) {
  std::size_t n = 0;
  for (const char ch : text) n += (static_cast<unsigned char>(ch) & 0xC0) != 0x80;  // not a continuation byte
  return n;
}

namespace {

// The byte length of the first `cols` columns of `text`.
std::size_t prefix_bytes(std::string_view text, std::size_t cols) {
  std::size_t n = 0, i = 0;
  for (; i < text.size(); ++i) {
    if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) {
      if (n == cols) break;
      ++n;
    }
  }
  return i;
}

}  // namespace

std::vector<std::string> wrap(std::string_view text, std::size_t width, std::size_t indent) {
  width = std::max(width, indent + 8);
  std::vector<std::string> lines;
  const std::size_t lead = std::min(text.find_first_not_of(' '), text.size());  // kept on the first line
  std::string line(lead, ' ');
  std::size_t pos = lead;
  auto room = [&] { return width - columns(line); };
  while (pos < text.size()) {
    std::size_t end = text.find(' ', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view word = text.substr(pos, end - pos);
    pos = end + 1;
    if (!line.empty() && line.find_first_not_of(' ') != std::string::npos &&
        columns(line) + 1 + columns(word) > width) {
      lines.push_back(line);
      line = std::string(indent, ' ');
    } else if (!line.empty() && line.find_first_not_of(' ') != std::string::npos) {
      line += ' ';
    }
    while (columns(word) > room()) {  // a word longer than a line: cut it
      const std::size_t take = prefix_bytes(word, room());
      line += word.substr(0, take);
      word.remove_prefix(take);
      lines.push_back(line);
      line = std::string(indent, ' ');
    }
    line += word;
  }
  if (line.find_first_not_of(' ') != std::string::npos || lines.empty()) lines.push_back(line);
  return lines;
}

std::string breakable(std::string_view json) {
  std::string out;
  for (std::size_t i = 0; i < json.size(); ++i) {
    out += json[i];
    if (json[i] == ',' && i + 1 < json.size() && json[i + 1] == '"') out += ' ';
  }
  return out;
}

std::string shorten(std::string_view text, std::size_t width) {
  if (columns(text) <= width) return std::string(text);
  if (width <= 3) return std::string(width, '.');
  return std::string(text.substr(0, prefix_bytes(text, width - 3))) + "...";
}

std::vector<std::string> list(std::string_view lead, std::span<const std::string> items, std::size_t width,
                              std::size_t indent) {
  std::string text(lead);
  for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : ", ") + items[i];
  return wrap(text, width, indent);
}

TimeUnit time_unit(std::span<const double> ms) {
  double lo = INFINITY, hi = 0;
  for (const double v : ms)
    if (v > 0 && std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  TimeUnit u;
  if (hi == 0) {
    u.name = "ms";
    return u;
  }
  if (hi < 1.0) {
    u.name = utf8() ? "\xC2\xB5s" : "us";
    u.per_ms = 1000;
  } else if (lo >= 1000.0) {
    u.name = "s";
    u.per_ms = 0.001;
  } else {
    u.name = "ms";
  }
  const double smallest = lo * u.per_ms;
  u.decimals = std::clamp(2 - static_cast<int>(std::floor(std::log10(smallest))), 0, 6);
  return u;
}

std::string format_time(double ms, const TimeUnit& unit) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", unit.decimals, ms * unit.per_ms);
  return buf;
}

Table::Table(std::vector<Column> columns) : columns_(std::move(columns)) {}

void Table::add(std::vector<std::string> cells) {
  cells.resize(columns_.size());
  rows_.push_back(std::move(cells));
}

std::vector<std::string> Table::lines(std::size_t width) const {
  std::vector<std::size_t> w(columns_.size());
  for (std::size_t c = 0; c < columns_.size(); ++c) {
    w[c] = columns(columns_[c].header);
    for (const auto& r : rows_) w[c] = std::max(w[c], columns(r[c]));
  }
  std::size_t total = 0;
  for (std::size_t c = 0; c < w.size(); ++c) total += w[c] + (c == 0 ? 0 : 2);
  if (!w.empty() && total > width) {  // the last column gives way
    const std::size_t others = total - w.back();
    // never narrower than its header, which says what the shortened cells are
    w.back() = std::max<std::size_t>(others < width ? width - others : 0,
                                     std::min<std::size_t>(w.back(), columns(columns_.back().header)));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      const std::string cell = shorten(cells[c], w[c]);
      const std::string pad(w[c] - columns(cell), ' ');
      if (c > 0) out += "  ";
      const bool last = c + 1 == cells.size();
      out += columns_[c].align == Align::right ? pad + cell : (last ? cell : cell + pad);
    }
    while (!out.empty() && out.back() == ' ') out.pop_back();
    return out;
  };
  std::vector<std::string> out;
  std::vector<std::string> head;
  for (const auto& c : columns_) head.push_back(c.header);
  out.push_back(line(head));
  for (const auto& r : rows_) out.push_back(line(r));
  return out;
}

std::string Table::text(std::size_t width) const {
  std::string out;
  for (const auto& l : lines(width)) out += l + "\n";
  return out;
}

std::string elide_long_words(std::string_view text, std::size_t longest) {
  std::string out;
  out.reserve(std::min(text.size(), std::size_t{4096}));
  std::size_t start = 0;
  while (start < text.size()) {
    const std::size_t space = text.find_first_of(" \n", start);
    const std::size_t end = space == std::string_view::npos ? text.size() : space;
    const std::string_view word = text.substr(start, end - start);
    if (columns(word) > longest) {
      std::size_t keep = longest / 2;
      while (keep > 0 && (static_cast<unsigned char>(word[keep]) & 0xC0U) == 0x80U) --keep;  // whole code points
      out += word.substr(0, keep);
      out += "...(" + std::to_string(columns(word)) + " characters)";
    } else {
      out += word;
    }
    if (end < text.size()) out += text[end];
    start = end + 1;
  }
  return out;
}

}  // namespace tune::output

// The text every command prints for people: a width budget (the terminal's, else 100 columns),
// tables whose columns line up whatever their content, notes and lists wrapped to the budget, and
// times in the unit that reads best for each column (µs below a millisecond, as nvbench prints;
// "us" where the locale is not UTF-8). JSON, CSV and --wide output are not bound by the budget.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace tune::output {

inline constexpr std::size_t kDefaultWidth = 100;  // a terminal's width when none is known
inline constexpr std::size_t kMinWidth = 40;       // narrower budgets are raised to this

// The width budget: stdout's terminal width (ioctl), else $COLUMNS, else kDefaultWidth; at least
// kMinWidth.
std::size_t width();

// The width of the terminal on `fd` (ioctl), else $COLUMNS; 0 when neither says (a pipe or a file
// with COLUMNS unset: a script reading the text, which then gets whole lines).
std::size_t terminal_width(int fd);

// Whether the locale (LC_ALL, LC_CTYPE, LANG, first set wins) is UTF-8: "µs", else "us".
bool utf8();

// Columns a UTF-8 string takes on a terminal (one per code point).
std::size_t columns(std::string_view text);

// `text` broken at spaces into lines of at most `width` columns (a longer word is cut), each
// continuation line indented by `indent` spaces.
std::vector<std::string> wrap(std::string_view text, std::size_t width = output::width(), std::size_t indent = 2);

// A line of compact JSON with a space after each member's comma, so that wrap() breaks it between
// members rather than inside one.
std::string breakable(std::string_view json);

// `text` cut to at most `width` columns, ending in "..." when cut.
std::string shorten(std::string_view text, std::size_t width);

// `text` with every run of more than `longest` characters without a space (an echoed value: a
// 5,000-digit number, a pasted file) cut to its first `longest` / 2 characters, followed by
// "...(N characters)", so that an error message stays readable whatever the input held.
std::string elide_long_words(std::string_view text, std::size_t longest = 120);

// `items` joined by ", " after `lead`, wrapped to `width` with continuation lines indented.
std::vector<std::string> list(std::string_view lead, std::span<const std::string> items,
                              std::size_t width = output::width(), std::size_t indent = 4);

// A unit of time for a column of values given in milliseconds.
struct TimeUnit {
  std::string name;   // "s", "ms", "µs" (or "us")
  double per_ms = 1;  // value in this unit = ms * per_ms
  int decimals = 3;   // digits after the point: at least three significant digits for the column
};

// The unit of a column: µs when every value is below a millisecond, s when every value is at least
// a second, ms otherwise; decimals for three significant digits of the smallest positive value.
TimeUnit time_unit(std::span<const double> ms);
std::string format_time(double ms, const TimeUnit& unit);

enum class Align { left, right };
struct Column {
  std::string header;
  Align align = Align::right;
};

// A table: columns separated by two spaces, each as wide as its widest cell. When the rows are
// wider than `width`, the last column's cells are shortened to fit (its header says what they are).
class Table {
 public:
  explicit Table(std::vector<Column> columns);
  void add(std::vector<std::string> cells);  // one cell per column
  std::vector<std::string> lines(std::size_t width = output::width()) const;
  std::string text(std::size_t width = output::width()) const;  // lines, each ending in '\n'

 private:
  std::vector<Column> columns_;
  std::vector<std::vector<std::string>> rows_;
};

}  // namespace tune::output

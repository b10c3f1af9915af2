// The log of a tune process (stderr): levels, the one logger, and formatting. spdlog and fmt's
// implementation are compiled once, in log.cpp; a caller includes only fmt's core (format strings are
// checked at compile time), which keeps the other sources' compile time down.
#pragma once
#include <fmt/core.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>

namespace tune::log {

enum class Level { trace, debug, info, warn, error, off };

// The levels' names in Level's order: "trace", "debug", "info", "warn", "error", "off".
std::span<const std::string_view> level_names() noexcept;
// One of level_names(); nullopt for anything else.
std::optional<Level> parse_level(std::string_view name) noexcept;

// Makes the process's logger: stderr, "[12:34:56.789] warning message", coloured on a terminal unless
// `color` is false. Before it is called, messages go to spdlog's default logger at level info.
void setup(Level level, bool color);
void set_level(Level level);
Level level() noexcept;
bool enabled(Level level) noexcept;
void flush() noexcept;

void vwrite(Level level, fmt::string_view format, fmt::format_args args);
std::string vformat(fmt::string_view format, fmt::format_args args);

template <class... A>
std::string format(fmt::format_string<A...> f, A&&... a) {
  return log::vformat(f, fmt::make_format_args(a...));  // qualified: not fmt::vformat by ADL
}
template <class... A>
void write(Level level, fmt::format_string<A...> f, A&&... a) {
  if (log::enabled(level)) log::vwrite(level, f, fmt::make_format_args(a...));
}
// log::info("{} of {}", 3, 44) and the like: write() at one level.
template <Level L>
struct Writer {
  template <class... A>
  void operator()(fmt::format_string<A...> f, A&&... a) const {
    write(L, f, std::forward<A>(a)...);
  }
};
inline constexpr Writer<Level::trace> trace;
inline constexpr Writer<Level::debug> debug;
inline constexpr Writer<Level::info> info;
inline constexpr Writer<Level::warn> warn;
inline constexpr Writer<Level::error> error;

}  // namespace tune::log

// spdlog and fmt, header-only, compiled here alone (CMake gives this source their definitions).
#include "log/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <array>

namespace tune::log {
namespace {

constexpr std::array kNames{std::string_view{"trace"}, std::string_view{"debug"}, std::string_view{"info"},
                            std::string_view{"warn"},  std::string_view{"error"}, std::string_view{"off"}};

spdlog::level::level_enum to_spdlog(Level l) noexcept {
  switch (l) {
    case Level::trace:
      return spdlog::level::trace;
    case Level::debug:
      return spdlog::level::debug;
    case Level::info:
      return spdlog::level::info;
    case Level::warn:
      return spdlog::level::warn;
    case Level::error:
      return spdlog::level::err;
    case Level::off:
      break;
  }
  return spdlog::level::off;
}

}  // namespace

std::span<const std::string_view> level_names() noexcept { return kNames; }

std::optional<Level> parse_level(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (kNames[i] == name) return static_cast<Level>(i);
  return std::nullopt;
}

void setup(Level level, bool color) {
  spdlog::drop("tune");  // a second setup replaces the first
  auto logger = spdlog::stderr_color_mt("tune", color ? spdlog::color_mode::automatic : spdlog::color_mode::never);
  logger->set_pattern("[%H:%M:%S.%e] %^%l%$ %v");
  logger->set_level(to_spdlog(level));
  spdlog::set_default_logger(logger);
}

void set_level(Level level) { spdlog::set_level(to_spdlog(level)); }

Level level() noexcept {
  const auto l = spdlog::get_level();
  for (std::size_t i = 0; i < kNames.size(); ++i)
    if (to_spdlog(static_cast<Level>(i)) == l) return static_cast<Level>(i);
  return Level::error;  // spdlog's critical: only errors and worse would show
}

bool enabled(Level level) noexcept { return level != Level::off && spdlog::should_log(to_spdlog(level)); }

void flush() noexcept {
  try {
    spdlog::default_logger_raw()->flush();
  } catch (...) {  // a log that cannot be flushed is not an error of the command
  }
}

void vwrite(Level level, fmt::string_view format, fmt::format_args args) {
  const std::string message = fmt::vformat(format, args);
  spdlog::default_logger_raw()->log(to_spdlog(level), spdlog::string_view_t(message.data(), message.size()));
}

std::string vformat(fmt::string_view format, fmt::format_args args) { return fmt::vformat(format, args); }

}  // namespace tune::log

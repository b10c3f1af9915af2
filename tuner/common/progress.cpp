#include "common/progress.h"

#include <unistd.h>

#include <cstdio>

namespace tune {

using clock_type = std::chrono::steady_clock;

std::string format_duration(double s) {
  char buf[48];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%.0f s", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%d min %02d s", int(s) / 60, int(s) % 60);
  else
    std::snprintf(buf, sizeof buf, "%d h %02d min", int(s) / 3600, int(s) % 3600 / 60);
  return buf;
}

Progress::Progress(std::string what, std::size_t total)
    : what_(std::move(what)),
      total_(total),
      tty_(isatty(STDERR_FILENO) != 0),
      start_(clock_type::now()),
      last_(start_) {}

Progress::~Progress() { finish(); }

std::string Progress::line(const std::string& detail) const {
  double elapsed = std::chrono::duration<double>(clock_type::now() - start_).count();
  std::string s = what_ + ": " + std::to_string(done_) + "/" + std::to_string(total_);
  if (!detail.empty()) s += ", " + detail;
  s += ", " + format_duration(elapsed) + " elapsed";
  if (done_ > 0 && done_ < total_) s += ", ETA " + format_duration(elapsed / done_ * (total_ - done_));
  return s;
}

void Progress::update(std::size_t done, const std::string& detail) {
  done_ = done;
  auto now = clock_type::now();
  auto since = std::chrono::duration<double>(now - last_).count();
  if (tty_ && since >= 0.2) {
    std::fprintf(stderr, "\r\033[K%s", line(detail).c_str());
    last_ = now;
  } else if (!tty_ && since >= 5.0) {
    std::fprintf(stderr, "%s\n", line(detail).c_str());
    last_ = now;
  }
}

void Progress::finish() {
  if (finished_) return;
  finished_ = true;
  if (tty_) std::fprintf(stderr, "\r\033[K");
}

}  // namespace tune

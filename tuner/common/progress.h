// A progress line on stderr for long work: counts, rate and ETA, redrawn at most a few times a
// second on a terminal, logged every few seconds otherwise.
#pragma once
#include <chrono>
#include <cstddef>
#include <string>

namespace tune {

class Progress {
 public:
  Progress(std::string what, std::size_t total);
  ~Progress();  // finishes the line
  // done: items finished so far; detail: extra counts ("12 failed", "3 compiled").
  void update(std::size_t done, const std::string& detail = "");
  void finish();

 private:
  std::string what_;
  std::size_t total_;
  std::size_t done_ = 0;
  bool tty_;
  bool finished_ = false;
  std::chrono::steady_clock::time_point start_, last_;
  std::string line(const std::string& detail) const;
};

std::string format_duration(double seconds);  // "42 s", "3 min 05 s", "1 h 02 min"

}  // namespace tune

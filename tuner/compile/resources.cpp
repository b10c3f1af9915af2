#include "compile/resources.h"

#include <charconv>
#include <optional>

namespace tune::compile {

namespace {

// The integer right before `suffix` in `line` ("... 4224 bytes smem" -> 4224), if any.
std::optional<int> number_before(std::string_view line, std::string_view suffix) {
  const std::size_t at = line.find(suffix);
  if (at == std::string_view::npos) return std::nullopt;
  std::size_t end = at;
  while (end > 0 && line[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && line[begin - 1] >= '0' && line[begin - 1] <= '9') --begin;
  if (begin == end) return std::nullopt;
  int value = 0;
  const auto [ptr, ec] = std::from_chars(line.data() + begin, line.data() + end, value);
  if (ec != std::errc() || ptr != line.data() + end) return std::nullopt;
  return value;
}

// The name in "... 'name' ..." or after "Function properties for ".
std::string_view quoted(std::string_view line) {
  const std::size_t a = line.find('\'');
  if (a == std::string_view::npos) return {};
  const std::size_t b = line.find('\'', a + 1);
  if (b == std::string_view::npos) return {};
  return line.substr(a + 1, b - a - 1);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r' || s.back() == '\t')) s.remove_suffix(1);
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  return s;
}

}  // namespace

// ptxas reports each entry as:
//   ptxas info    : Compiling entry function 'copy' for 'sm_90'
//   ptxas info    : Function properties for copy
//   ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
//   ptxas info    : Used 36 registers, used 1 barriers, 4224 bytes smem, 368 bytes cmem[0]
Resources parse_ptxas_log(std::string_view log, std::string_view kernel) {
  Resources r;
  bool entry = false;  // after "Compiling entry function '<kernel>'", until the next entry
  bool props = false;  // after "Function properties for <kernel>", until the next properties
  std::size_t pos = 0;
  while (pos < log.size()) {
    std::size_t nl = log.find('\n', pos);
    if (nl == std::string_view::npos) nl = log.size();
    const std::string_view line = log.substr(pos, nl - pos);
    pos = nl + 1;
    if (line.find("Compiling entry function") != std::string_view::npos) {
      entry = quoted(line) == kernel;
      continue;
    }
    const std::size_t fp = line.find("Function properties for ");
    if (fp != std::string_view::npos) {
      props = trim(line.substr(fp + 24)) == kernel;
      continue;
    }
    if (props) {
      if (auto v = number_before(line, "bytes stack frame")) r.stack_frame = *v;
      if (auto v = number_before(line, "bytes spill stores")) r.spill_stores = *v;
      if (auto v = number_before(line, "bytes spill loads")) r.spill_loads = *v;
    }
    if (entry && line.find("Used ") != std::string_view::npos) {
      if (auto v = number_before(line, "registers")) {
        r.registers = *v;
        r.parsed = true;
        if (auto b = number_before(line, "barriers")) r.barriers = *b;
        if (auto s = number_before(line, "bytes smem")) r.static_shared = *s;
        if (auto c = number_before(line, "bytes cmem[0]")) r.constant_bytes = *c;
      }
    }
  }
  return r;
}

DeviceLimits hopper_limits() { return DeviceLimits{}; }

std::string check_launch(const Resources& res, int threads, int dynamic_shared, const DeviceLimits& lim) {
  using std::to_string;
  if (threads <= 0) return "block of " + to_string(threads) + " threads is empty";
  if (threads > lim.max_threads_per_block)
    return "block of " + to_string(threads) + " threads exceeds the device limit of " +
           to_string(lim.max_threads_per_block);
  if (dynamic_shared < 0) return "dynamic shared memory of " + to_string(dynamic_shared) + " B";
  if (res.registers > lim.max_registers_per_thread)
    return "needs " + to_string(res.registers) + " registers per thread > " + to_string(lim.max_registers_per_thread);
  // Registers are allocated per warp, per thread in steps of the allocation unit.
  const int unit = lim.register_allocation_unit > 0 ? lim.register_allocation_unit : 1;
  const long long regs = (res.registers + unit - 1) / unit * unit;
  const long long slots = (threads + 31) / 32 * 32LL;
  if (regs * slots > lim.max_registers_per_block) {
    std::string rounded;
    if (regs != res.registers)
      rounded = " (" + to_string(res.registers) + " allocated in steps of " + to_string(unit) + ")";
    return "needs " + to_string(regs) + " registers x " + to_string(slots) + " threads = " + to_string(regs * slots) +
           " > " + to_string(lim.max_registers_per_block) + " registers per block" + rounded;
  }
  if (res.static_shared > lim.max_static_shared)
    return "static shared memory " + to_string(res.static_shared) + " B > " + to_string(lim.max_static_shared) +
           " B per block";
  const long long shared = static_cast<long long>(res.static_shared) + dynamic_shared;
  if (shared > lim.max_shared_opt_in)
    return "shared memory " + to_string(shared) + " B > " + to_string(lim.max_shared_opt_in) +
           " B per block even with opt-in";
  if (!lim.shared_opt_in && shared > lim.max_shared_without_opt_in)
    return "shared memory " + to_string(shared) + " B > " + to_string(lim.max_shared_without_opt_in) +
           " B without opt-in";
  return {};
}

}  // namespace tune::compile

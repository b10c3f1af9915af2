// Reading a user's input file: only a regular file, only up to a bound, and JSON only to a bounded
// nesting depth, all checked before anything is allocated for it or parsed.
//   - a FIFO, device, socket or directory is refused before a byte is read: the file is opened
//     with O_NONBLOCK (opening a FIFO never waits for a writer) and fstat'ed on that descriptor,
//     so the check and the read are of the same file;
//   - its size is checked against the bound before the buffer is allocated;
//   - JSON nesting is counted on the text (brackets outside strings) before a parser, whose
//     recursion (and nlohmann's copies and dumps) would overflow the stack, sees it.
// Every refusal is one InputError naming the file, the bound and the cause.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>

namespace tune {

// JSON inputs (specs, caches, T4 files, capture headers) nest at most this deep; real ones nest
// fewer than 10 levels.
inline constexpr std::size_t kMaxJsonDepth = 64;

// A regular file opened for reading (RAII). Throws InputError, naming `what` ("spec"; may be
// empty) and the path, when
// the path does not exist, cannot be opened or is not a regular file.
class RegularFile {
 public:
  RegularFile(const std::filesystem::path& path, std::string_view what);
  ~RegularFile();
  RegularFile(const RegularFile&) = delete;
  RegularFile& operator=(const RegularFile&) = delete;

  std::uint64_t size() const { return size_; }
  // Reads exactly n bytes at the current position; false at a short read or a read error.
  bool read(void* into, std::size_t n);
  // The rest of the file, refused (before allocation) when the file is larger than max_bytes.
  std::string read_all(std::uint64_t max_bytes);

 private:
  std::string name_;
  int fd_ = -1;
  std::uint64_t size_ = 0;
};

// The whole of a regular file of at most max_bytes (RegularFile's checks).
std::string read_regular_file(const std::filesystem::path& path, std::uint64_t max_bytes, std::string_view what);

// The deepest nesting of arrays and objects in `text` (brackets inside strings not counted); the
// scan stops once `limit` is exceeded.
std::size_t json_depth(std::string_view text, std::size_t limit = kMaxJsonDepth);

// Throws InputError("<what>: JSON nested more than <limit> levels deep") when json_depth exceeds it.
void check_json_depth(std::string_view text, std::string_view what, std::size_t limit = kMaxJsonDepth);

}  // namespace tune

// Internal to the runtime library: the on-disk cubin cache shared by processes.
//
// A cubin is stored under the key compile::cache_key gives (a hash of the source, the NVRTC
// options with the target architecture and the defines, the kernel name and NVRTC's version),
// in <dir>/<key>.cubin:
//   "TUNECUBIN\x1a"  u32 version (1)  u32 key length, key  u32 name length, lowered kernel name
//   u64 cubin length, cubin  then 32 hex digits: content_hash of everything before them.
// load() takes a file only when it is a regular file (not a link) owned by this user and
// writable by no one else, in a directory with the same properties, no larger than 64 MiB, with
// the expected key (so a file never stands for another source, option set, architecture or
// compiler) and an intact digest; anything else is refused (counted, and compiled instead).
// store() writes a private temporary file and renames it into place, so concurrent processes
// never read a partial file and the last complete write wins.
#pragma once
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>

namespace tune::runtime::detail {

struct CachedCubin {
  std::string lowered_name;
  std::string cubin;
};

class DiskCache {
 public:
  // Opens (creating it with mode 0700 if missing) the cache directory. When the directory cannot
  // be used safely the cache is off and note() says why.
  explicit DiskCache(std::filesystem::path dir);

  bool enabled() const { return enabled_; }
  const std::filesystem::path& dir() const { return dir_; }
  const std::string& note() const { return note_; }

  // The cubin stored under `key`, if a trustworthy intact file holds it; `refused` is set when a
  // file was there but not used.
  std::optional<CachedCubin> load(const std::string& key, bool& refused) const;
  // Best effort: a failure to write leaves the cache as it was.
  void store(const std::string& key, const CachedCubin& cubin) const;

  // $TUNE_CACHE_DIR, else $XDG_CACHE_HOME/tune, else $HOME/.cache/tune ("" when none is set or
  // TUNE_CACHE_DIR is "off").
  static std::filesystem::path default_dir();

 private:
  std::filesystem::path dir_;
  bool enabled_ = false;
  std::string note_;
};

}  // namespace tune::runtime::detail

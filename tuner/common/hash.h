// Stable content hashes (identical across runs, machines and builds) for spec files and the
// compiled-binary cache. Not cryptographic: 128 bits of FNV-1a-style mixing, shown as hex.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace tune {

class Hasher {
 public:
  Hasher& add(std::string_view bytes);
  // Adds a field and a separator, so ("ab","c") and ("a","bc") differ.
  Hasher& field(std::string_view bytes);
  std::string hex() const;  // 32 hex digits

 private:
  std::uint64_t a_ = 0xcbf29ce484222325ULL;
  std::uint64_t b_ = 0x84222325cbf29ce4ULL;
};

std::string content_hash(std::string_view bytes);

}  // namespace tune

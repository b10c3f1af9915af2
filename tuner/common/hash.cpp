#include "common/hash.h"

#include <cstdio>

namespace tune {

namespace {
std::uint64_t mix(std::uint64_t x) {  // splitmix64 finaliser
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}
}  // namespace

Hasher& Hasher::add(std::string_view bytes) {
  for (unsigned char c : bytes) {
    a_ = (a_ ^ c) * 0x100000001b3ULL;
    b_ = (b_ ^ (c + 0x9eU)) * 0x100000001b3ULL + (a_ >> 47);
  }
  return *this;
}

Hasher& Hasher::field(std::string_view bytes) {
  add(bytes);
  std::string len = std::to_string(bytes.size());
  return add("\x1f").add(len).add("\x1e");
}

std::string Hasher::hex() const {
  char out[33];
  std::snprintf(out, sizeof out, "%016llx%016llx", static_cast<unsigned long long>(mix(a_)),
                static_cast<unsigned long long>(mix(b_ ^ a_)));
  return out;
}

std::string content_hash(std::string_view bytes) { return Hasher().add(bytes).hex(); }

}  // namespace tune

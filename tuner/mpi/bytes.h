// Messages between ranks as bytes: a Writer appends numbers, strings and blobs, a Reader takes
// them back in the same order and throws Error on a short or malformed message. Doubles travel as
// their bits, so a NaN or a last digit survives the trip (evaluate's scores are compared exactly).
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"

namespace tune::mpi {

class Writer {
 public:
  Writer& u64(std::uint64_t v) { return raw(&v, sizeof v); }
  Writer& f64(double v) { return raw(&v, sizeof v); }
  Writer& str(std::string_view s) {
    u64(s.size());
    return raw(s.data(), s.size());
  }
  Writer& f64s(const std::vector<double>& v) {
    u64(v.size());
    return raw(v.data(), v.size() * sizeof(double));
  }
  std::string take() { return std::move(out_); }

 private:
  Writer& raw(const void* p, std::size_t n) {
    out_.append(static_cast<const char*>(p), n);
    return *this;
  }
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  explicit Reader(std::string&&) = delete;  // it would read a temporary that is gone
  std::uint64_t u64() { return pod<std::uint64_t>(); }
  double f64() { return pod<double>(); }
  std::string str() {
    const std::uint64_t n = u64();
    return std::string(take(n));
  }
  std::vector<double> f64s() {
    const std::uint64_t n = u64();
    if (n > in_.size() / sizeof(double)) throw Error("mpi: a message is shorter than it says");
    std::vector<double> v(n);
    const auto bytes = take(n * sizeof(double));
    if (n) std::memcpy(v.data(), bytes.data(), bytes.size());
    return v;
  }
  bool done() const { return in_.empty(); }

 private:
  template <class T>
  T pod() {
    T v{};
    std::memcpy(&v, take(sizeof v).data(), sizeof v);
    return v;
  }
  std::string_view take(std::uint64_t n) {
    if (n > in_.size()) throw Error("mpi: a message is shorter than it says");
    auto s = in_.substr(0, n);
    in_.remove_prefix(n);
    return s;
  }
  std::string_view in_;
};

}  // namespace tune::mpi

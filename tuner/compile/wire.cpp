#include "compile/wire.h"

#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <bit>
#include <cerrno>
#include <cstring>

#include "common/error.h"

namespace tune::compile::wire {

namespace {

class Writer {
 public:
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) {
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void u64(std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  }
  void i32(int v) { u32(static_cast<std::uint32_t>(v)); }
  void f64(double v) { u64(std::bit_cast<std::uint64_t>(v)); }
  void str(std::string_view s) {
    if (s.size() > kMaxFrame) throw Error("compile server: a string of " + std::to_string(s.size()) + " bytes");
    u32(static_cast<std::uint32_t>(s.size()));
    out_.append(s);
  }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

class Reader {
 public:
  explicit Reader(std::string_view in) : in_(in) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(bytes(1)[0]); }
  std::uint32_t u32() {
    const std::string_view b = bytes(4);
    std::uint32_t v = 0;
    for (int i = 0; i < 4; ++i) v |= static_cast<std::uint32_t>(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
  }
  std::uint64_t u64() {
    const std::string_view b = bytes(8);
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
  }
  int i32() { return static_cast<int>(u32()); }
  double f64() { return std::bit_cast<double>(u64()); }
  std::string str() { return std::string(bytes(u32())); }
  // A count of items that each take at least `min_bytes`: refused when the frame cannot hold them.
  std::size_t count(std::size_t min_bytes) {
    const std::size_t n = u32();
    if (n * min_bytes > in_.size() - at_) throw Error("compile server: a malformed frame (a count past its end)");
    return n;
  }
  void end() const {
    if (at_ != in_.size()) throw Error("compile server: a malformed frame (bytes after its end)");
  }

 private:
  std::string_view bytes(std::size_t n) {
    if (n > in_.size() - at_) throw Error("compile server: a malformed frame (truncated)");
    const std::string_view b = in_.substr(at_, n);
    at_ += n;
    return b;
  }
  std::string_view in_;
  std::size_t at_ = 0;
};

void put(Writer& w, const Resources& r) {
  w.u8(r.parsed ? 1 : 0);
  for (int v :
       {r.registers, r.barriers, r.static_shared, r.constant_bytes, r.stack_frame, r.spill_stores, r.spill_loads})
    w.i32(v);
}

Resources get_resources(Reader& r) {
  Resources res;
  res.parsed = r.u8() != 0;
  for (int* v : {&res.registers, &res.barriers, &res.static_shared, &res.constant_bytes, &res.stack_frame,
                 &res.spill_stores, &res.spill_loads})
    *v = r.i32();
  return res;
}

}  // namespace

std::string encode(const CompileRequest& q) {
  Writer w;
  w.str(q.source);
  w.str(q.source_name);
  w.str(q.kernel_name);
  w.u32(static_cast<std::uint32_t>(q.defines.size()));
  for (const auto& [name, value] : q.defines) w.str(name), w.str(value);
  w.u32(static_cast<std::uint32_t>(q.options.size()));
  for (const auto& o : q.options) w.str(o);
  w.str(q.arch);
  w.u64(q.tag);
  return w.take();
}

CompileRequest decode_request(std::string_view frame) {
  Reader r(frame);
  CompileRequest q;
  q.source = r.str();
  q.source_name = r.str();
  q.kernel_name = r.str();
  for (std::size_t i = 0, n = r.count(8); i < n; ++i) {
    std::string name = r.str();
    q.defines.emplace_back(std::move(name), r.str());
  }
  for (std::size_t i = 0, n = r.count(4); i < n; ++i) q.options.push_back(r.str());
  q.arch = r.str();
  q.tag = r.u64();
  r.end();
  return q;
}

std::string encode(const CompileResult& c) {
  Writer w;
  w.u8(static_cast<std::uint8_t>(Outcome::result));
  w.u8(c.ok() ? 1 : 0);
  w.str(c.cubin);
  w.str(c.lowered_name);
  w.str(c.log);
  w.f64(c.wall_ms);
  put(w, c.resources);
  w.u64(c.tag);
  return w.take();
}

std::string encode_error(Outcome outcome, std::string_view message) {
  Writer w;
  w.u8(static_cast<std::uint8_t>(outcome));
  w.str(message);
  return w.take();
}

Reply decode_reply(std::string_view frame) {
  Reader r(frame);
  Reply reply;
  const std::uint8_t kind = r.u8();
  if (kind > static_cast<std::uint8_t>(Outcome::unavailable))
    throw Error("compile server: a malformed frame (reply kind " + std::to_string(kind) + ")");
  reply.outcome = static_cast<Outcome>(kind);
  if (reply.outcome != Outcome::result) {
    reply.message = r.str();
  } else {
    CompileResult& c = reply.result;
    c.status = r.u8() != 0 ? Status::ok : Status::compile_failed;
    c.cubin = r.str();
    c.lowered_name = r.str();
    c.log = r.str();
    c.wall_ms = r.f64();
    c.resources = get_resources(r);
    c.tag = r.u64();
  }
  r.end();
  return reply;
}

bool write_frame(int fd, std::string_view payload) {
  if (payload.size() > kMaxFrame) return false;
  std::array<char, 4> head{};
  for (int i = 0; i < 4; ++i) head[i] = static_cast<char>((payload.size() >> (8 * i)) & 0xff);
  for (std::string_view part : {std::string_view(head.data(), head.size()), payload}) {
    while (!part.empty()) {
      const ssize_t n = ::send(fd, part.data(), part.size(), MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return false;
      part.remove_prefix(static_cast<std::size_t>(n));
    }
  }
  return true;
}

namespace {
bool read_all(int fd, char* at, std::size_t n) {
  while (n > 0) {
    const ssize_t got = ::read(fd, at, n);
    if (got < 0 && errno == EINTR) continue;
    if (got <= 0) return false;
    at += got;
    n -= static_cast<std::size_t>(got);
  }
  return true;
}
}  // namespace

std::optional<std::string> read_frame(int fd) {
  std::array<unsigned char, 4> head{};
  if (!read_all(fd, reinterpret_cast<char*>(head.data()), head.size())) return std::nullopt;
  std::size_t n = 0;
  for (int i = 0; i < 4; ++i) n |= static_cast<std::size_t>(head[i]) << (8 * i);
  if (n > kMaxFrame) return std::nullopt;
  std::string payload(n, '\0');
  if (!read_all(fd, payload.data(), n)) return std::nullopt;
  return payload;
}

}  // namespace tune::compile::wire

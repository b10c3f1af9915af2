// The wire format between a tune process and its compile processes (compile/processes.h): on a
// stream socket, frames of a 4-byte little-endian length and that many bytes; a request is one
// frame, its reply one frame. Both ends are the same binary, so the format carries no version.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "compile/compile.h"

namespace tune::compile::wire {

// A frame longer than this is refused (a cubin is a few MiB, a source a few hundred KiB).
inline constexpr std::size_t kMaxFrame = std::size_t{1} << 28;

// What a reply holds: the compile's result, or the exception compile() threw, by kind.
enum class Outcome : std::uint8_t { result = 0, input_error = 1, unavailable = 2 };

struct Reply {
  Outcome outcome = Outcome::result;
  CompileResult result;  // outcome == result
  std::string message;   // otherwise: the exception's what()
};

std::string encode(const CompileRequest& request);
std::string encode(const CompileResult& result);
std::string encode_error(Outcome outcome, std::string_view message);

// Throw tune::Error on a malformed frame (truncated, a count or a length past its end, bytes left).
CompileRequest decode_request(std::string_view frame);
Reply decode_reply(std::string_view frame);

// Writes one frame; false when the peer is gone (no SIGPIPE).
bool write_frame(int fd, std::string_view payload);
// Reads one frame; std::nullopt at the end of the stream (the peer is gone) or on a frame longer
// than kMaxFrame.
std::optional<std::string> read_frame(int fd);

}  // namespace tune::compile::wire

// Capture files: one launch of a kernel at one problem size as the application made it, with
// its arguments' data before the launch and the outputs the launch produced. The runtime library
// writes them (TUNE_CAPTURE=dir, tune/runtime.h); `tune --space S --capture FILE...` tunes with
// those inputs and verifies every configuration against the captured outputs.
//
// Format, version 1 (all integers little-endian):
//   offset 0   8 bytes   magic "TUNECAP\x1a"
//   offset 8   u32       format version (1)
//   offset 12  u32       H: length of the header (1 .. 1 MiB)
//   offset 16  H bytes   header: a JSON object (UTF-8)
//   then       the data blocks, packed without gaps, in argument order: each argument's input
//              block (input_bytes), then its output block (output_bytes)
//   The file ends with the last block: its size is exactly 16 + H + the sum of the blocks.
// Header: {"kernel": KernelName, "device": name, "problem_size": [x, y, z] (each 1 .. 2^31),
//          "configuration": the parameters the application's launch ran (object, may be empty),
//          "arguments": [{"name", "type" (T1 type name), "scalar": bool, "element_bytes" (1..64),
//                         "count" (elements; 1 for a scalar), "output": bool,
//                         "input_bytes", "input_hash", "output_bytes", "output_hash"}]}
//   input_bytes is count * element_bytes (a scalar's value; a buffer's contents before the
//   launch), output_bytes the same for an output and 0 otherwise; each hash is common/hash.h's
//   content_hash of its block. At most 64 arguments; names and types at most 256 bytes.
// read() checks all of it and refuses anything else with one InputError naming the file.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tune::capture {

inline constexpr std::uint32_t kVersion = 1;
inline constexpr char kMagic[8] = {'T', 'U', 'N', 'E', 'C', 'A', 'P', '\x1a'};
inline constexpr std::uint32_t kMaxHeaderBytes = 1u << 20;
inline constexpr std::size_t kMaxArguments = 64;
inline constexpr std::uint64_t kMaxFileBytes = std::uint64_t{64} << 30;  // 64 GiB

struct Argument {
  std::string name, type;
  bool scalar = false;
  std::uint32_t element_bytes = 0;
  std::uint64_t count = 0;
  bool output = false;
  std::vector<std::byte> input;   // count * element_bytes
  std::vector<std::byte> result;  // outputs: count * element_bytes after the launch; else empty
};

struct Capture {
  std::string kernel;  // the spec's KernelName
  std::string device;
  std::array<std::int64_t, 3> size{1, 1, 1};
  nlohmann::json configuration = nlohmann::json::object();
  std::vector<Argument> arguments;
};

// Writes the file whole or not at all (common/output_file.h: a hidden temporary in the same folder,
// renamed over `path`; never a database or its side files), first removing the temporaries that
// killed writers left in the folder. Throws tune::InputError naming the path.
void write(const std::filesystem::path& path, const Capture& capture);

// Reads and validates a capture file. Throws tune::InputError naming the file and the cause.
// `check_header`, when given, sees the capture with every argument's description but no data
// yet: what it refuses (an argument the spec sizes differently) costs no allocation of the data,
// however large the file claims it to be.
Capture read(const std::filesystem::path& path, std::uint64_t max_bytes = kMaxFileBytes,
             const std::function<void(const Capture&)>& check_header = {});

// "transpose_4096x4096x1.tunecap": the file name of a capture (the kernel name sanitised).
std::string file_name(const std::string& kernel, const std::array<std::int64_t, 3>& size);

}  // namespace tune::capture

#include "capture/capture.h"

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <tuple>

#include "common/bounded_read.h"
#include "common/error.h"
#include "common/hash.h"
#include "common/output_file.h"

namespace tune::capture {

namespace {

using json = nlohmann::json;

void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out += static_cast<char>((v >> (8 * i)) & 0xff);
}

std::uint32_t get_u32(const unsigned char* p) {
  return std::uint32_t{p[0]} | std::uint32_t{p[1]} << 8 | std::uint32_t{p[2]} << 16 | std::uint32_t{p[3]} << 24;
}

std::string hash(const std::vector<std::byte>& block) {
  return content_hash(std::string_view(reinterpret_cast<const char*>(block.data()), block.size()));
}

}  // namespace

std::string file_name(const std::string& kernel, const std::array<std::int64_t, 3>& size) {
  std::string stem;
  for (char c : kernel.substr(0, 64)) stem += (std::isalnum(static_cast<unsigned char>(c)) || c == '_') ? c : '_';
  if (stem.empty()) stem = "_";
  return stem + "_" + std::to_string(size[0]) + "x" + std::to_string(size[1]) + "x" + std::to_string(size[2]) +
         ".tunecap";
}

void write(const std::filesystem::path& path, const Capture& c) {
  json h;
  h["kernel"] = c.kernel;
  h["device"] = c.device;
  h["problem_size"] = c.size;
  h["configuration"] = c.configuration;
  h["arguments"] = json::array();
  for (const auto& a : c.arguments) {
    h["arguments"].push_back({{"name", a.name},
                              {"type", a.type},
                              {"scalar", a.scalar},
                              {"element_bytes", a.element_bytes},
                              {"count", a.count},
                              {"output", a.output},
                              {"input_bytes", a.input.size()},
                              {"input_hash", hash(a.input)},
                              {"output_bytes", a.result.size()},
                              {"output_hash", hash(a.result)}});
  }
  const std::string header = h.dump(-1, ' ', true, json::error_handler_t::replace);
  std::string head(kMagic, sizeof kMagic);
  put_u32(head, kVersion);
  put_u32(head, static_cast<std::uint32_t>(header.size()));
  head += header;

  // Through the output writer: a hidden temporary renamed over the file, never a database or its
  // side files, and what a killed writer left removed by the next write.
  std::vector<std::string_view> pieces{head};
  for (const auto& a : c.arguments)
    for (const auto* block : {&a.input, &a.result})
      pieces.emplace_back(reinterpret_cast<const char*>(block->data()), block->size());
  const std::filesystem::path dir = path.has_parent_path() ? path.parent_path() : std::filesystem::path(".");
  remove_dead_writers_temporaries(dir, ".tunecap", Names::ending);
  write_file_atomically(path, pieces);
}

Capture read(const std::filesystem::path& path, std::uint64_t max_bytes,
             const std::function<void(const Capture&)>& check_header) {
  const std::string name = path.string();
  auto bad = [&](const std::string& why) -> InputError {
    return InputError(name + ": not a valid capture file: " + why);
  };
  RegularFile f(path, "capture file");  // a FIFO or device is refused before it is read
  const std::uint64_t size = f.size();
  if (size > max_bytes)
    throw bad("it has " + std::to_string(size) + " bytes, more than the limit of " + std::to_string(max_bytes));
  unsigned char head[16];
  if (!f.read(head, sizeof head)) throw bad("shorter than its 16-byte preamble");
  if (std::memcmp(head, kMagic, sizeof kMagic) != 0) throw bad("no TUNECAP magic");
  if (get_u32(head + 8) != kVersion)
    throw bad("format version " + std::to_string(get_u32(head + 8)) + ", this tune reads version " +
              std::to_string(kVersion));
  const std::uint32_t header_bytes = get_u32(head + 12);
  if (header_bytes == 0 || header_bytes > kMaxHeaderBytes || 16 + std::uint64_t{header_bytes} > size)
    throw bad("header length " + std::to_string(header_bytes) + " out of bounds");
  std::string text(header_bytes, '\0');
  if (!f.read(text.data(), header_bytes)) throw bad("truncated header");
  if (json_depth(text) > kMaxJsonDepth)
    throw bad("the header nests more than " + std::to_string(kMaxJsonDepth) + " levels deep");
  const json h = json::parse(text, nullptr, false);
  if (!h.is_object()) throw bad("the header is not a JSON object");

  auto str = [&](const json& o, const char* key) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_string() || it->get_ref<const std::string&>().size() > 256)
      throw bad(std::string("'") + key + "' missing, not a string or longer than 256 bytes");
    return it->get<std::string>();
  };
  auto num = [&](const json& o, const char* key, std::uint64_t lo, std::uint64_t hi) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_number_unsigned() || it->get<std::uint64_t>() < lo || it->get<std::uint64_t>() > hi)
      throw bad(std::string("'") + key + "' missing or not a whole number in " + std::to_string(lo) + ".." +
                std::to_string(hi));
    return it->get<std::uint64_t>();
  };
  auto flag = [&](const json& o, const char* key) {
    auto it = o.find(key);
    if (it == o.end() || !it->is_boolean()) throw bad(std::string("'") + key + "' missing or not true/false");
    return it->get<bool>();
  };

  Capture c;
  c.kernel = str(h, "kernel");
  c.device = str(h, "device");
  auto ps = h.find("problem_size");
  if (ps == h.end() || !ps->is_array() || ps->size() != 3) throw bad("'problem_size' is not [x, y, z]");
  for (int d = 0; d < 3; ++d) {
    const json& v = (*ps)[d];
    if (!v.is_number_unsigned() || v.get<std::uint64_t>() < 1 || v.get<std::uint64_t>() > (std::uint64_t{1} << 31))
      throw bad("'problem_size' entries must be whole numbers in 1..2^31");
    c.size[d] = v.get<std::int64_t>();
  }
  if (auto cfg = h.find("configuration"); cfg != h.end()) {
    if (!cfg->is_object()) throw bad("'configuration' is not an object");
    c.configuration = *cfg;
  }
  auto args = h.find("arguments");
  if (args == h.end() || !args->is_array() || args->size() > kMaxArguments)
    throw bad("'arguments' missing or more than " + std::to_string(kMaxArguments));

  std::vector<std::array<std::uint64_t, 2>> blocks;  // input and output bytes per argument
  std::uint64_t offset = 16 + std::uint64_t{header_bytes};
  for (const json& a : *args) {
    if (!a.is_object()) throw bad("an argument is not an object");
    Argument arg;
    arg.name = str(a, "name");
    arg.type = str(a, "type");
    arg.scalar = flag(a, "scalar");
    arg.output = flag(a, "output");
    arg.element_bytes = static_cast<std::uint32_t>(num(a, "element_bytes", 1, 64));
    arg.count = num(a, "count", 1, arg.scalar ? 1 : (std::uint64_t{1} << 40));
    const std::uint64_t bytes = arg.count * arg.element_bytes;
    const std::uint64_t in = num(a, "input_bytes", 0, max_bytes), out = num(a, "output_bytes", 0, max_bytes);
    if (in != bytes) throw bad("argument '" + arg.name + "': input_bytes is not count * element_bytes");
    if (out != (arg.output ? bytes : 0))
      throw bad("argument '" + arg.name + "': output_bytes must be count * element_bytes for an output, else 0");
    if (arg.scalar && arg.output) throw bad("argument '" + arg.name + "': a scalar cannot be an output");
    if (offset + in + out > size) throw bad("argument '" + arg.name + "': its data runs past the end of the file");
    str(a, "input_hash");
    str(a, "output_hash");
    offset += in + out;
    blocks.push_back({in, out});
    c.arguments.push_back(std::move(arg));
  }
  if (offset != size) throw bad(std::to_string(size - offset) + " bytes after the last block");
  // The caller's checks (the arguments the spec declares) run before any data block is allocated.
  if (check_header) check_header(c);
  for (std::size_t i = 0; i < c.arguments.size(); ++i) {
    Argument& arg = c.arguments[i];
    const json& a = (*args)[i];
    for (auto [block, n, key] :
         {std::tuple{&arg.input, blocks[i][0], "input_hash"}, std::tuple{&arg.result, blocks[i][1], "output_hash"}}) {
      block->resize(n);
      if (n > 0 && !f.read(block->data(), n)) throw bad("argument '" + arg.name + "': truncated data");
      if (str(a, key) != hash(*block)) throw bad("argument '" + arg.name + "': the data does not match its hash");
    }
  }
  return c;
}

}  // namespace tune::capture

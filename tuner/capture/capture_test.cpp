#include "capture/capture.h"

#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <iterator>

#include "common/error.h"
#include "common/test_dir.h"

namespace fs = std::filesystem;
using namespace tune;

namespace {

struct Dir : tune::testing::TestDir {
  Dir() : TestDir("tune_capture") {}
};

// A 2 x 2 float transpose: out (output), in, rows, cols.
capture::Capture sample() {
  capture::Capture c;
  c.kernel = "transpose";
  c.device = "NVIDIA H200";
  c.size = {2, 2, 1};
  c.configuration = {{"block_size_x", 32}};
  auto arg = [](std::string name, std::string type, bool scalar, std::uint64_t count, bool output) {
    capture::Argument a;
    a.name = std::move(name);
    a.type = std::move(type);
    a.scalar = scalar;
    a.element_bytes = 4;
    a.count = count;
    a.output = output;
    a.input.resize(count * 4);
    for (std::size_t i = 0; i < a.input.size(); ++i) a.input[i] = static_cast<std::byte>(i * 7 + 1);
    if (output) a.result.assign(a.input.rbegin(), a.input.rend());
    return a;
  };
  c.arguments = {arg("out", "float", false, 4, true), arg("in", "float", false, 4, false),
                 arg("rows", "int32", true, 1, false), arg("cols", "int32", true, 1, false)};
  return c;
}

std::string slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

void spit(const fs::path& p, const std::string& s) { std::ofstream(p, std::ios::binary) << s; }

// The error read() gives for `text` ("" when it reads).
std::string error_of(const fs::path& p, const std::string& text) {
  spit(p, text);
  try {
    capture::read(p);
    return "";
  } catch (const InputError& e) {
    return e.what();
  }
}

}  // namespace

TEST(Capture, RoundTrip) {
  Dir d;
  const auto c = sample();
  capture::write(d.path / "a.tunecap", c);
  const auto r = capture::read(d.path / "a.tunecap");
  EXPECT_EQ(r.kernel, "transpose");
  EXPECT_EQ(r.device, "NVIDIA H200");
  EXPECT_EQ(r.size, (std::array<std::int64_t, 3>{2, 2, 1}));
  EXPECT_EQ(r.configuration["block_size_x"], 32);
  ASSERT_EQ(r.arguments.size(), 4u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(r.arguments[i].name, c.arguments[i].name);
    EXPECT_EQ(r.arguments[i].input, c.arguments[i].input);
    EXPECT_EQ(r.arguments[i].result, c.arguments[i].result);
    EXPECT_EQ(r.arguments[i].output, c.arguments[i].output);
  }
  EXPECT_FALSE(fs::exists(d.path / ("a.tunecap.tmp." + std::to_string(::getpid()))));
}

TEST(Capture, FileNamesAreSanitised) {
  EXPECT_EQ(capture::file_name("transpose", {4096, 4096, 1}), "transpose_4096x4096x1.tunecap");
  EXPECT_EQ(capture::file_name("../../etc/x", {1, 1, 1}), "______etc_x_1x1x1.tunecap");
  EXPECT_EQ(capture::file_name("", {1, 2, 3}), "__1x2x3.tunecap");
}

// Every malformed file is one InputError naming the file, never a crash or a huge allocation.
TEST(Capture, HostileFilesAreRefused) {
  Dir d;
  capture::write(d.path / "good.tunecap", sample());
  const std::string good = slurp(d.path / "good.tunecap");
  const fs::path bad = d.path / "bad.tunecap";
  const std::uint32_t header_len =
      std::uint32_t(static_cast<unsigned char>(good[12])) | std::uint32_t(static_cast<unsigned char>(good[13])) << 8;
  const std::string header = good.substr(16, header_len);
  auto with_header = [&](const std::string& h) {
    std::string out = good.substr(0, 12);
    for (int i = 0; i < 4; ++i) out += static_cast<char>((h.size() >> (8 * i)) & 0xff);
    return out + h + good.substr(16 + header_len);
  };
  auto replaced = [&](const std::string& from, const std::string& to) {
    std::string h = header;
    const auto at = h.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return with_header(h.replace(at, from.size(), to));
  };

  EXPECT_EQ(error_of(bad, good), "");
  // every truncation
  for (std::size_t n = 0; n < good.size(); n += 7) EXPECT_NE(error_of(bad, good.substr(0, n)), "") << n;
  struct Case {
    std::string text, says;
  };
  std::vector<Case> cases = {
      {"XXXXXXXX" + good.substr(8), "no TUNECAP magic"},
      {good.substr(0, 8) + std::string("\x02\0\0\0", 4) + good.substr(12), "format version 2"},
      {good.substr(0, 12) + std::string("\xff\xff\xff\x7f", 4) + good.substr(16), "header length"},
      {good + "x", "1 bytes after the last block"},
      {with_header("[1, 2]"), "not a JSON object"},
      {with_header("{\"kernel\": \"transpose\""), "not a JSON object"},
      {replaced("\"count\":4", "\"count\":1099511627776"), "input_bytes is not count * element_bytes"},
      {replaced("\"count\":4", "\"count\":-4"), "'count' missing"},
      {replaced("\"problem_size\":[2,2,1]", "\"problem_size\":[0,2,1]"), "'problem_size'"},
      {replaced("\"problem_size\":[2,2,1]", "\"problem_size\":[2,2]"), "'problem_size'"},
      {replaced("\"element_bytes\":4", "\"element_bytes\":4096"), "'element_bytes'"},
      {replaced("\"kernel\":\"transpose\"", "\"kernel\":\"" + std::string(300, 'k') + "\""), "longer than 256"},
      {replaced("\"scalar\":true", "\"scalar\":1"), "'scalar' missing or not true/false"},
  };
  std::string flipped = good;
  flipped.back() = static_cast<char>(flipped.back() ^ 1);
  cases.push_back({flipped, "does not match its hash"});
  std::string many = "{\"kernel\":\"k\",\"device\":\"d\",\"problem_size\":[1,1,1],\"arguments\":[";
  for (int i = 0; i < 65; ++i) many += std::string(i ? "," : "") + "{}";
  cases.push_back({with_header(many + "]}").substr(0, 16 + many.size() + 2), "more than 64"});
  for (const auto& c : cases) {
    const std::string e = error_of(bad, c.text);
    EXPECT_NE(e.find("bad.tunecap"), std::string::npos) << e;
    EXPECT_NE(e.find(c.says), std::string::npos) << "expected '" << c.says << "' in: " << e;
  }
  EXPECT_THROW(capture::read(d.path / "missing.tunecap"), InputError);
  EXPECT_THROW(capture::read(d.path), InputError);  // a directory
  // A limit below the file's size refuses before reading it.
  EXPECT_THROW(capture::read(d.path / "good.tunecap", 20), InputError);
}

// A header nested 150,000 deep (within its 1 MiB) overflowed the stack while it was parsed and
// copied: refused by its depth first.
TEST(Capture, ADeeplyNestedHeaderIsRefused) {
  Dir d;
  std::string h = R"({"kernel":"k","device":"d","problem_size":[1,1,1],"arguments":[],"configuration":{"x":)";
  h += std::string(150000, '[') + std::string(150000, ']') + "}}";
  std::string file(capture::kMagic, sizeof capture::kMagic);
  for (std::uint32_t v : {capture::kVersion, static_cast<std::uint32_t>(h.size())})
    for (int i = 0; i < 4; ++i) file += static_cast<char>((v >> (8 * i)) & 0xff);
  const std::string e = error_of(d.path / "deep.tunecap", file + h);
  EXPECT_NE(e.find("nests more than"), std::string::npos) << e.substr(0, 200);
}

// A sparse file that claims a 6 GiB argument: the caller's check of the header (the spec sizes the
// argument otherwise) refuses it before a byte of the data is allocated or read.
TEST(Capture, TheHeaderIsCheckedBeforeTheDataIsAllocated) {
  Dir d;
  const std::uint64_t count = std::uint64_t{3} << 29, bytes = count * 4;  // 6 GiB of floats
  const std::string h = R"({"kernel":"k","device":"d","problem_size":[4,1,1],"arguments":[{"name":"in",)"
                        R"("type":"float","scalar":false,"element_bytes":4,"count":)" +
                        std::to_string(count) + R"(,"output":false,"input_bytes":)" + std::to_string(bytes) +
                        R"(,"input_hash":"0","output_bytes":0,"output_hash":"0"}]})";
  std::string head(capture::kMagic, sizeof capture::kMagic);
  for (std::uint32_t v : {capture::kVersion, static_cast<std::uint32_t>(h.size())})
    for (int i = 0; i < 4; ++i) head += static_cast<char>((v >> (8 * i)) & 0xff);
  const fs::path p = d.path / "sparse.tunecap";
  spit(p, head + h);
  fs::resize_file(p, 16 + h.size() + bytes);  // sparse: no disk used
  bool asked = false;
  try {
    capture::read(p, capture::kMaxFileBytes, [&](const capture::Capture& c) {
      asked = true;
      EXPECT_TRUE(c.arguments.at(0).input.empty());  // nothing of the data yet
      throw InputError(p.string() + ": argument 'in' has " + std::to_string(c.arguments[0].count) +
                       " elements, the spec's Size gives 4");
    });
    FAIL() << "read";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the spec's Size gives 4"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(asked);
}

// A writer killed inside its write window (a capture of 64 MiB, killed once its temporary exists) left
// NAME.tmp.PID for ever: the next capture written in the folder, of any size, removes what dead
// writers left and nothing of a live one's.
TEST(Capture, AKilledWriterLeavesNothingTheNextCaptureKeeps) {
  Dir d;
  const pid_t child = ::fork();
  if (child == 0) {
    capture::Capture big = sample();
    big.arguments[1].input.resize(64u << 20);
    try {
      for (int i = 0;; ++i) capture::write(d.path / ("big_" + std::to_string(i % 2) + ".tunecap"), big);
    } catch (...) {
      ::_exit(1);
    }
  }
  ASSERT_GT(child, 0);
  const auto writing = [&] {  // a temporary is in the folder: the child is inside its write window
    for (const auto& e : fs::directory_iterator(d.path))
      if (e.path().filename().string().find(".tmp.") != std::string::npos) return true;
    return false;
  };
  for (int ms = 0; ms < 10000 && !writing(); ++ms) ::usleep(1000);
  ::kill(child, SIGKILL);
  ::waitpid(child, nullptr, 0);
  const fs::path live = d.path / (".x_1x1x1.tunecap.tmp." + std::to_string(::getppid()) + ".0");
  spit(live, "a live writer's");
  capture::write(d.path / "small_2x2x1.tunecap", sample());
  for (const auto& e : fs::directory_iterator(d.path)) {
    const std::string name = e.path().filename().string();
    if (e.path() == live) continue;
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << name;
  }
  EXPECT_TRUE(fs::exists(live));
  EXPECT_EQ(capture::read(d.path / "small_2x2x1.tunecap").kernel, "transpose");
}

// Compiling in processes (compile/processes.h): this test binary is the server program too
// (CompileServerWorker.Serve, which ctest does not list), so every test here starts real servers
// and compiles the repository's kernels with NVRTC, no GPU needed.
#include "compile/processes.h"

#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <future>
#include <sstream>
#include <thread>

#include "common/error.h"
#include "compile/wire.h"

namespace tune::compile {
namespace {

// `tag` marks the servers' command lines, so that a test can find its own (ctest runs others beside it).
ServerProgram this_test_as_server(const std::string& tag = "") {
  ServerProgram p{"/proc/self/exe", {"--gtest_filter=CompileServerWorker.Serve"}};
  if (!tag.empty()) p.args.push_back(tag);
  return p;
}

std::string read_file(const std::string& path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

CompileRequest matching(int tile_k, std::uint64_t tag) {
  CompileRequest q;
  q.source = read_file("kernels_src/matching.cu");
  q.source_name = "kernels_src/matching.cu";
  q.kernel_name = "matching";
  q.defines = {{"tile_k", std::to_string(tile_k)}, {"mma", "1"}};
  q.options = {"-Ikernels_src"};
  q.tag = tag;
  return q;
}

}  // namespace

// The entry point of the servers the tests below start; skipped when run as a test.
TEST(CompileServerWorker, Serve) {
  if (!serving()) GTEST_SKIP() << "only a compile server started by the tests below runs this";
  std::_Exit(serve());
}

TEST(Wire, RequestAndResultRoundTripExactly) {
  CompileRequest q = matching(16, 77);
  q.options.push_back(std::string("with\0nul", 8));
  const CompileRequest back = wire::decode_request(wire::encode(q));
  EXPECT_EQ(back.source, q.source);
  EXPECT_EQ(back.defines, q.defines);
  EXPECT_EQ(back.options, q.options);
  EXPECT_EQ(back.arch, q.arch);
  EXPECT_EQ(back.tag, 77u);

  CompileResult r;
  r.status = Status::ok;
  r.cubin = std::string(
      "\x7f"
      "ELF\0\1\2",
      7);
  r.lowered_name = "_Z8matchingv";
  r.log = "ptxas info";
  r.wall_ms = 12.25;
  r.resources = {true, 64, 1, 4096, 400, 0, 8, 4};
  r.tag = 5;
  const wire::Reply reply = wire::decode_reply(wire::encode(r));
  ASSERT_EQ(reply.outcome, wire::Outcome::result);
  EXPECT_EQ(reply.result.cubin, r.cubin);
  EXPECT_EQ(reply.result.resources, r.resources);
  EXPECT_EQ(reply.result.wall_ms, 12.25);
  EXPECT_TRUE(reply.result.ok());
}

TEST(Wire, MalformedFramesAreRefused) {
  const std::string good = wire::encode(matching(8, 1));
  for (std::size_t cut : {std::size_t{0}, std::size_t{3}, good.size() / 2, good.size() - 1})
    EXPECT_THROW(wire::decode_request(good.substr(0, cut)), Error) << cut;
  EXPECT_THROW(wire::decode_request(good + "x"), Error);
  std::string huge_count = wire::encode(CompileRequest{});
  huge_count[12] = '\xff';  // the defines' count, after three empty strings
  EXPECT_THROW(wire::decode_request(huge_count), Error);
  EXPECT_THROW(wire::decode_reply(std::string(1, '\x09')), Error);
}

TEST(Wire, FramesCrossASocketAndItsEndIsSeen) {
  int sv[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
  const std::string big(3 << 20, 'c');
  std::thread writer([&] {
    EXPECT_TRUE(wire::write_frame(sv[0], big));
    EXPECT_TRUE(wire::write_frame(sv[0], ""));
    ::close(sv[0]);
  });
  EXPECT_EQ(wire::read_frame(sv[1]), big);
  EXPECT_EQ(wire::read_frame(sv[1]), "");
  writer.join();
  EXPECT_EQ(wire::read_frame(sv[1]), std::nullopt);
  EXPECT_FALSE(wire::write_frame(sv[1], "gone"));  // no SIGPIPE: false
  ::close(sv[1]);
}

// The same cubin as a compile in this process, for several requests at once.
TEST(CompileProcesses, CompileLikeThisProcessInParallel) {
  CompileProcesses procs(this_test_as_server(), 2, "sm_90");
  const CompileResult here = compile(matching(16, 3));
  ASSERT_TRUE(here.ok()) << here.log;
  std::vector<std::future<CompileResult>> out;
  out.reserve(4);
  for (int i = 0; i < 4; ++i)
    out.push_back(std::async(std::launch::async, [&procs, i] { return procs.compile(matching(i % 2 ? 8 : 16, i)); }));
  for (int i = 0; i < 4; ++i) {
    const CompileResult r = out[i].get();
    ASSERT_TRUE(r.ok()) << r.log;
    EXPECT_EQ(r.tag, static_cast<std::uint64_t>(i));
    EXPECT_TRUE(r.resources.parsed);
    if (i % 2 == 0) {
      EXPECT_EQ(r.cubin, here.cubin);
      EXPECT_EQ(r.lowered_name, here.lowered_name);
      EXPECT_EQ(r.resources, here.resources);
    }
  }
  EXPECT_EQ(procs.started(), 2u);  // the servers were reused
}

TEST(CompileProcesses, ErrorsComeBackAsInThisProcess) {
  CompileProcesses procs(this_test_as_server(), 1, "sm_90");
  CompileRequest bad = matching(8, 9);
  bad.source += "\nthis is not CUDA;\n";
  const CompileResult failed = procs.compile(bad);
  EXPECT_FALSE(failed.ok());
  EXPECT_NE(failed.log.find("error"), std::string::npos) << failed.log;
  EXPECT_EQ(failed.tag, 9u);
  CompileRequest no_target = matching(8, 1);
  no_target.arch = "compute_90";
  EXPECT_THROW(procs.compile(no_target), InputError);  // compile() throws it before NVRTC
  EXPECT_TRUE(procs.compile(matching(8, 2)).ok());     // and the server still serves
}

// A server killed from outside: the request goes to a new one; a request that kills every server
// it reaches is a failed compile that says so, and the run goes on.
TEST(CompileProcesses, AServerThatDiesCostsARetryNotTheRun) {
  const std::string tag = "die-test-" + std::to_string(::getpid());
  CompileProcesses procs(this_test_as_server(tag), 1, "");
  ASSERT_TRUE(procs.compile(matching(8, 1)).ok());
  // Every server this test's processes start is killed as soon as it runs, mid-request.
  std::atomic<bool> stop_killing{false};
  const std::string kill = "pkill -KILL -f '[d]" + tag.substr(1) + "' >/dev/null 2>&1";
  std::thread killer([&] {
    while (!stop_killing) {
      (void)std::system(kill.c_str());
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
  });
  const CompileResult r = procs.compile(matching(16, 4));
  stop_killing = true;
  killer.join();
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.log.find("killed by signal 9"), std::string::npos) << r.log;
  EXPECT_TRUE(procs.compile(matching(8, 5)).ok()) << "a new server after the failure";
  EXPECT_GE(procs.started(), 3u);
}

TEST(CompileProcesses, StopEndsACompileInProgressAtOnce) {
  auto procs = std::make_shared<CompileProcesses>(this_test_as_server(), 1, "");
  auto pending = std::async(std::launch::async, [procs] { return procs->compile(matching(16, 1)); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const auto t0 = std::chrono::steady_clock::now();
  procs->stop();
  EXPECT_THROW(pending.get(), UnavailableError);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(2));
  EXPECT_THROW(procs->compile(matching(8, 2)), UnavailableError);
}

TEST(CompileProcesses, AProgramThatCannotStartIsOneClearError) {
  try {
    CompileProcesses procs({"/nonexistent/tune", {}}, 2, "");
    // posix_spawn may report a missing program only through the child's exit: then the request fails
    const CompileResult r = procs.compile(matching(8, 1));
    EXPECT_FALSE(r.ok());
    EXPECT_NE(r.log.find("exited with status 127"), std::string::npos) << r.log;
  } catch (const UnavailableError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/tune"), std::string::npos) << e.what();
  }
}

}  // namespace tune::compile

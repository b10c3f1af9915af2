// The runtime library's checks that need no GPU (argument checking, errors), and with a GPU the
// whole path: compile, on-disk cache across Kernel objects, launch, capture.
#include "tune/runtime.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "capture/capture.h"
#include "runtime/test_util.h"

namespace fs = std::filesystem;
using namespace tune;
using runtime::Arg;
using runtime::testing::Recorded;

namespace {

runtime::Options no_disk() {
  runtime::Options o;
  o.disk_cache = false;
  return o;
}

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const runtime::Error& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Runtime, ArgumentsAreCheckedAgainstTheSpec) {
  Recorded r;
  runtime::Kernel k(runtime::testing::spec_path(), r.table, no_disk());
  float* out = reinterpret_cast<float*>(0x1000);
  const float* in = reinterpret_cast<const float*>(0x2000);
  const std::size_t n = 512 * 256;
  // cols x rows = 512 x 256
  EXPECT_EQ(
      error_of([&] {
        k.check_arguments({512, 256}, {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(256), Arg::scalar(512)});
      }),
      "");
  struct Case {
    std::function<void()> f;
    std::string says;
  };
  const std::vector<Case> cases = {
      {[&] {
         k.check_arguments({512, 256}, {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(256)});
       },
       "3 arguments given, the spec declares 4 (out, in, rows, cols)"},
      {[&] {
         k.check_arguments({512, 256}, {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(256L), Arg::scalar(512)});
       },
       "argument 2 'rows' has type int32 in the spec, int64 was given"},
      {[&] {
         k.check_arguments({512, 256},
                           {Arg::buffer(out, n), Arg::buffer(in, n), Arg::buffer(out, 1), Arg::scalar(512)});
       },
       "argument 2 'rows' is a scalar in the spec, a buffer was given"},
      {[&] {
         k.check_arguments({512, 256},
                           {Arg::buffer(out, n), Arg::buffer(in, n - 1), Arg::scalar(256), Arg::scalar(512)});
       },
       "argument 1 'in' holds 131071 elements, the spec's Size at this problem size is 131072"},
      {[&] {
         k.check_arguments({512, 256}, {Arg::buffer(in, n), Arg::buffer(in, n), Arg::scalar(256), Arg::scalar(512)});
       },
       "argument 0 'out' is written by the kernel but was given as a const pointer"},
      {[&] {
         k.check_arguments({512, 256}, {Arg::buffer(reinterpret_cast<double*>(0x1000), n), Arg::buffer(in, n),
                                        Arg::scalar(256), Arg::scalar(512)});
       },
       "argument 0 'out' has type float in the spec, double was given"},
      {[&] {
         k.check_arguments({512, 256}, {Arg::buffer(static_cast<float*>(nullptr), n), Arg::buffer(in, n),
                                        Arg::scalar(256), Arg::scalar(512)});
       },
       "argument 0 'out' is a null pointer"},
      {[&] {
         k.check_arguments({512, 256, 2},
                           {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(256), Arg::scalar(512)});
       },
       "ProblemSize has 2 dimensions"},
  };
  for (const auto& c : cases) {
    const std::string e = error_of(c.f);
    EXPECT_NE(e.find(c.says), std::string::npos) << "expected '" << c.says << "' in: " << e;
    EXPECT_NE(e.find("kernel 'transpose'"), std::string::npos) << e;
  }
}

TEST(Runtime, ConstructionErrorsNameTheFile) {
  Recorded r;
  EXPECT_NE(error_of([&] { runtime::Kernel(r.dir.path() / "none.json", r.table); }).find("none.json"),
            std::string::npos);
  EXPECT_NE(error_of([&] {
              runtime::Kernel(runtime::testing::spec_path(), r.dir.path() / "none.json");
            }).find("no such table file"),
            std::string::npos);
}

// Without a GPU a launch says why, naming the kernel; with one this is the GPU test below.
TEST(Runtime, LaunchWithoutAGpuIsAClearError) {
  if (runtime::testing::no_gpu().empty())
    GTEST_SKIP() << "a GPU is present: Runtime.GpuLaunchCacheAndCapture covers the launch";
  Recorded r;
  runtime::Kernel k(runtime::testing::spec_path(), r.table, no_disk());
  const std::string e = error_of([&] { k.prepare({512, 512}); });
  EXPECT_NE(e.find("tune::runtime: kernel 'transpose'"), std::string::npos) << e;
  EXPECT_NE(e.find("512x512x1"), std::string::npos) << e;
}

// The whole path on a GPU: the tuned configuration compiles once, a second Kernel (as a second
// process would) takes it from the on-disk cache, the transpose is right, and TUNE_CAPTURE writes
// a capture whose output is the launch's.
TEST(Runtime, GpuLaunchCacheAndCapture) {
  if (const std::string why = runtime::testing::no_gpu(); !why.empty()) GTEST_SKIP() << why;
  Recorded r;
  runtime::Options o;
  o.cache_dir = r.dir.path() / "cache";
  o.capture_dir = r.dir.path() / "capture";
  const long long cols = 1000, rows = 700;
  const runtime::testing::DeviceBuffers b(std::size_t(cols * rows), 0.5f);
  ASSERT_TRUE(b.ok);
  const std::size_t n = b.n;
  const float *in = b.in, *host = b.host.data();
  float* out = b.out;
  const std::vector<float> want = b.transposed(cols, rows);
  std::vector<float> back;
  for (int pass = 0; pass < 2; ++pass) {
    runtime::Kernel k(runtime::testing::spec_path(), r.table, o);
    const auto& s = k.launch(nullptr, {cols, rows},
                             {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(int(rows)), Arg::scalar(int(cols))});
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    back = b.read(out);
    const std::size_t at = runtime::testing::first_difference(back, want);
    ASSERT_EQ(at, n) << s.config << " wrong at output element " << at;
    const auto st = k.stats();
    EXPECT_EQ(st.compiled, pass == 0 ? 1u : 0u) << s.config;
    EXPECT_EQ(st.from_disk, pass == 0 ? 0u : 1u);
    EXPECT_EQ(st.captures, pass == 0 ? 1u : 0u);  // the capture of a size is written once
  }
  const auto c = capture::read(o.capture_dir / capture::file_name("transpose", {cols, rows, 1}));
  ASSERT_EQ(c.arguments.size(), 4u);
  // the capture holds the bytes bit for bit (a float comparison would let -0 equal 0)
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
  EXPECT_EQ(std::memcmp(c.arguments[1].input.data(), host, n * sizeof(float)), 0);
  // NOLINTNEXTLINE(bugprone-suspicious-memory-comparison)
  EXPECT_EQ(std::memcmp(c.arguments[0].result.data(), back.data(), n * sizeof(float)), 0);
}

// ptxas report parsing and the launch-limit check.
#include "compile/resources.h"

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "compile/compile.h"
#include "compile/source.h"

namespace tune::compile {
namespace {

// The program as the sweep compiles it: the kernel file with its shared headers written in.
std::string read_source(const std::string& rel) {
  return read_kernel_source(std::string(TUNE_SOURCE_DIR) + "/" + rel, rel, {.name = rel}).text;
}

TEST(PtxasLog, PicksTheRequestedEntryOutOfAMultiKernelReport) {
  // A real report: copy.cu holds five kernels, one of them with a shared-memory tile.
  CompileRequest req;
  req.source = read_source("kernels_src/copy.cu");
  req.source_name = "kernels_src/copy.cu";
  req.kernel_name = "copy";
  req.defines = {{"block_size_x", "16"}, {"block_size_y", "8"}, {"tile_size_y", "8"}, {"vector", "4"}};
  const CompileResult res = compile(req);
  ASSERT_TRUE(res.ok()) << res.log;
  for (const char* k : {"copy", "copy_shared", "copy_vec", "offset_access", "stride_access"})
    EXPECT_NE(res.log.find(std::string("Compiling entry function '") + k + "'"), std::string::npos) << k;

  const Resources shared = parse_ptxas_log(res.log, "copy_shared");
  EXPECT_TRUE(shared.parsed);
  EXPECT_EQ(shared.static_shared, 64 * 64 * 4);
  EXPECT_EQ(shared.barriers, 1);
  const Resources plain = parse_ptxas_log(res.log, "copy");
  EXPECT_TRUE(plain.parsed);
  EXPECT_EQ(plain.static_shared, 0);
  EXPECT_EQ(plain.barriers, 0);
  EXPECT_EQ(plain, res.resources);
  // Eight float4 loads in flight per thread need more registers than a one-float increment.
  EXPECT_GT(plain.registers, parse_ptxas_log(res.log, "offset_access").registers);
  EXPECT_FALSE(parse_ptxas_log(res.log, "not_there").parsed);
  EXPECT_FALSE(parse_ptxas_log(res.log, "cop").parsed);
}

TEST(PtxasLog, ReadsEveryFieldAndSkipsDeviceFunctionProperties) {
  // ptxas' layout with a non-inlined device function between entries.
  const std::string log =
      "ptxas info    : 0 bytes gmem\n"
      "ptxas info    : Function properties for _Z6helperPf\n"
      "ptxas         .     24 bytes stack frame, 8 bytes spill stores, 8 bytes spill loads\n"
      "ptxas info    : Compiling entry function 'k' for 'sm_90'\n"
      "ptxas info    : Function properties for k\n"
      "ptxas         .     16 bytes stack frame, 12 bytes spill stores, 20 bytes spill loads\n"
      "ptxas info    : Used 40 registers, used 1 barriers, 4224 bytes smem, 368 bytes cmem[0]\n"
      "ptxas info    : Compile time = 2.000 ms\n"
      "ptxas info    : Compiling entry function 'other' for 'sm_90'\n"
      "ptxas info    : Function properties for other\n"
      "ptxas         .     0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
      "ptxas info    : Used 8 registers, used 0 barriers, 360 bytes cmem[0]\n";
  const Resources k = parse_ptxas_log(log, "k");
  EXPECT_TRUE(k.parsed);
  EXPECT_EQ(k.registers, 40);
  EXPECT_EQ(k.barriers, 1);
  EXPECT_EQ(k.static_shared, 4224);
  EXPECT_EQ(k.constant_bytes, 368);
  EXPECT_EQ(k.stack_frame, 16);
  EXPECT_EQ(k.spill_stores, 12);
  EXPECT_EQ(k.spill_loads, 20);
  const Resources o = parse_ptxas_log(log, "other");
  EXPECT_EQ(o.registers, 8);
  EXPECT_EQ(o.static_shared, 0);
  EXPECT_EQ(o.stack_frame, 0);
  EXPECT_FALSE(parse_ptxas_log(log, "_Z6helperPf").parsed);
  EXPECT_FALSE(parse_ptxas_log("", "k").parsed);
}

Resources uses(int registers, int shared = 0) {
  Resources r;
  r.parsed = true;
  r.registers = registers;
  r.static_shared = shared;
  return r;
}

TEST(CheckLaunch, HopperDefaults) {
  const DeviceLimits lim = hopper_limits();
  EXPECT_EQ(lim.max_threads_per_block, 1024);
  EXPECT_EQ(lim.max_registers_per_block, 65536);
  EXPECT_EQ(lim.max_registers_per_thread, 255);
  EXPECT_EQ(lim.max_static_shared, 49152);
  EXPECT_EQ(lim.max_shared_opt_in, 232448);
}

TEST(CheckLaunch, Reasons) {
  EXPECT_EQ(check_launch(uses(32), 256, 0), "");
  EXPECT_EQ(check_launch(uses(64), 1024, 0), "");  // exactly 65536 registers
  EXPECT_EQ(check_launch(uses(32), 2048, 0), "block of 2048 threads exceeds the device limit of 1024");
  EXPECT_EQ(check_launch(uses(32), 0, 0), "block of 0 threads is empty");
  EXPECT_EQ(check_launch(uses(72), 1024, 0), "needs 72 registers x 1024 threads = 73728 > 65536 registers per block");
  EXPECT_EQ(check_launch(uses(65), 1024, 0),
            "needs 72 registers x 1024 threads = 73728 > 65536 registers per block "
            "(65 allocated in steps of 8)");
  // A block of 1000 threads still takes 32 warps of registers.
  EXPECT_EQ(check_launch(uses(72), 1000, 0), "needs 72 registers x 1024 threads = 73728 > 65536 registers per block");
  EXPECT_EQ(check_launch(uses(256), 32, 0), "needs 256 registers per thread > 255");
  EXPECT_EQ(check_launch(uses(32, 50000), 256, 0), "static shared memory 50000 B > 49152 B per block");
  EXPECT_EQ(check_launch(uses(32), 256, 70000), "shared memory 70000 B > 49152 B without opt-in");
  EXPECT_EQ(check_launch(uses(32, 16384), 256, 40000), "shared memory 56384 B > 49152 B without opt-in");
  DeviceLimits opt_in = hopper_limits();
  opt_in.shared_opt_in = true;
  EXPECT_EQ(check_launch(uses(32), 256, 70000, opt_in), "");
  EXPECT_EQ(check_launch(uses(32), 256, 240000, opt_in),
            "shared memory 240000 B > 232448 B per block even with opt-in");
}

TEST(CheckLaunch, RealKernelFitsItsBlockButNotAFullOne) {
  CompileRequest req;
  req.source = read_source("kernels_src/transpose.cu");
  req.source_name = "kernels_src/transpose.cu";
  req.kernel_name = "transpose";
  req.defines = {{"block_size_x", "16"}, {"block_size_y", "8"}, {"tile_size_y", "8"}, {"vector", "4"}, {"tiles", "2"}};
  const CompileResult res = compile(req);
  ASSERT_TRUE(res.ok()) << res.log;
  ASSERT_GT(res.resources.registers, 64) << "the double-buffered float4 tile needs > 64 registers";
  EXPECT_EQ(check_launch(res.resources, 128, 0), "");
  const std::string why = check_launch(res.resources, 1024, 0);
  EXPECT_NE(why.find("registers per block"), std::string::npos) << why;
}

}  // namespace
}  // namespace tune::compile

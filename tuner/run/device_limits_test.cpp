// Launch limits come from the device actually used, not from fixed Hopper figures.
#include <gtest/gtest.h>

#include "run/device.h"

using namespace tune;

TEST(DeviceLimits, TheDevicesOwnFiguresReplaceHoppers) {
  run::DeviceInfo d;
  d.max_threads_per_block = 512;
  d.regs_per_block = 32768;
  d.smem_per_block = 48 * 1024;
  d.smem_per_block_optin = 99 * 1024;  // an sm_86-like device
  const auto l = d.launch_limits();
  EXPECT_EQ(l.max_threads_per_block, 512);
  EXPECT_EQ(l.max_registers_per_block, 32768);
  EXPECT_EQ(l.max_shared_opt_in, 99 * 1024);
  compile::Resources r;
  r.parsed = true;
  r.registers = 96;
  // 96 registers x 512 threads = 49152 fit Hopper's 65536 per block but not this device's 32768
  EXPECT_TRUE(compile::check_launch(r, 512, 0, compile::hopper_limits()).empty());
  EXPECT_NE(compile::check_launch(r, 1024, 0, l).find("1024"), std::string::npos);
  EXPECT_NE(compile::check_launch(r, 512, 0, l).find("32768"), std::string::npos);
}

TEST(DeviceLimits, AnUnfilledDeviceKeepsHoppers) {
  const auto l = run::DeviceInfo{}.launch_limits();
  EXPECT_EQ(l.max_threads_per_block, compile::hopper_limits().max_threads_per_block);
  EXPECT_EQ(l.max_registers_per_block, compile::hopper_limits().max_registers_per_block);
}

// The runner opts in to more than 48 KiB of shared memory (LoadedKernel::enqueue), so a launch
// needs only the device's opt-in limit: 129 KiB pass on an H200's 227 KiB, 228 KiB do not.
TEST(DeviceLimits, DynamicSharedMemoryUpToTheOptInLimitFits) {
  run::DeviceInfo d;
  d.smem_per_block = 48 * 1024;
  d.smem_per_block_optin = 227 * 1024;
  compile::Resources r;
  r.parsed = true;
  r.registers = 32;
  r.static_shared = 16;
  EXPECT_EQ(compile::check_launch(r, 128, 129 * 1024, d.launch_limits()), "");
  EXPECT_NE(compile::check_launch(r, 128, 227 * 1024, d.launch_limits()).find("even with opt-in"), std::string::npos);
}

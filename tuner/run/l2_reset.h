// The L2 reset that starts a block of primed batches from an empty L2 (timing.h: the warm L2): a
// write of reset_bytes() to a scratch buffer evicts whatever the L2 held (dirty lines are written
// back), then the discard kernel drops that buffer's own lines without writing them back. Only the
// scratch buffer's lines are discarded, so no other data is lost. One definition for tune's
// timing (run/blocker.cpp) and online tuning in tune::runtime (runtime/online_batch.cpp), so
// both time a sample from the same start.
#pragma once
#include <cstdint>
#include <string_view>

namespace tune::run::l2_reset {

inline constexpr std::string_view kKernelName = "tune_discard_l2";
inline constexpr std::string_view kSource = R"(
// Drops the lines of [p, p + bytes) from L2 without writing them back (run/l2_reset.h).
extern "C" __global__ void tune_discard_l2(char* p, unsigned long long bytes) {
  unsigned long long i = (blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x) * 128ull;
  const unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x * 128ull;
  for (; i + 128 <= bytes; i += stride) asm volatile("discard.global.L2 [%0], 128;" ::"l"(p + i) : "memory");
}
)";

// The discard kernel's launch: 4 blocks of 256 threads per SM.
inline constexpr unsigned kThreads = 256;
constexpr unsigned blocks(int sm_count) { return static_cast<unsigned>((sm_count > 0 ? sm_count : 1) * 4); }

// The scratch write that empties an L2 of `l2_bytes`: twice its size.
constexpr std::uint64_t bytes(std::uint64_t l2_bytes) { return 2 * l2_bytes; }

}  // namespace tune::run::l2_reset

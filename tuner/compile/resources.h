// What one compiled kernel needs from the GPU, read from ptxas' verbose report
// (`--ptxas-options=-v`), and the check that a launch of it fits a device's per-block limits.
#pragma once
#include <string>
#include <string_view>

namespace tune::compile {

struct Resources {
  bool parsed = false;     // the report named the kernel and its "Used ... registers" line
  int registers = 0;       // per thread
  int barriers = 0;        // named barriers used
  int static_shared = 0;   // bytes of static __shared__ memory per block
  int constant_bytes = 0;  // bytes of cmem[0] (kernel parameters and constants)
  int stack_frame = 0;     // bytes per thread
  int spill_stores = 0;    // bytes
  int spill_loads = 0;     // bytes

  friend bool operator==(const Resources&, const Resources&) = default;
};

// Reads the entry `kernel` (its lowered name) out of a ptxas verbose log; `parsed` stays false
// when the log holds no "Used ... registers" line for it. Lines of other entries are ignored.
Resources parse_ptxas_log(std::string_view log, std::string_view kernel);

// Per-block limits of a device. The defaults are Hopper's (sm_90: H100, H200).
struct DeviceLimits {
  int max_threads_per_block = 1024;
  int max_registers_per_block = 65536;
  int max_registers_per_thread = 255;
  int register_allocation_unit = 8;           // registers per thread are allocated in steps of 8
  int max_static_shared = 48 * 1024;          // static __shared__ per block
  int max_shared_without_opt_in = 48 * 1024;  // static + dynamic, without cudaFuncSetAttribute
  int max_shared_opt_in = 227 * 1024;         // static + dynamic, with the opt-in
  bool shared_opt_in = false;                 // the launcher raises the dynamic limit
};

DeviceLimits hopper_limits();

// Why a launch of a kernel with `resources`, `threads_per_block` threads and `dynamic_shared`
// bytes of dynamic shared memory cannot run on a device with `limits`; empty when it fits.
// Example: "needs 72 registers x 1024 threads = 73728 > 65536 registers per block".
std::string check_launch(const Resources& resources, int threads_per_block, int dynamic_shared,
                         const DeviceLimits& limits = hopper_limits());

}  // namespace tune::compile

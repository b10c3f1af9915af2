// Internal to the runtime library: the state behind tune::runtime::Kernel.
#pragma once
#include <array>
#include <atomic>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

#include "run/dtype.h"
#include "run/tensor_map.h"
#include "runtime/disk_cache.h"
#include "runtime/online.h"
#include "runtime/table.h"
#include "sizes/sizes.h"
#include "spec/spec.h"
#include "tune/runtime.h"

namespace tune::runtime {

inline constexpr std::size_t kMaxArguments = 64;

namespace detail {
// The spec's problem size from a launch's Size; InputError when it has more dimensions than the
// spec's ProblemSize.
sizes::Size spec_size(const spec::Spec& spec, Size s);
}  // namespace detail

struct Kernel::Impl {
  struct ArgInfo {  // one argument of the spec
    std::string name, type;
    run::DType dtype;
    bool scalar = false, output = false;
    bool tensor_map = false;  // a CUtensorMap parameter (Tune.tensor_maps)
  };
  struct LibraryUnload {
    void operator()(cudaLibrary_t l) const noexcept;
  };
  struct Compiled {  // one variant for one architecture, loaded once per process
    std::once_flag once;
    std::unique_ptr<std::remove_pointer_t<cudaLibrary_t>, LibraryUnload> library;
    cudaKernel_t kernel = nullptr;
    // Loads a cubin and finds its kernel `lowered_name`: the one loader of the runtime (variants and
    // the L2 reset). On failure nothing stays loaded and the CUDA error is cleared.
    cudaError_t load(const std::string& cubin, const std::string& lowered_name);
  };
  struct Candidate {  // one configuration online tuning tries at a size
    Selection selection;
    Compiled* compiled = nullptr;
  };
  struct EventDestroy {
    void operator()(cudaEvent_t e) const noexcept;
  };
  using Event = std::unique_ptr<std::remove_pointer_t<cudaEvent_t>, EventDestroy>;
  struct Events {  // one sample's start and stop, and (batched) the start of what leads up to it
    std::array<Event, 3> e;
    bool create();  // false when the driver gives none
  };
  struct CudaFree {  // releases a batch's scratch buffer (runtime/online_batch.cpp)
    void operator()(void* p) const noexcept;
  };
  using Scratch = std::unique_ptr<void, CudaFree>;  // device memory a batch's buffers lie in
  struct Placements {                               // the held samples' buffers at a size (runtime/online_batch.cpp)
    std::vector<std::uint64_t> copy_bytes;          // per argument: bytes copied from the application's input (0: none)
    std::vector<std::vector<Scratch>> sets;  // per placement, per argument: null where the application's is passed
    std::vector<bool> copied;                // per placement: its inputs' copies queued (at its first sample)
    std::size_t size() const noexcept { return sets.size(); }
    bool copies_inputs() const noexcept;
  };
  struct L2Reset {   // before each batched sample, the L2 emptied as tune's timing empties it (run/l2_reset.h)
    Scratch buffer;  // null: no reset (the samples start from whatever the L2 holds)
    std::uint64_t bytes = 0;
    const Compiled* discard = nullptr;
    unsigned blocks = 0;
    unsigned fill = 0;  // the byte of the next write, a different one each time
  };
  struct Online {   // online tuning at one (device, size) (runtime/online_launch.cpp)
    std::mutex mu;  // guards everything but `winner`
    std::vector<Candidate> candidates;
    detail::Rotation rotation;
    std::string arch;
    int cc_major = 0, cc_minor = 0;
    Candidate chosen;                                    // the winner, with Selection::online set
    std::deque<std::pair<std::size_t, Events>> pending;  // (candidate, events) not read yet
    std::vector<Events> spare;
    Placements scratch;  // detail::kPlacements sets, or none (the samples time the application's launches)
    L2Reset l2;
    std::atomic<const Candidate*> winner{nullptr};
    double cut_wait_ms = 0;  // host time the cut waited for the first round's samples
    Online(std::size_t n, detail::OnlineRule rule) : rotation(n, rule) {}
  };
  struct Resolved {  // one (device, size): everything a launch needs
    Selection selection;
    Compiled* compiled = nullptr;
    std::unique_ptr<Online> online;     // when online tuning runs at this size
    std::vector<std::uint64_t> counts;  // elements of each buffer at this size (the spec's Size)
    std::string device_name;
    std::atomic<bool> captured{false};
  };
  struct HopperPlan {  // a Hopper launch at one (device, variant, size), computed on its first launch
    std::vector<run::TensorMapSpec> maps;
    std::vector<std::uint64_t> counts;  // elements of each argument's buffer (the spec's Size)
    mutable std::once_flag opt_in;      // the kernel's dynamic shared memory limit raised on this device
  };
  struct DeviceId {
    std::string name, arch;
    int major = 0, minor = 0;
    std::uint64_t l2_bytes = 0;
    int sm_count = 0;
  };

  spec::Spec spec;
  std::string source;
  detail::Table table;
  Options options;
  std::unique_ptr<detail::DiskCache> cache;
  std::string nvrtc_version;
  std::vector<ArgInfo> args;
  std::vector<std::string> config_text;                   // per variant
  std::vector<std::vector<std::string>> variant_options;  // per variant: "-Dname=value", ...
  std::filesystem::path capture_dir;
  std::uint64_t capture_max_bytes = std::uint64_t{4} << 30;
  bool online = false;  // Options::online.enabled or TUNE_ONLINE=1
  std::filesystem::path online_dir;

  mutable std::mutex mu;  // guards everything below
  std::map<std::pair<std::string, std::size_t>, std::unique_ptr<Compiled>> compiled;
  std::map<std::string, std::unique_ptr<Compiled>> discard_kernels;  // per architecture: the L2 reset's
  std::map<std::tuple<int, long long, long long, long long>, std::unique_ptr<Resolved>> resolved;
  std::map<int, DeviceId> devices;
  mutable std::map<std::tuple<int, std::size_t, long long, long long, long long>, std::unique_ptr<HopperPlan>>
      hopper_plans;  // (device, variant, size)
  Stats stats;

  // "kernel 'transpose' (block_size_x=32 ...) at 4096x4096x1: " for messages.
  std::string where(const Selection* s, Size size) const;
  [[noreturn]] void fail(const Selection* s, Size size, const std::string& cause) const;

  Selection make_selection(const detail::Pick& pick, Size size) const;
  const DeviceId& device_id(int device);
  Resolved& resolve(int device, Size size);
  Compiled& compiled_slot(const std::string& arch, std::size_t variant);  // created on first use
  void load(Compiled& c, const std::string& arch, std::size_t variant, const Selection& s, Size size);
  // Throws Error naming the argument when `args` do not fit the spec at this size.
  void check(const Selection* s, const std::vector<std::uint64_t>& counts, Size size,
             std::initializer_list<Arg> args) const;
  std::vector<std::uint64_t> counts(const Selection* s, Size size) const;  // each buffer's Size
  void launch_variant(const Selection& s, const Compiled& c, cudaStream_t stream, Size size, void** slots) const;
  // A launch with a cluster shape, dynamic shared memory or tensor maps (runtime/launch_hopper.cpp):
  // the maps encoded over the buffers in `slots`, cudaLaunchKernelEx. What does not depend on the
  // arguments (the maps' shapes, the buffers' sizes, the shared-memory opt-in) is worked out once
  // per device, variant and size (hopper_plan), not at every launch.
  void launch_hopper(const Selection& s, const Compiled& c, cudaStream_t stream, Size size, void** slots) const;
  const HopperPlan& hopper_plan(const Selection& s, Size size) const;
  // Online tuning (runtime/online_launch.cpp): the candidates at a size without an exact entry,
  // null when there are fewer than two; one launch of the rotation (or of the winner).
  std::unique_ptr<Online> start_online(const DeviceId& id, const detail::Pick& pick, Size size,
                                       const std::vector<std::uint64_t>& counts);
  const Selection& launch_online(Resolved& r, cudaStream_t stream, Size size, void** slots);
  // Batched samples (runtime/online_batch.cpp): scratch buffers at a size, detail::kPlacements sets
  // of one per argument as detail::scratch_use says, with the inputs' copies while the sets fit in
  // detail::kScratchShare of the free memory, else without (no sets when those do not fit either,
  // or an allocation fails). One sample on
  // `stream`: behind a hold released once all are queued, the copies of the inputs (at the set's
  // first sample), the L2 reset (when o.l2 has one), detail::untimed_launches(batch) of `cand`, then
  // `batch` between the events, all on the scratch buffers of `placement` (false when it could not
  // be queued). ev.e[2] is recorded before the copies, ev.e[0] and ev.e[1] around the timed batch.
  Placements allocate_scratch(const std::vector<std::uint64_t>& counts) const;
  // The L2 reset on this device: a buffer of run::l2_reset::bytes() and the discard kernel
  // (compiled once per architecture); without buffer when either cannot be had.
  L2Reset make_l2_reset(const DeviceId& id);
  bool launch_batch(Online& o, const Candidate& cand, std::size_t placement, cudaStream_t stream, Size size,
                    void** slots, const Events& ev) const;
  void poll(Online& o);                                  // reads completed events, o.mu held
  void wait_for_cut(Online& o);                          // polls until the cut's samples are back, o.mu held
  void settle(Online& o, const Resolved& r, Size size);  // records the winner and writes its file
  // The capture of this launch (runtime/capture_hook.cpp): launches it itself, between copies of
  // the arguments before and after. False when it did not (a file is there, or over the limit).
  bool capture(Resolved& r, cudaStream_t stream, Size size, std::initializer_list<Arg> args, void** slots);
};

}  // namespace tune::runtime

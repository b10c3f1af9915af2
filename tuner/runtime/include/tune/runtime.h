// tune::runtime: a tuned kernel inside an application, compiled at run time.
//
//   tune::runtime::Kernel k("spaces/transpose.json", "transpose_table.json");
//   k.launch(stream, {cols, rows}, {Arg::buffer(out, n), Arg::buffer(in, n), Arg::scalar(rows),
//                                    Arg::scalar(cols)});
//
// The table is what `tune header --kernel K --table` writes from the tuning database; the spec is
// the kernel's T1 file, whose KernelFile is compiled. At each launch the kernel:
// - selects the configuration for the current device and the problem size by the rule of the
//   generated headers (the decision at a measured size, else the configuration the table's model
//   predicts fastest from the measured sizes around it, shape and alignment included; a device not
//   in the table gets the table of a device of the same compute capability, else the spec's
//   Default values) and reports how it matched (Selection::match) and on what (evidence);
// - compiles it with NVRTC for the device's architecture (or the spec's Tune.arch, e.g. sm_90a)
//   once per process, with the options the tuner used, keeping the cubin in an on-disk cache that
//   later processes reuse;
// - computes grid and block from the spec's expressions, checks the arguments against the spec's
//   (count, scalar or buffer, element type, buffer length, const-ness of outputs) and launches,
//   with the spec's cluster shape, dynamic shared memory (over 48 KiB: the kernel's limit raised)
//   and tensor maps (Arg::tensor_map(), encoded from the buffer arguments) where it has them.
// With TUNE_CAPTURE=dir set, the first launch of each problem size also writes a capture file
// (tuner/capture/capture.h) that `tune --space S --capture FILE` tunes with.
// With online tuning on (Options::online.enabled or TUNE_ONLINE=1), a size without an exact
// entry is tuned by its first launches: they rotate among the best candidates of the table, each
// alignment's best two among them (each a complete kernel, so every launch is correct), each
// timed by CUDA events that are read once they have completed. In two rounds (successive
// halving): each candidate is timed min_samples times, then OnlineOptions::finalists of them, the
// fastest by their median, share the rest of the OnlineOptions::launches launches; the finalist
// with the lowest median wins (the table's pick unless a rival's is 1% faster) and every later
// launch at that size runs it. The launch that starts the second round waits (on the host, once
// per size, at most a second) for the first round's timings; nothing else waits on the stream.
// The result goes to a file in OnlineOptions::dir (or $TUNE_ONLINE_DIR) that `tune import` reads
// into the database.
//
// Thread-safe: one Kernel may be launched from several threads. Every failure throws
// tune::runtime::Error, whose message names the kernel, the configuration and the cause.
// Depends on the CUDA runtime and NVRTC only.
#pragma once
#include <cuda_runtime_api.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

namespace tune::runtime {

inline constexpr int kVersionMajor = 1;  // of this API and the table format it reads

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// How a selection matched (Kernel Launcher's WisdomResult).
enum class Match {
  exact,           // this device, this size measured: the decision there
  predicted,       // this device, predicted from measured sizes around it (inside the measured range)
  extrapolated,    // this device, predicted beyond the measured range of some axis
  other_device,    // another device of the same compute capability (its selection at this size)
  default_config,  // no device of this compute capability: the spec's Default values
};
// "exact", "predicted", "extrapolated", "other device", "default"
const char* match_name(Match match) noexcept;

// A problem size: ProblemSize[0], [1], [2] of the spec (x = columns of a matrix).
struct Size {
  long long x = 1, y = 1, z = 1;
};

// Element types of arguments (the spec's T1 "Type" names: bool, int8..uint64, half, float,
// double, and CUDA vector types such as float4 as `lanes`).
enum class Element : std::uint8_t {
  boolean,
  int8,
  uint8,
  int16,
  uint16,
  int32,
  uint32,
  int64,
  uint64,
  half,
  float32,
  float64
};

namespace detail {
template <class T>
struct element_of;  // no definition: an unsupported type does not compile
#define TUNE_RUNTIME_ELEMENT(T, E, L)              \
  template <>                                      \
  struct element_of<T> {                           \
    static constexpr Element element = Element::E; \
    static constexpr int lanes = L;                \
  }
TUNE_RUNTIME_ELEMENT(bool, boolean, 1);
TUNE_RUNTIME_ELEMENT(char, int8, 1);
TUNE_RUNTIME_ELEMENT(signed char, int8, 1);
TUNE_RUNTIME_ELEMENT(unsigned char, uint8, 1);
TUNE_RUNTIME_ELEMENT(short, int16, 1);
TUNE_RUNTIME_ELEMENT(unsigned short, uint16, 1);
TUNE_RUNTIME_ELEMENT(int, int32, 1);
TUNE_RUNTIME_ELEMENT(unsigned int, uint32, 1);
TUNE_RUNTIME_ELEMENT(long, int64, 1);
TUNE_RUNTIME_ELEMENT(unsigned long, uint64, 1);
TUNE_RUNTIME_ELEMENT(long long, int64, 1);
TUNE_RUNTIME_ELEMENT(unsigned long long, uint64, 1);
TUNE_RUNTIME_ELEMENT(float, float32, 1);
TUNE_RUNTIME_ELEMENT(double, float64, 1);
TUNE_RUNTIME_ELEMENT(float2, float32, 2);
TUNE_RUNTIME_ELEMENT(float3, float32, 3);
TUNE_RUNTIME_ELEMENT(float4, float32, 4);
TUNE_RUNTIME_ELEMENT(double2, float64, 2);
TUNE_RUNTIME_ELEMENT(int2, int32, 2);
TUNE_RUNTIME_ELEMENT(int4, int32, 4);
TUNE_RUNTIME_ELEMENT(uint2, uint32, 2);
TUNE_RUNTIME_ELEMENT(uint4, uint32, 4);
#undef TUNE_RUNTIME_ELEMENT
}  // namespace detail

// One kernel argument: a device buffer (pointer and element count) or a scalar passed by value.
class Arg {
 public:
  template <class T>
  static Arg buffer(T* device_pointer, std::size_t count) noexcept {
    using E = detail::element_of<std::remove_cv_t<T>>;
    Arg a(E::element, E::lanes, false, std::is_const_v<T>, count);
    a.pointer_ = const_cast<void*>(static_cast<const void*>(device_pointer));
    return a;
  }
  template <class T>
  static Arg scalar(const T& value) noexcept {
    using E = detail::element_of<T>;
    static_assert(sizeof(T) <= sizeof(value_), "scalar too large");
    Arg a(E::element, E::lanes, true, true, 1);
    std::memcpy(a.value_, &value, sizeof(T));
    a.bytes_ = sizeof(T);
    return a;
  }
  // A CUtensorMap parameter (the spec's Tune.tensor_maps): the runtime encodes it at each launch
  // from the buffer argument the spec names, the problem size and the configuration's box.
  static Arg tensor_map() noexcept {
    Arg a(Element::uint8, 1, true, true, 1);
    a.tensor_map_ = true;
    return a;
  }
  // For types without a C++ spelling here (half): `bytes` of a scalar, or a buffer's pointer.
  static Arg raw_buffer(Element element, int lanes, void* device_pointer, std::size_t count, bool is_const) noexcept;
  static Arg raw_scalar(Element element, int lanes, const void* value, std::size_t bytes) noexcept;

  Element element() const noexcept { return element_; }
  int lanes() const noexcept { return lanes_; }
  bool is_scalar() const noexcept { return scalar_; }
  bool is_const() const noexcept { return const_; }
  bool is_tensor_map() const noexcept { return tensor_map_; }
  std::size_t count() const noexcept { return count_; }
  std::size_t value_bytes() const noexcept { return bytes_; }
  // What cudaLaunchKernel's args[] entry points to: the device pointer or the value.
  void* slot() const noexcept {
    return scalar_ ? static_cast<void*>(const_cast<unsigned char*>(value_))
                   : static_cast<void*>(const_cast<void**>(&pointer_));
  }
  void* device_pointer() const noexcept { return pointer_; }

 private:
  Arg(Element e, int lanes, bool scalar, bool is_const, std::size_t count) noexcept
      : element_(e), lanes_(lanes), scalar_(scalar), const_(is_const), count_(count) {}
  Element element_;
  int lanes_;
  bool scalar_, const_;
  bool tensor_map_ = false;
  std::size_t count_;
  std::size_t bytes_ = 0;
  void* pointer_ = nullptr;
  alignas(16) unsigned char value_[32] = {};
};

// The configuration a launch runs and how it was chosen.
struct Selection {
  Match match = Match::default_config;
  std::string device;                // the device whose table answered ("" for default_config)
  Size measured;                     // that table's nearest measured size (the asked size for default_config)
  double regret = 1;                 // predicted time / the best time at this size (1: as good as the best)
  std::vector<Size> evidence;        // the measured sizes the prediction rests on, nearest first
  std::size_t variant = 0;           // index into the table's variants
  std::string config;                // "block_size_x=32 block_size_y=8 ..." in the spec's order
  std::vector<std::string> options;  // what NVRTC compiles it with: "-Dblock_size_x=32", ...
  std::array<unsigned, 3> grid{1, 1, 1}, block{1, 1, 1};  // at the asked size
  std::array<unsigned, 3> cluster{1, 1, 1};               // the spec's Tune.cluster (1 x 1 x 1: none)
  unsigned dynamic_smem = 0;                              // bytes, the spec's Tune.dynamic_shared_memory
  bool online = false;                                    // chosen by online tuning at this size (once it has settled)
};

struct OnlineOptions {
  bool enabled = false;       // or TUNE_ONLINE=1 in the environment
  std::filesystem::path dir;  // where each result's file goes: empty means $TUNE_ONLINE_DIR (none: no file)
  int launches = 64;          // launches that rotate among the candidates
  int min_samples = 1;        // timed samples per candidate in the first round
  int candidates = 40;        // at most this many (and at most launches / min_samples)
  int finalists = 4;          // the first round's best, which share the launches left (0: one round)
  // Launches per timed sample. Each launch of the rotation runs its candidate on the
  // application's buffers (untimed), then `batch` launches of it back to back on scratch buffers
  // between two events: a sample of a 2 us kernel is no longer one launch
  // against the events' 0.5 us resolution. Before each such sample the L2 is emptied as tune
  // empties it before its batches (a write of twice the L2's size to a scratch buffer, whose
  // lines are then dropped: the application's data is written back, never lost), so that what
  // the rotation's previous launches left in L2 does not favour some candidates. 0: chosen per
  // size from the table's time there (a sample of about 50 us, at most 64 launches; 1 where a
  // launch lasts that long, still on the scratch buffers after the reset and one untimed
  // launch, as tune times such a launch). 1: the application's launch is timed itself and
  // nothing else runs. A candidate's samples go to two sets of scratch buffers in turn, each
  // with outputs of its own and a copy of the inputs made at its first sample (a transpose's time
  // depends on where its buffers lie: one set would rank the candidates by one arbitrary
  // placement). The scratch buffers (twice the buffers' size, and twice the L2's) live until the
  // size settles. The sets take at most half the device's free memory: past that they share the
  // application's inputs, and past that again the samples time the application's launches.
  // Needs a kernel whose time does not depend on what its outputs held.
  int batch = 0;
};

struct Options {
  // The on-disk cubin cache: empty means $TUNE_CACHE_DIR, else $XDG_CACHE_HOME/tune, else
  // $HOME/.cache/tune. It must be a directory owned by this user and writable by no one else,
  // and each cubin file a regular file owned by this user; anything else is not used (the
  // configuration is compiled instead). TUNE_CACHE_DIR=off or disk_cache = false turn it off.
  std::filesystem::path cache_dir;
  bool disk_cache = true;
  // Capture: empty means $TUNE_CAPTURE; no capture when both are empty.
  std::filesystem::path capture_dir;
  std::vector<std::string> compiler_options;  // after the spec's CompilerOptions
  OnlineOptions online;
};

struct Stats {
  std::size_t compiled = 0;        // NVRTC compiles in this process
  std::size_t from_disk = 0;       // cubins taken from the on-disk cache
  std::size_t disk_refused = 0;    // cache files found but not used (corrupt, foreign, unsafe)
  std::size_t captures = 0;        // capture files written
  double compile_ms = 0;           // NVRTC time
  std::string cache_dir;           // the on-disk cache in use ("" when off)
  std::string cache_note;          // why the on-disk cache is off, when it is
  std::size_t online_settled = 0;  // sizes online tuning has settled in this process
  std::size_t online_files = 0;    // result files written
  double online_extra_ms = 0;      // the rotations' GPU time beyond their winners' (batches and L2 resets included)
  double online_wait_ms = 0;       // host time the rotations' cuts waited for their first rounds' timings
  std::string online_note;         // why a result file was not written, when one was not
};

class Kernel {
 public:
  // Reads the spec and its kernel source, and the table (checked against the spec: every
  // configuration must be in the spec's space). Throws Error naming the file and the cause.
  Kernel(const std::filesystem::path& spec, const std::filesystem::path& table, Options options = {});
  ~Kernel();
  Kernel(Kernel&&) noexcept;
  Kernel& operator=(Kernel&&) noexcept;
  Kernel(const Kernel&) = delete;
  Kernel& operator=(const Kernel&) = delete;

  const std::string& name() const noexcept;  // the spec's KernelName

  // The selection for a device described by name and compute capability (no CUDA call).
  Selection select(Size size, const std::string& device_name, int cc_major, int cc_minor) const;
  // The selection for the current device; compiles (or loads from the cache) its configuration.
  const Selection& prepare(Size size);

  // Selects, compiles on first use, checks the arguments and launches on `stream` (no
  // synchronisation). The reference stays valid for the Kernel's lifetime.
  const Selection& launch(cudaStream_t stream, Size size, std::initializer_list<Arg> args);

  // The argument checks of launch(), without a device: throws Error naming the argument.
  void check_arguments(Size size, std::initializer_list<Arg> args) const;

  Stats stats() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace tune::runtime

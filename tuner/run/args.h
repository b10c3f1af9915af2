// Kernel arguments, independent of the spec module (the integrator maps a spec's arguments to
// ArgSpec): device buffers filled deterministically from a seed, scalars passed by value, and the
// `void* args[]` array cudaLaunchKernel takes.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "run/buffer.h"
#include "run/dtype.h"
#include "run/session.h"
#include "run/tensor_map.h"

namespace tune::run {

enum class FillKind { random, constant };

struct ArgSpec {
  std::string name;
  std::string dtype = "float";  // see parse_dtype: "float", "double", "int32", "uint32", "char", "float4", ...
  bool scalar = false;
  std::size_t count = 0;  // elements of dtype for a buffer; ignored (or 1) for a scalar
  FillKind fill = FillKind::constant;
  double fill_value = 0.0;  // constant: the value (a scalar's value); random: the range scale
  bool output = false;      // written by the kernel: poisoned before verification runs
  bool read = false;        // an output the kernel also reads (ReadWrite, e.g. C of C = A*B + beta*C):
                            // restored by refill() before verification instead of poisoned
  // A CUtensorMap parameter (run/tensor_map.h): 128 bytes by value, zero unless the launch
  // encodes it (LaunchExtras); `scalar` must be set, dtype and fill are ignored.
  bool tensor_map = false;
  // Given contents in place of the fill (a capture's, tuning/capture_args.h): a buffer's
  // count * dtype size bytes, or a scalar's value.
  std::shared_ptr<const std::vector<std::byte>> data{};
};

// Throws InputError naming the argument: empty name, unknown dtype, buffer with count 0, scalar
// with count > 1, vector-typed or output scalar, random scalar, non-finite fill value, an integer
// constant that is fractional or out of the type's range, a negative random scale.
void validate(const ArgSpec& spec);

// The bytes a scalar argument passes by value (dtype.size() bytes). Validates first.
std::vector<std::byte> scalar_bytes(const ArgSpec& spec);

// The initial contents of buffer argument `index` of a set seeded with `seed`: what ArgSet
// generates on the device (and again after refill() or a recovery), here on the host. Validates first.
std::vector<std::byte> initial_data(const ArgSpec& spec, std::size_t index, std::uint64_t seed);

class ArgSet : public Recoverable {
 public:
  // Validates every spec (and that names are unique), allocates and fills the buffers.
  ArgSet(Session& session, std::vector<ArgSpec> specs, std::uint64_t seed);
  ~ArgSet() override = default;

  std::size_t size() const { return specs_.size(); }
  const ArgSpec& spec(std::size_t index) const { return specs_.at(index); }
  const std::vector<ArgSpec>& specs() const { return specs_; }
  DType dtype(std::size_t index) const { return slots_.at(index).dtype; }
  std::uint64_t seed() const { return seed_; }
  // Index of the argument called `name`; throws Error when there is none.
  std::size_t index_of(std::string_view name) const;

  // The buffer of a non-scalar argument (throws Error for a scalar).
  DeviceBuffer& buffer(std::size_t index);
  const DeviceBuffer& buffer(std::size_t index) const;
  DeviceBuffer& buffer(std::string_view name) { return buffer(index_of(name)); }

  // The array for cudaLaunchKernel: one pointer per argument, to the device pointer of a buffer
  // or to the value of a scalar. Stable until the next recover().
  void** launch_args() { return pointers_.data(); }

  // Generates the initial contents of every buffer again, on the device (inputs a kernel
  // modified, outputs).
  void refill();
  // Poisons every output buffer (see DeviceBuffer::poison), e.g. before a verification launch.
  void poison_outputs();

 private:
  struct Slot {
    DType dtype;
    DeviceBuffer buffer;                   // buffers
    void* device_pointer = nullptr;        // what args[] points to for a buffer
    alignas(16) std::byte value[16] = {};  // what args[] points to for a scalar
    TensorMap map;                         // what args[] points to for a tensor map (zero)
  };
  void restore() override;
  void build();
  void fill(std::size_t index);

  std::vector<ArgSpec> specs_;
  std::uint64_t seed_;
  std::vector<Slot> slots_;
  std::vector<void*> pointers_;
};

}  // namespace tune::run

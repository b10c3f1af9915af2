// DeviceBuffer: RAII global memory (cudaMalloc/cudaFree) with typed transfers and fills.
#pragma once
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "run/dtype.h"

namespace tune::run {

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Throws CudaError (out of memory names the size) for bytes > 0; 0 bytes allocates nothing.
  explicit DeviceBuffer(std::size_t bytes);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  void* data() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }
  // False once the context it was allocated in has been reset (Session::recover()).
  bool valid() const;

  // Synchronous transfers of exactly bytes() bytes (throw CudaError / Error on size mismatch).
  void upload(std::span<const std::byte> host);
  void download(std::span<std::byte> host) const;
  std::vector<std::byte> download() const;
  template <class T>
  void upload(std::span<const T> host) {
    upload(std::as_bytes(host));
  }
  template <class T>
  std::vector<T> download_as() const {
    std::vector<T> out(bytes_ / sizeof(T));
    download(std::as_writable_bytes(std::span<T>(out)));
    return out;
  }

  // Generated on the device, the same bytes as random_data / constant_data (dtype.h,
  // device_ops.h); the buffer must hold whole elements of dtype.
  void fill_random(DType dtype, std::uint64_t seed, double scale);
  void fill_constant(DType dtype, double value);
  // Every byte 0xFF: NaN for floating types, all ones for integers (see kPoisonByte).
  void poison();
  void memset(unsigned char byte);
  // bytes() / dtype.size(); throws Error when the buffer does not hold whole elements.
  std::size_t elements_of(DType dtype) const;

 private:
  void release() noexcept;
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
  std::uint64_t epoch_ = 0;
};

}  // namespace tune::run

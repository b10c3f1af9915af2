#include "run/buffer.h"

#include <cuda_runtime_api.h>

#include <utility>

#include "run/cuda.h"
#include "run/device_ops.h"

namespace tune::run {

DeviceBuffer::DeviceBuffer(std::size_t bytes) : bytes_(bytes), epoch_(context_epoch()) {
  if (bytes == 0) return;
  check(cudaMalloc(&ptr_, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)), epoch_(other.epoch_) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
    epoch_ = other.epoch_;
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  // Memory of a reset context is gone already; freeing it would target the new context.
  if (ptr_ != nullptr && epoch_ == context_epoch()) (void)cudaFree(ptr_);
  ptr_ = nullptr;
  bytes_ = 0;
}

bool DeviceBuffer::valid() const { return bytes_ == 0 || (ptr_ != nullptr && epoch_ == context_epoch()); }

void DeviceBuffer::upload(std::span<const std::byte> host) {
  if (host.size() != bytes_)
    throw Error("DeviceBuffer::upload: host data has " + std::to_string(host.size()) + " bytes, the buffer " +
                std::to_string(bytes_));
  if (bytes_ == 0) return;
  check(cudaMemcpy(ptr_, host.data(), bytes_, cudaMemcpyHostToDevice),
        "cudaMemcpy host to device of " + std::to_string(bytes_) + " bytes");
}

void DeviceBuffer::download(std::span<std::byte> host) const {
  if (host.size() != bytes_)
    throw Error("DeviceBuffer::download: host space has " + std::to_string(host.size()) + " bytes, the buffer " +
                std::to_string(bytes_));
  if (bytes_ == 0) return;
  check(cudaMemcpy(host.data(), ptr_, bytes_, cudaMemcpyDeviceToHost),
        "cudaMemcpy device to host of " + std::to_string(bytes_) + " bytes");
}

std::vector<std::byte> DeviceBuffer::download() const {
  std::vector<std::byte> out(bytes_);
  download(out);
  return out;
}

std::size_t DeviceBuffer::elements_of(DType dtype) const {
  if (bytes_ % dtype.size() != 0)
    throw Error("DeviceBuffer of " + std::to_string(bytes_) + " bytes does not hold whole " + dtype.name() +
                " elements");
  return bytes_ / dtype.size();
}

// Generated on the device: the same bytes as random_data() / constant_data() (device_ops.h).
void DeviceBuffer::fill_random(DType dtype, std::uint64_t seed, double scale) {
  device_fill_random(ptr_, dtype, elements_of(dtype), seed, scale);
}

void DeviceBuffer::fill_constant(DType dtype, double value) {
  const std::size_t count = elements_of(dtype);
  // A constant whose element bytes are all equal (0, poison) is a device memset.
  const std::vector<std::byte> one = constant_data(dtype, 1, value);
  bool uniform = true;
  for (std::byte b : one) uniform = uniform && b == one.front();
  if (uniform) {
    memset(static_cast<unsigned char>(one.front()));
    return;
  }
  device_fill_constant(ptr_, dtype, count, value);
}

void DeviceBuffer::poison() { memset(kPoisonByte); }

void DeviceBuffer::memset(unsigned char byte) {
  if (bytes_ == 0) return;
  check(cudaMemset(ptr_, byte, bytes_), "cudaMemset of " + std::to_string(bytes_) + " bytes");
  check(cudaDeviceSynchronize(), "cudaMemset of " + std::to_string(bytes_) + " bytes");
}

}  // namespace tune::run

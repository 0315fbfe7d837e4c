#include "kernels/cuda/device_buffer.h"

#include <cuda_runtime_api.h>

#include <string>
#include <utility>

#include "kernels/cuda/cuda_check.h"

namespace pstwin::cuda {

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) (void)cudaFree(ptr_);  // never throws; an error here has nowhere to go
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), capacity_(std::exchange(other.capacity_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) (void)cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    capacity_ = std::exchange(other.capacity_, 0);
  }
  return *this;
}

void* DeviceBuffer::reserve(std::size_t bytes) {
  if (bytes <= capacity_ && ptr_ != nullptr) return ptr_;
  std::size_t grown = capacity_ + capacity_ / 2;
  if (grown < bytes) grown = bytes;
  if (grown < 256) grown = 256;
  if (ptr_ != nullptr) {
    const cudaError_t freed = cudaFree(ptr_);
    ptr_ = nullptr;
    capacity_ = 0;
    check(freed, "cudaFree");
  }
  void* p = nullptr;
  const cudaError_t error = cudaMalloc(&p, grown);
  if (error != cudaSuccess)
    throw_cuda_error("cudaMalloc(" + format_bytes(static_cast<double>(grown)) + ")", error);
  ptr_ = p;
  capacity_ = grown;
  return ptr_;
}

std::size_t Workspace::capacity() const {
  std::size_t total = 0;
  for (const auto& s : slots_) total += s.capacity();
  return total;
}

}  // namespace pstwin::cuda

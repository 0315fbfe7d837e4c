// Device memory for the CUDA kernels: plain cudaMalloc (never managed memory), grown on demand
// and reused across calls, so a steady workload allocates nothing after its first calls.
#pragma once

#include <cstddef>
#include <vector>

namespace pstwin::cuda {

/// One cudaMalloc'd block on the current device that only grows. Not thread-safe. Move-only.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  /// A device pointer to at least `bytes` bytes (256-byte aligned). When the block must grow it
  /// is freed and reallocated at max(bytes, 1.5 x its old size): the old contents are lost, and
  /// cudaFree waits for the device's pending work first. Throws CudaError naming the size and
  /// the GPU's free memory when cudaMalloc fails (out of memory included).
  void* reserve(std::size_t bytes);

  /// reserve(count * sizeof(T)) as a T*; a count of 0 still returns a valid pointer.
  template <typename T>
  T* reserve_as(std::size_t count) {
    return static_cast<T*>(reserve((count > 0 ? count : 1) * sizeof(T)));
  }

  /// Bytes currently allocated.
  std::size_t capacity() const { return capacity_; }
  /// The block (null before the first reserve).
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  std::size_t capacity_ = 0;
};

/// Numbered scratch arrays for one kernel call. reset() at the start of a call, then take<T>(n)
/// hands out the 1st, 2nd, ... array, each its own DeviceBuffer: a call that takes its arrays in
/// the same order every time reuses the same blocks, and growing one leaves the others (and the
/// pointers already handed out) intact. Not thread-safe.
class Workspace {
 public:
  /// Starts handing out arrays from the first again. Earlier pointers stay allocated but their
  /// contents belong to whoever takes them next.
  void reset() { next_ = 0; }

  /// The next array, with room for `count` T (at least one). Throws CudaError when out of memory.
  template <typename T>
  T* take(std::size_t count) {
    if (next_ == slots_.size()) slots_.emplace_back();
    return slots_[next_++].reserve_as<T>(count);
  }

  /// Bytes held by all arrays.
  std::size_t capacity() const;

 private:
  std::vector<DeviceBuffer> slots_;
  std::size_t next_ = 0;
};

}  // namespace pstwin::cuda

// Internal to kernels/cuda/: what CudaBackend needs to move a call's host arguments to one GPU
// and its results back: the device, a stream, a cuBLAS handle, and device arrays that are
// reused from call to call (kernels/cuda/device_buffer.h).
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_buffer.h"
#include "kernels/cuda/device_kernels.h"
#include "kernels/matrix.h"

namespace pstwin::cuda {

/// Transfers for one backend on one GPU. Every method throws CudaError when CUDA fails.
/// Not thread-safe.
class Staging {
 public:
  /// Makes `device` current and creates a stream on it.
  explicit Staging(int device);
  ~Staging();
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  cudaStream_t stream() const { return stream_; }
  /// The cuBLAS handle, created on first use (it allocates device memory).
  cublasHandle_t blas();

  /// Starts a call: makes the device current; the arrays of the previous call are reused.
  void begin();

  /// A device copy of host[0..count).
  template <typename T>
  T* upload(const T* host, std::size_t count) {
    T* dev = arrays_.take<T>(count);
    if (count > 0)
      PSTWIN_CUDA_CHECK(cudaMemcpyAsync(dev, host, count * sizeof(T), cudaMemcpyHostToDevice, stream_));
    return dev;
  }
  /// A device array of count T for a result (contents undefined).
  template <typename T>
  T* output(std::size_t count) {
    return arrays_.take<T>(count);
  }
  /// Copies dev[0..count) to host (waits for the stream's work before it).
  template <typename T>
  void download(T* host, const T* dev, std::size_t count) {
    if (count > 0)
      PSTWIN_CUDA_CHECK(cudaMemcpyAsync(host, dev, count * sizeof(T), cudaMemcpyDeviceToHost, stream_));
  }

  /// A packed (row stride = cols) device copy of a host matrix with row stride ld.
  float* upload_matrix(const float* host, std::size_t rows, std::size_t cols, std::size_t ld);
  /// Copies a packed rows x cols device matrix into host rows of stride ld (the elements between
  /// rows are left alone).
  void download_matrix(float* host, const float* dev, std::size_t rows, std::size_t cols,
                       std::size_t ld);

  /// Waits for the call's work; a kernel's failure surfaces here.
  void finish();
  /// Downloads *dev and waits for the call's work.
  DeviceStats finish_stats(const DeviceStats* dev);

  /// The selected rows of x as a compact device matrix (row s = row sel.rows[s]), gathered on
  /// the host first so only they are sent. Row indices must already be validated.
  DeviceFeatures rows(const FeatureView& x, RowSelection sel);
  /// per_row[sel.rows[s]] for each s, in host memory owned by this object (valid until the
  /// next gather of the same type).
  const float* gather(const float* per_row, RowSelection sel);
  const std::int32_t* gather(const std::int32_t* per_row, RowSelection sel);

 private:
  int device_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t blas_ = nullptr;
  Workspace arrays_;
  std::vector<std::uint64_t> row_ptr_;
  std::vector<std::uint32_t> col_idx_;
  std::vector<float> values_;
  std::vector<float> floats_;
  std::vector<std::int32_t> ints_;
};

}  // namespace pstwin::cuda

#include "kernels/cuda/staging.h"

#include <algorithm>

namespace pstwin::cuda {

Staging::Staging(int device) : device_(device) {
  PSTWIN_CUDA_CHECK(cudaSetDevice(device_));
  PSTWIN_CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
}

Staging::~Staging() {
  (void)cudaSetDevice(device_);
  if (blas_ != nullptr) (void)cublasDestroy(blas_);
  if (stream_ != nullptr) (void)cudaStreamDestroy(stream_);
}

cublasHandle_t Staging::blas() {
  if (blas_ == nullptr) PSTWIN_CUDA_CHECK(cublasCreate(&blas_));
  return blas_;
}

void Staging::begin() {
  PSTWIN_CUDA_CHECK(cudaSetDevice(device_));
  arrays_.reset();
}

float* Staging::upload_matrix(const float* host, std::size_t rows, std::size_t cols,
                              std::size_t ld) {
  float* dev = arrays_.take<float>(rows * cols);
  if (rows > 0 && cols > 0)
    PSTWIN_CUDA_CHECK(cudaMemcpy2DAsync(dev, cols * sizeof(float), host, ld * sizeof(float),
                                        cols * sizeof(float), rows, cudaMemcpyHostToDevice,
                                        stream_));
  return dev;
}

void Staging::download_matrix(float* host, const float* dev, std::size_t rows, std::size_t cols,
                              std::size_t ld) {
  if (rows > 0 && cols > 0)
    PSTWIN_CUDA_CHECK(cudaMemcpy2DAsync(host, ld * sizeof(float), dev, cols * sizeof(float),
                                        cols * sizeof(float), rows, cudaMemcpyDeviceToHost,
                                        stream_));
}

void Staging::finish() { PSTWIN_CUDA_CHECK(cudaStreamSynchronize(stream_)); }

DeviceStats Staging::finish_stats(const DeviceStats* dev) {
  DeviceStats host;
  download(&host, dev, 1);
  finish();
  return host;
}

DeviceFeatures Staging::rows(const FeatureView& x, RowSelection sel) {
  const std::size_t n = sel.count, d = x.cols();
  DeviceFeatures out;
  out.sparse = x.sparse;
  out.rows = n;
  out.cols = d;
  if (!x.sparse) {
    values_.resize(n * d);
    for (std::size_t s = 0; s < n; ++s) {
      const float* src = x.dense.values + static_cast<std::size_t>(sel.rows[s]) * d;
      std::copy(src, src + d, values_.begin() + static_cast<std::ptrdiff_t>(s * d));
    }
    out.values = upload(values_.data(), n * d);
    return out;
  }
  row_ptr_.assign(1, 0);
  col_idx_.clear();
  values_.clear();
  for (std::size_t s = 0; s < n; ++s) {
    const std::size_t row = sel.rows[s];
    const std::uint64_t begin = x.csr.row_ptr[row], end = x.csr.row_ptr[row + 1];
    col_idx_.insert(col_idx_.end(), x.csr.col_idx + begin, x.csr.col_idx + end);
    values_.insert(values_.end(), x.csr.values + begin, x.csr.values + end);
    row_ptr_.push_back(values_.size());
  }
  out.row_ptr = upload(row_ptr_.data(), row_ptr_.size());
  out.col_idx = upload(col_idx_.data(), col_idx_.size());
  out.values = upload(values_.data(), values_.size());
  return out;
}

const float* Staging::gather(const float* per_row, RowSelection sel) {
  floats_.resize(sel.count);
  for (std::size_t s = 0; s < sel.count; ++s) floats_[s] = per_row[sel.rows[s]];
  return floats_.data();
}

const std::int32_t* Staging::gather(const std::int32_t* per_row, RowSelection sel) {
  ints_.resize(sel.count);
  for (std::size_t s = 0; s < sel.count; ++s) ints_[s] = per_row[sel.rows[s]];
  return ints_.data();
}

}  // namespace pstwin::cuda

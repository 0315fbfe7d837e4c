// Row and column kernels of the MLP: column sums (bias gradients), softmax cross-entropy on
// logits, and gathering a mini-batch into a dense matrix.
#include <climits>
#include <cmath>
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda {

namespace {

using detail::kBlock;
using detail::kFull;

/// One thread per column, rows summed in ascending order: the CPU's order, bit for bit.
__global__ void column_sums_kernel(const float* __restrict__ d, std::size_t rows,
                                   std::size_t cols, float* __restrict__ out) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= cols) return;
  float acc = 0.0f;
  for (std::size_t i = 0; i < rows; ++i) acc += d[i * cols + j];
  out[j] = acc;
}

/// The first maximum of a group's lanes: larger value wins, equal values take the lower index.
__device__ __forceinline__ void argmax_combine(float& v, int& idx, int width) {
  for (int o = width / 2; o > 0; o >>= 1) {
    const float v2 = __shfl_xor_sync(kFull, v, o, width);
    const int i2 = __shfl_xor_sync(kFull, idx, o, width);
    if (v2 > v || (v2 == v && i2 < idx)) {
      v = v2;
      idx = i2;
    }
  }
}

/// Softmax cross-entropy, `width` lanes (a power of two) per row; lane l takes the classes
/// l, l + width, ... Writes the row's loss and whether its first maximum is the label.
__global__ void softmax_xent_kernel(const float* z, const std::int32_t* __restrict__ labels,
                                    const std::uint32_t* __restrict__ label_rows, std::size_t rows,
                                    std::size_t k, float* dz, float grad_scale, int width,
                                    double* __restrict__ row_loss,
                                    std::uint32_t* __restrict__ row_correct) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t row = thread / width;
  const int lane = static_cast<int>(thread % width);
  const bool valid = row < rows;  // invalid groups still take part in the shuffles
  const float* zi = z + (valid ? row * k : 0);
  std::int32_t label = -1;
  if (valid) label = labels[label_rows != nullptr ? label_rows[row] : row];
  const bool label_ok = label >= 0 && static_cast<std::size_t>(label) < k;
  // Read before any lane of this row overwrites z (dz may be z); the shuffles below order it.
  const float z_label = valid && label_ok ? zi[label] : NAN;

  float zmax = -INFINITY;
  int argmax = INT_MAX;
  if (valid) {
    for (std::size_t c = lane; c < k; c += width) {
      const float v = zi[c];
      if (argmax == INT_MAX || v > zmax) {
        zmax = v;
        argmax = static_cast<int>(c);
      }
    }
  }
  argmax_combine(zmax, argmax, width);

  double sum = 0.0;
  if (valid) {
    for (std::size_t c = lane; c < k; c += width) {
      const float e = expf(zi[c] - zmax);
      sum += e;
      if (dz != nullptr) dz[row * k + c] = e;
    }
  }
  sum = detail::group_sum(sum, width);  // >= 1: the max term is exp(0)
  if (!valid) return;
  if (dz != nullptr) {
    const double inv_sum = 1.0 / sum;
    for (std::size_t c = lane; c < k; c += width) {
      float* d = dz + row * k + c;
      const double p = static_cast<double>(*d) * inv_sum - (static_cast<std::int64_t>(c) == label ? 1.0 : 0.0);
      *d = __fmul_rn(static_cast<float>(p), grad_scale);
    }
  }
  if (lane == 0 && row_loss != nullptr) {
    row_loss[row] = log(sum) - (static_cast<double>(z_label) - static_cast<double>(zmax));
    row_correct[row] = label_ok && argmax == label ? 1u : 0u;
  }
}

/// One warp per selected row: a dense row is copied, a CSR row zeroed then scattered.
__global__ void gather_rows_kernel(DeviceFeatures x, const std::uint32_t* __restrict__ sel,
                                   std::size_t n, float* __restrict__ out) {
  const std::size_t s = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (s >= n) return;
  const std::size_t row = sel != nullptr ? sel[s] : s;
  const std::size_t d = x.cols;
  float* o = out + s * d;
  if (!x.sparse) {
    const float* xr = x.values + row * d;
    for (std::size_t j = lane; j < d; j += 32) o[j] = xr[j];
    return;
  }
  for (std::size_t j = lane; j < d; j += 32) o[j] = 0.0f;
  __syncwarp();
  for (std::uint64_t e = x.row_ptr[row] + lane; e < x.row_ptr[row + 1]; e += 32)
    o[x.col_idx[e]] = x.values[e];
}

}  // namespace

namespace detail {

void softmax_xent_rows(const float* z, const std::int32_t* labels, const std::uint32_t* label_rows,
                       std::size_t rows, std::size_t k, float* dz, float grad_scale,
                       double* row_loss, std::uint32_t* row_correct, cudaStream_t stream) {
  if (rows == 0 || k == 0) return;
  // About four classes per lane, up to a warp per row.
  const int width = lanes_for((k + 3) / 4);
  const std::size_t threads = rows * static_cast<std::size_t>(width);
  const auto blocks = static_cast<unsigned>((threads + kBlock - 1) / kBlock);
  softmax_xent_kernel<<<blocks, kBlock, 0, stream>>>(z, labels, label_rows, rows, k, dz,
                                                     grad_scale, width, row_loss, row_correct);
  check_launch("softmax_xent");
}

}  // namespace detail

void column_sums(const float* d, std::size_t rows, std::size_t cols, float* out,
                 cudaStream_t stream) {
  if (cols == 0) return;
  const auto blocks = static_cast<unsigned>((cols + kBlock - 1) / kBlock);
  column_sums_kernel<<<blocks, kBlock, 0, stream>>>(d, rows, cols, out);
  check_launch("column_sums");
}

void softmax_xent(const float* z, const std::int32_t* labels, std::size_t rows, std::size_t k,
                  float* dz, float grad_scale, DeviceStats* stats, Workspace& ws,
                  cudaStream_t stream) {
  if (k == 0) throw std::invalid_argument("softmax_xent: the number of classes k must be at least 1");
  ws.reset();
  double* row_loss = nullptr;
  std::uint32_t* row_correct = nullptr;
  if (stats != nullptr) {
    row_loss = ws.take<double>(rows);
    row_correct = ws.take<std::uint32_t>(rows);
  }
  detail::softmax_xent_rows(z, labels, nullptr, rows, k, dz, grad_scale, row_loss, row_correct,
                            stream);
  if (stats != nullptr) detail::reduce_stats(row_loss, row_correct, rows, stats, ws, stream);
}

void gather_rows(const DeviceFeatures& x, const std::uint32_t* sel, std::size_t n, float* out,
                 cudaStream_t stream) {
  if (n == 0 || x.cols == 0) return;
  gather_rows_kernel<<<detail::warp_grid(n), kBlock, 0, stream>>>(x, sel, n, out);
  check_launch("gather_rows");
}

}  // namespace pstwin::cuda

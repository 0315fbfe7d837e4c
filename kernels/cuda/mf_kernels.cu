// Biased matrix factorisation over a mini-batch of ratings: a group of lanes per rating for the
// prediction, then the gradient of the touched rows, each summed by one warp over the ratings
// that touch it in batch order (found by a stable radix sort of the (row, rating) occurrences).
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda {

namespace {

using detail::kBlock;

/// Prediction error of each rating: squared error (double) and the gradient scale
/// s_j = -2 e_j / count. `width` lanes per rating share the factor dot product.
__global__ void mf_forward_kernel(const float* __restrict__ rows, std::size_t rank,
                                  const std::uint32_t* __restrict__ user_row,
                                  const std::uint32_t* __restrict__ item_row,
                                  const float* __restrict__ rating, std::size_t count, float mean,
                                  float inv_n, int width, double* __restrict__ sq_err,
                                  float* __restrict__ scale) {
  const std::size_t thread = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  const std::size_t j = thread / width;
  const int lane = static_cast<int>(thread % width);
  const bool valid = j < count;  // invalid groups still take part in the shuffles
  const std::size_t w = rank + 1;
  const float* u = rows + (valid ? static_cast<std::size_t>(user_row[j]) * w : 0);
  const float* i = rows + (valid ? static_cast<std::size_t>(item_row[j]) * w : 0);
  float partial = 0.0f;
  if (valid)
    for (std::size_t f = 1 + lane; f <= rank; f += width) partial += u[f] * i[f];
  const float dot = detail::group_sum(partial, width);
  if (!valid || lane != 0) return;
  const float pred = __fadd_rn(__fadd_rn(__fadd_rn(mean, u[0]), i[0]), dot);
  const float e = __fsub_rn(rating[j], pred);
  sq_err[j] = static_cast<double>(e) * e;
  scale[j] = __fmul_rn(-2.0f * e, inv_n);
}

/// Occurrence 2j is rating j's user row, 2j + 1 its item row.
__global__ void mf_occurrences_kernel(const std::uint32_t* __restrict__ user_row,
                                      const std::uint32_t* __restrict__ item_row,
                                      std::size_t count, std::uint32_t* __restrict__ keys,
                                      std::uint32_t* __restrict__ occurrence) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= count) return;
  keys[2 * j] = user_row[j];
  keys[2 * j + 1] = item_row[j];
  occurrence[2 * j] = static_cast<std::uint32_t>(2 * j);
  occurrence[2 * j + 1] = static_cast<std::uint32_t>(2 * j + 1);
}

/// One warp per sorted occurrence; the first occurrence of each row sums that row's gradient
/// over all of its occurrences, in batch order, exactly as the CPU adds them:
/// bias: g += s + reg * self[0];  factor f: g += s * other[f], then g += reg * self[f].
__global__ void mf_gradient_kernel(const float* __restrict__ rows, std::size_t rank,
                                   const std::uint32_t* __restrict__ user_row,
                                   const std::uint32_t* __restrict__ item_row,
                                   const float* __restrict__ scale, float reg,
                                   const std::uint32_t* __restrict__ keys,
                                   const std::uint32_t* __restrict__ occurrence,
                                   std::size_t occurrences, float* __restrict__ grad) {
  const std::size_t p = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (p >= occurrences) return;
  const std::uint32_t row = keys[p];
  if (p > 0 && keys[p - 1] == row) return;  // not the row's first occurrence
  const std::size_t w = rank + 1;
  const float* self = rows + static_cast<std::size_t>(row) * w;
  for (std::size_t f = lane; f < w; f += 32) {
    float acc = 0.0f;
    for (std::size_t q = p; q < occurrences && keys[q] == row; ++q) {
      const std::uint32_t occ = occurrence[q];
      const std::size_t j = occ >> 1;
      const float s = scale[j];
      if (f == 0) {
        acc = __fadd_rn(acc, __fadd_rn(s, __fmul_rn(reg, self[0])));
      } else {
        const std::size_t other_row = (occ & 1u) != 0 ? user_row[j] : item_row[j];
        acc = __fadd_rn(acc, __fmul_rn(s, rows[other_row * w + f]));
        acc = __fadd_rn(acc, __fmul_rn(reg, self[f]));
      }
    }
    grad[static_cast<std::size_t>(row) * w + f] = acc;
  }
}

}  // namespace

void matrix_factorization(const float* rows, std::size_t n_rows, std::size_t rank,
                          const std::uint32_t* user_row, const std::uint32_t* item_row,
                          const float* rating, std::size_t count, float mean, float l2,
                          float* grad, DeviceStats* stats, Workspace& ws, cudaStream_t stream) {
  const std::size_t w = rank + 1;
  if (grad != nullptr && n_rows > 0)
    PSTWIN_CUDA_CHECK(cudaMemsetAsync(grad, 0, n_rows * w * sizeof(float), stream));
  if (count == 0) {
    if (stats != nullptr) PSTWIN_CUDA_CHECK(cudaMemsetAsync(stats, 0, sizeof(DeviceStats), stream));
    return;
  }
  if (count >= (std::size_t{1} << 30))
    throw std::length_error("matrix_factorization: more than 2^30 ratings in one call");
  ws.reset();
  auto* sq_err = ws.take<double>(count);
  auto* scale = ws.take<float>(count);
  // As on the CPU: both gradient terms pre-scaled by 1/count.
  const float inv_n = 1.0f / static_cast<float>(count);
  const float reg = 2.0f * l2 * inv_n;

  const int width = detail::lanes_for((rank + 1) / 2);
  const std::size_t threads = count * static_cast<std::size_t>(width);
  mf_forward_kernel<<<static_cast<unsigned>((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      rows, rank, user_row, item_row, rating, count, mean, inv_n, width, sq_err, scale);
  check_launch("mf_forward_kernel");
  if (stats != nullptr) detail::reduce_stats(sq_err, nullptr, count, stats, ws, stream);
  if (grad == nullptr) return;

  const std::size_t occurrences = 2 * count;
  auto* keys = ws.take<std::uint32_t>(occurrences);
  auto* occ = ws.take<std::uint32_t>(occurrences);
  auto* sorted_keys = ws.take<std::uint32_t>(occurrences);
  auto* sorted_occ = ws.take<std::uint32_t>(occurrences);
  mf_occurrences_kernel<<<static_cast<unsigned>((count + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      user_row, item_row, count, keys, occ);
  check_launch("mf_occurrences_kernel");
  detail::stable_sort_pairs(keys, sorted_keys, occ, sorted_occ, occurrences,
                            detail::bits_for(n_rows), ws, stream);
  mf_gradient_kernel<<<detail::warp_grid(occurrences), kBlock, 0, stream>>>(
      rows, rank, user_row, item_row, scale, reg, sorted_keys, sorted_occ, occurrences, grad);
  check_launch("mf_gradient_kernel");
}

}  // namespace pstwin::cuda

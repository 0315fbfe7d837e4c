// Logistic and softmax regression over CSR or dense rows: one warp per selected row for the
// logits, per-row loss and residuals, then a deterministic gradient in which one thread sums each
// weight over the selected rows in ascending order (the CPU's order).
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda {

namespace {

using detail::kBlock;

__device__ __forceinline__ std::size_t selected(const std::uint32_t* sel, std::size_t s) {
  return sel != nullptr ? sel[s] : s;
}

/// z[s][c] = x_row . W_c + b_c for the k classes (rows of d + 1 parameters), one warp per row.
template <bool kSparse>
__global__ void logits_kernel(DeviceFeatures x, const std::uint32_t* __restrict__ sel,
                              std::size_t n, const float* __restrict__ params, std::size_t k,
                              float* __restrict__ z) {
  const std::size_t s = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (s >= n) return;  // whole warps leave together: n is per warp
  const std::size_t row = selected(sel, s);
  const std::size_t d = x.cols;
  for (std::size_t c = 0; c < k; ++c) {
    const float* w = params + c * (d + 1);
    float acc = 0.0f;
    if constexpr (kSparse) {
      for (std::uint64_t e = x.row_ptr[row] + lane; e < x.row_ptr[row + 1]; e += 32)
        acc += x.values[e] * w[x.col_idx[e]];
    } else {
      const float* xr = x.values + row * d;
      for (std::size_t j = lane; j < d; j += 32) acc += xr[j] * w[j];
    }
    acc = detail::warp_sum(acc);
    if (lane == 0) z[s * k + c] = acc + w[d];
  }
}

/// Binary logistic loss and residual of each row from its logit, as the CPU computes them (in
/// double, stably): r[s] = (sigmoid(z) - label) / n.
__global__ void logistic_rows_kernel(const float* __restrict__ z, const float* __restrict__ labels01,
                                     const std::uint32_t* __restrict__ sel, std::size_t n,
                                     float inv_n, float* __restrict__ r,
                                     double* __restrict__ row_loss,
                                     std::uint32_t* __restrict__ row_correct) {
  const std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const float label = labels01[selected(sel, s)];
  const bool positive = label > 0.5f;
  const float zf = z[s];
  const double zd = zf;
  const double margin = positive ? zd : -zd;
  const double e = exp(-fabs(zd));
  row_loss[s] = fmax(-margin, 0.0) + log1p(e);
  row_correct[s] = (zf >= 0.0f) == positive ? 1u : 0u;
  const double p = zd >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
  r[s] = __fmul_rn(static_cast<float>(p - label), inv_n);
}

/// Dense gradient: thread (c, j) sums r[s][c] * x[row_s][j] over s in order (j == d: the bias,
/// the sum of r[s][c]). Each product and sum rounded separately, as the CPU's scaled_add.
__global__ void dense_gradient_kernel(DeviceFeatures x, const std::uint32_t* __restrict__ sel,
                                      std::size_t n, const float* __restrict__ r, std::size_t k,
                                      float* __restrict__ grad) {
  const std::size_t d = x.cols;
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= k * (d + 1)) return;
  const std::size_t c = t / (d + 1), j = t % (d + 1);
  float acc = 0.0f;
  if (j == d) {
    for (std::size_t s = 0; s < n; ++s) acc = __fadd_rn(acc, r[s * k + c]);
  } else {
    for (std::size_t s = 0; s < n; ++s)
      acc = __fadd_rn(acc, __fmul_rn(r[s * k + c], x.values[selected(sel, s) * d + j]));
  }
  grad[t] = acc;
}

/// Entries per selected row, for the prefix sum that places them.
__global__ void row_counts_kernel(DeviceFeatures x, const std::uint32_t* __restrict__ sel,
                                  std::size_t n, std::uint64_t* __restrict__ counts) {
  const std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= n) return;
  const std::size_t row = sel[s];
  counts[s] = x.row_ptr[row + 1] - x.row_ptr[row];
}

/// Lays the selected rows' entries out in selection order at offsets[s] (null: identity
/// selection, offsets from row_ptr): key = column, value = position, plus the entry's row and
/// value. One warp per row.
__global__ void expand_entries_kernel(DeviceFeatures x, const std::uint32_t* __restrict__ sel,
                                      std::size_t n, const std::uint64_t* __restrict__ offsets,
                                      std::uint32_t* __restrict__ keys,
                                      std::uint32_t* __restrict__ positions,
                                      std::uint32_t* __restrict__ entry_row,
                                      float* __restrict__ entry_value) {
  const std::size_t s = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const unsigned lane = threadIdx.x % 32;
  if (s >= n) return;
  const std::size_t row = selected(sel, s);
  const std::uint64_t begin = x.row_ptr[row], end = x.row_ptr[row + 1];
  const std::uint64_t base = offsets != nullptr ? offsets[s] : begin - x.row_ptr[0];
  for (std::uint64_t e = begin + lane; e < end; e += 32) {
    const std::uint64_t p = base + (e - begin);
    keys[p] = x.col_idx[e];
    positions[p] = static_cast<std::uint32_t>(p);
    entry_row[p] = static_cast<std::uint32_t>(s);
    entry_value[p] = x.values[e];
  }
}

/// start[c] = first sorted position with column >= c, for c in [0, cols]; positions run to n.
__global__ void column_starts_kernel(const std::uint32_t* __restrict__ sorted_keys, std::size_t n,
                                     std::size_t cols, std::uint64_t* __restrict__ start) {
  const std::size_t p = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p > n) return;
  // Position p opens the columns (key[p-1], key[p]]; position n closes the rest.
  const std::size_t lo = p == 0 ? 0 : static_cast<std::size_t>(sorted_keys[p - 1]) + 1;
  const std::size_t hi = p == n ? cols : sorted_keys[p];
  for (std::size_t c = lo; c <= hi && c <= cols; ++c) start[c] = p;
}

/// CSR gradient: thread (c, col) sums r[row][c] * value over the column's entries, which the
/// stable sort left in selection order; col == d is the bias.
__global__ void sparse_gradient_kernel(std::size_t d, std::size_t n, std::size_t k,
                                       const float* __restrict__ r,
                                       const std::uint64_t* __restrict__ start,
                                       const std::uint32_t* __restrict__ positions,
                                       const std::uint32_t* __restrict__ entry_row,
                                       const float* __restrict__ entry_value,
                                       float* __restrict__ grad) {
  const std::size_t t = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (t >= k * (d + 1)) return;
  const std::size_t c = t / (d + 1), j = t % (d + 1);
  float acc = 0.0f;
  if (j == d) {
    for (std::size_t s = 0; s < n; ++s) acc = __fadd_rn(acc, r[s * k + c]);
  } else {
    for (std::uint64_t p = start[j]; p < start[j + 1]; ++p) {
      const std::uint32_t q = positions[p];
      acc = __fadd_rn(acc, __fmul_rn(r[static_cast<std::size_t>(entry_row[q]) * k + c], entry_value[q]));
    }
  }
  grad[t] = acc;
}

unsigned blocks_for(std::size_t threads) {
  return static_cast<unsigned>((threads + kBlock - 1) / kBlock);
}

/// The mean gradient from the residuals r (n x k): grad (k x (d + 1)) overwritten.
void gradient(const DeviceFeatures& x, const std::uint32_t* sel, std::size_t n,
              std::size_t entries, const float* r, std::size_t k, float* grad, Workspace& ws,
              cudaStream_t stream) {
  const std::size_t d = x.cols, outputs = k * (d + 1);
  if (x.sparse && entries >= (std::size_t{1} << 31))
    throw std::length_error("sparse gradient: more than 2^31 stored entries in one call");
  if (!x.sparse) {
    dense_gradient_kernel<<<blocks_for(outputs), kBlock, 0, stream>>>(x, sel, n, r, k, grad);
    check_launch("dense_gradient_kernel");
    return;
  }
  const std::uint64_t* offsets = nullptr;
  if (sel != nullptr && n > 0) {
    auto* counts = ws.take<std::uint64_t>(n);
    auto* starts = ws.take<std::uint64_t>(n);
    row_counts_kernel<<<blocks_for(n), kBlock, 0, stream>>>(x, sel, n, counts);
    check_launch("row_counts_kernel");
    detail::exclusive_sum(counts, starts, n, ws, stream);
    offsets = starts;
  }
  auto* keys = ws.take<std::uint32_t>(entries);
  auto* positions = ws.take<std::uint32_t>(entries);
  auto* sorted_keys = ws.take<std::uint32_t>(entries);
  auto* sorted_positions = ws.take<std::uint32_t>(entries);
  auto* entry_row = ws.take<std::uint32_t>(entries);
  auto* entry_value = ws.take<float>(entries);
  auto* start = ws.take<std::uint64_t>(d + 1);
  if (entries > 0) {
    expand_entries_kernel<<<detail::warp_grid(n), kBlock, 0, stream>>>(
        x, sel, n, offsets, keys, positions, entry_row, entry_value);
    check_launch("expand_entries_kernel");
    detail::stable_sort_pairs(keys, sorted_keys, positions, sorted_positions, entries,
                              detail::bits_for(d), ws, stream);
  }
  column_starts_kernel<<<blocks_for(entries + 1), kBlock, 0, stream>>>(sorted_keys, entries, d, start);
  check_launch("column_starts_kernel");
  sparse_gradient_kernel<<<blocks_for(outputs), kBlock, 0, stream>>>(
      d, n, k, r, start, sorted_positions, entry_row, entry_value, grad);
  check_launch("sparse_gradient_kernel");
}

void logits(const DeviceFeatures& x, const std::uint32_t* sel, std::size_t n,
            const float* params, std::size_t k, float* z, cudaStream_t stream) {
  if (x.sparse)
    logits_kernel<true><<<detail::warp_grid(n), kBlock, 0, stream>>>(x, sel, n, params, k, z);
  else
    logits_kernel<false><<<detail::warp_grid(n), kBlock, 0, stream>>>(x, sel, n, params, k, z);
  check_launch("logits_kernel");
}

/// Zeroes the outputs of a call over no rows: grad (size) and stats.
void empty_result(float* grad, std::size_t size, DeviceStats* stats, cudaStream_t stream) {
  if (grad != nullptr) PSTWIN_CUDA_CHECK(cudaMemsetAsync(grad, 0, size * sizeof(float), stream));
  if (stats != nullptr) PSTWIN_CUDA_CHECK(cudaMemsetAsync(stats, 0, sizeof(DeviceStats), stream));
}

}  // namespace

void logistic(const DeviceFeatures& x, const float* labels01, const std::uint32_t* sel,
              std::size_t n, std::size_t entries, const float* params, float* grad,
              DeviceStats* stats, Workspace& ws, cudaStream_t stream) {
  if (n == 0) return empty_result(grad, x.cols + 1, stats, stream);
  ws.reset();
  auto* z = ws.take<float>(n);
  auto* r = ws.take<float>(n);
  auto* row_loss = ws.take<double>(n);
  auto* row_correct = ws.take<std::uint32_t>(n);
  logits(x, sel, n, params, 1, z, stream);
  const float inv_n = 1.0f / static_cast<float>(n);
  logistic_rows_kernel<<<blocks_for(n), kBlock, 0, stream>>>(z, labels01, sel, n, inv_n, r,
                                                             row_loss, row_correct);
  check_launch("logistic_rows_kernel");
  if (stats != nullptr) detail::reduce_stats(row_loss, row_correct, n, stats, ws, stream);
  if (grad != nullptr) gradient(x, sel, n, entries, r, 1, grad, ws, stream);
}

void softmax(const DeviceFeatures& x, const std::int32_t* labels, std::size_t k,
             const std::uint32_t* sel, std::size_t n, std::size_t entries, const float* params,
             float* grad, DeviceStats* stats, Workspace& ws, cudaStream_t stream) {
  if (k == 0) throw std::invalid_argument("softmax: the number of classes k must be at least 1");
  if (n == 0) return empty_result(grad, k * (x.cols + 1), stats, stream);
  ws.reset();
  auto* z = ws.take<float>(n * k);  // logits, then (in place) the residuals
  auto* row_loss = ws.take<double>(n);
  auto* row_correct = ws.take<std::uint32_t>(n);
  logits(x, sel, n, params, k, z, stream);
  // The residuals (softmax - onehot) / n are exactly softmax_xent's dz with grad_scale 1/n.
  const float inv_n = 1.0f / static_cast<float>(n);
  detail::softmax_xent_rows(z, labels, sel, n, k, grad != nullptr ? z : nullptr, inv_n, row_loss,
                            row_correct, stream);
  if (stats != nullptr) detail::reduce_stats(row_loss, row_correct, n, stats, ws, stream);
  if (grad != nullptr) gradient(x, sel, n, entries, z, k, grad, ws, stream);
}

}  // namespace pstwin::cuda

// Internal to kernels/cuda/: launch sizing, warp reductions and the deterministic reduction of
// per-row loss figures, shared by the .cu files.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "kernels/cuda/device_kernels.h"

namespace pstwin::cuda::detail {

inline constexpr unsigned kBlock = 256;  // threads per block of the grid-stride kernels
inline constexpr unsigned kFull = 0xffffffffu;

/// Blocks for a grid-stride loop over `items` with `threads` per block: enough to cover the
/// items, at most what the GPU holds resident at once (8 blocks of 256 per multiprocessor).
unsigned grid_for(std::size_t items, unsigned threads = kBlock);

/// Blocks of `threads` threads for one warp per item (no grid-stride).
inline unsigned warp_grid(std::size_t items, unsigned threads = kBlock) {
  const std::size_t per_block = threads / 32;
  return static_cast<unsigned>((items + per_block - 1) / per_block);
}

/// Sum over a warp by a fixed butterfly: every lane gets the same, deterministic, value.
__device__ __forceinline__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o);
  return v;
}

/// Sum over aligned groups of `width` lanes (a power of two <= 32), butterfly as above.
__device__ __forceinline__ float group_sum(float v, int width) {
  for (int o = width / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o, width);
  return v;
}
__device__ __forceinline__ double group_sum(double v, int width) {
  for (int o = width / 2; o > 0; o >>= 1) v += __shfl_xor_sync(kFull, v, o, width);
  return v;
}

/// Reduces per-row figures into *out: loss_sum = sum of loss[0..n), correct = sum of
/// correct[0..n) (correct may be null: 0). Blocks sum fixed chunks, each thread a fixed strided
/// share then a fixed tree, and one block sums the chunks' results in order: deterministic for a
/// given n, whatever the GPU. Partial sums come from ws (taken after the caller's arrays).
void reduce_stats(const double* loss, const std::uint32_t* correct, std::size_t n,
                  DeviceStats* out, Workspace& ws, cudaStream_t stream);

/// Softmax cross-entropy rows (see cuda::softmax_xent) with row i's label read at
/// labels[label_rows[i]] (label_rows null: labels[i]); per-row loss and correctness go to
/// row_loss / row_correct (both null: not written). Enqueues nothing for rows == 0 or k == 0.
void softmax_xent_rows(const float* z, const std::int32_t* labels, const std::uint32_t* label_rows,
                       std::size_t rows, std::size_t k, float* dz, float grad_scale,
                       double* row_loss, std::uint32_t* row_correct, cudaStream_t stream);

/// Stable radix sort of n (key, value) pairs by the low `key_bits` bits of the keys: pairs with
/// equal keys keep their input order. Inputs are left unchanged; temporary storage comes from
/// ws (taken after whatever the caller took). Throws std::length_error for n >= 2^31.
void stable_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out,
                       const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                       int key_bits, Workspace& ws, cudaStream_t stream);

/// Exclusive prefix sum of n 64-bit counts (out[0] = 0), temporary storage from ws.
void exclusive_sum(const std::uint64_t* in, std::uint64_t* out, std::size_t n, Workspace& ws,
                   cudaStream_t stream);

/// Bits needed to write every value below `count` (at least 1).
inline int bits_for(std::size_t count) {
  int bits = 1;
  while (bits < 64 && (std::size_t{1} << bits) < count) ++bits;
  return bits;
}

/// Smallest power of two >= v, at most 32 (lanes per row for a row of v items).
inline int lanes_for(std::size_t v) {
  int w = 1;
  while (w < 32 && static_cast<std::size_t>(w) < v) w *= 2;
  return w;
}

}  // namespace pstwin::cuda::detail

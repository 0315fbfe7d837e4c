// The stable radix sort and prefix sum (CUB) behind the deterministic sparse gradients: compiled
// once here and called from linear_models.cu and mf_kernels.cu.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <limits>
#include <stdexcept>

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda::detail {

void stable_sort_pairs(const std::uint32_t* keys_in, std::uint32_t* keys_out,
                       const std::uint32_t* values_in, std::uint32_t* values_out, std::size_t n,
                       int key_bits, Workspace& ws, cudaStream_t stream) {
  if (n == 0) return;
  if (n >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("stable_sort_pairs: more than 2^31 entries in one call");
  const int items = static_cast<int>(n);
  const int end_bit = key_bits < 32 ? key_bits : 32;
  std::size_t temp_bytes = 0;
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, temp_bytes, keys_in, keys_out,
                                                    values_in, values_out, items, 0, end_bit,
                                                    stream));
  void* temp = ws.take<unsigned char>(temp_bytes);
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out,
                                                    values_in, values_out, items, 0, end_bit,
                                                    stream));
}

void exclusive_sum(const std::uint64_t* in, std::uint64_t* out, std::size_t n, Workspace& ws,
                   cudaStream_t stream) {
  if (n == 0) return;
  if (n >= static_cast<std::size_t>(std::numeric_limits<int>::max()))
    throw std::length_error("exclusive_sum: more than 2^31 items in one call");
  const int items = static_cast<int>(n);
  std::size_t temp_bytes = 0;
  PSTWIN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, temp_bytes, in, out, items, stream));
  void* temp = ws.take<unsigned char>(temp_bytes);
  PSTWIN_CUDA_CHECK(cub::DeviceScan::ExclusiveSum(temp, temp_bytes, in, out, items, stream));
}

}  // namespace pstwin::cuda::detail

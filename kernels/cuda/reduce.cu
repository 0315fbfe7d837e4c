// Launch sizing and the deterministic reduction of per-row loss figures (device_common.cuh).
#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/device_common.cuh"

namespace pstwin::cuda::detail {

namespace {

constexpr unsigned kReduceThreads = 512;
constexpr std::size_t kChunk = kReduceThreads * 16;  // items per block in the first stage

/// Block b sums loss and correct over items [b * chunk, (b + 1) * chunk) of n: each thread a
/// fixed strided share, then a fixed tree; the sums go to loss_out[b] and correct_out[b].
template <typename Count>
__global__ void reduce_chunks_kernel(const double* __restrict__ loss,
                                     const Count* __restrict__ correct, std::size_t n,
                                     std::size_t chunk, double* __restrict__ loss_out,
                                     unsigned long long* __restrict__ correct_out) {
  __shared__ double s_loss[kReduceThreads];
  __shared__ unsigned long long s_correct[kReduceThreads];
  const std::size_t begin = static_cast<std::size_t>(blockIdx.x) * chunk;
  const std::size_t end = begin + chunk < n ? begin + chunk : n;
  double l = 0.0;
  unsigned long long c = 0;
  for (std::size_t i = begin + threadIdx.x; i < end; i += kReduceThreads) {
    l += loss[i];
    if (correct != nullptr) c += correct[i];
  }
  s_loss[threadIdx.x] = l;
  s_correct[threadIdx.x] = c;
  __syncthreads();
  for (unsigned half = kReduceThreads / 2; half > 0; half >>= 1) {
    if (threadIdx.x < half) {
      s_loss[threadIdx.x] += s_loss[threadIdx.x + half];
      s_correct[threadIdx.x] += s_correct[threadIdx.x + half];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    loss_out[blockIdx.x] = s_loss[0];
    correct_out[blockIdx.x] = s_correct[0];
  }
}

}  // namespace

unsigned grid_for(std::size_t items, unsigned threads) {
  int device = 0, sms = 0;
  PSTWIN_CUDA_CHECK(cudaGetDevice(&device));
  PSTWIN_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device));
  const std::size_t needed = (items + threads - 1) / threads;
  const std::size_t resident = static_cast<std::size_t>(sms) * (2048 / threads);
  const std::size_t blocks = needed < resident ? needed : resident;
  return static_cast<unsigned>(blocks > 0 ? blocks : 1);
}

void reduce_stats(const double* loss, const std::uint32_t* correct, std::size_t n,
                  DeviceStats* out, Workspace& ws, cudaStream_t stream) {
  // Two fixed stages (chunks of kChunk items, then their sums in order): the grouping depends on
  // n alone, so the result is the same on every run and every GPU.
  const std::size_t blocks = n == 0 ? 1 : (n + kChunk - 1) / kChunk;
  if (blocks == 1) {
    reduce_chunks_kernel<std::uint32_t><<<1, kReduceThreads, 0, stream>>>(
        loss, correct, n, kChunk, &out->loss_sum, &out->correct);
    check_launch("reduce_chunks_kernel");
    return;
  }
  auto* partial_loss = ws.take<double>(blocks);
  auto* partial_correct = ws.take<unsigned long long>(blocks);
  reduce_chunks_kernel<std::uint32_t><<<static_cast<unsigned>(blocks), kReduceThreads, 0, stream>>>(
      loss, correct, n, kChunk, partial_loss, partial_correct);
  check_launch("reduce_chunks_kernel");
  reduce_chunks_kernel<unsigned long long><<<1, kReduceThreads, 0, stream>>>(
      partial_loss, correct != nullptr ? partial_correct : nullptr, blocks, blocks, &out->loss_sum,
      &out->correct);
  check_launch("reduce_chunks_kernel (partials)");
}

}  // namespace pstwin::cuda::detail

// The compressors on the GPU, following kernels/cpu/compressors.cc operation for operation:
// explicitly rounded divisions, the same counter-based random numbers for int8, onebit's block sum
// in double in index order (one thread per block: the bytes must match the CPU's), and topk's
// order (magnitude descending, then index) as one radix sort of 64-bit keys.
#include <cub/device/device_radix_sort.cuh>

#include <cuda_runtime.h>

#include <cstring>
#include <stdexcept>
#include <string>

#include "kernels/compression_bits.h"
#include "kernels/cuda/compress_kernels.h"
#include "kernels/cuda/cuda_check.h"

namespace pstwin::cuda {
namespace {

constexpr unsigned kThreads = 256;
static_assert(kThreads == kCompressBlock, "one CUDA block per compression block");

/// A device array freed on scope exit.
template <typename T>
struct Device {
  T* p = nullptr;
  explicit Device(std::size_t count) {
    PSTWIN_CUDA_CHECK(cudaMalloc(reinterpret_cast<void**>(&p), (count > 0 ? count : 1) * sizeof(T)));
  }
  ~Device() { cudaFree(p); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
};

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>((n + kThreads - 1) / kThreads); }

using compression_bits::float_of_fp16;
using compression_bits::uniform01;

__global__ void half_kernel(const float* x, std::size_t n, bool bf16, std::uint16_t* out) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = bf16 ? compression_bits::bf16_of(x[i]) : compression_bits::fp16_of(x[i]);
}

/// One block per compression block: the scale from the block's max |x| (NaN when any is NaN).
__global__ void int8_kernel(const float* x, std::size_t n, std::uint64_t seed, float* scales, std::int8_t* q) {
  __shared__ float amax[kThreads];
  __shared__ int nan_seen;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * kThreads + threadIdx.x;
  if (threadIdx.x == 0) nan_seen = 0;
  __syncthreads();
  const float v = i < n ? x[i] : 0.0f;
  if (isnan(v)) atomicExch(&nan_seen, 1);
  amax[threadIdx.x] = fabsf(v);
  __syncthreads();
  for (unsigned s = kThreads / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) amax[threadIdx.x] = fmaxf(amax[threadIdx.x], amax[threadIdx.x + s]);
    __syncthreads();
  }
  const float scale = nan_seen ? __int_as_float(0x7fc00000) : __fdiv_rn(amax[0], 127.0f);
  if (threadIdx.x == 0) scales[blockIdx.x] = scale;
  if (i >= n) return;
  int r = 0;
  if (scale > 0.0f && isfinite(scale)) {
    const float t = __fdiv_rn(v, scale);
    const float fl = floorf(t);
    r = static_cast<int>(fl) + (uniform01(seed, i) < __fsub_rn(t, fl) ? 1 : 0);
    r = r < -127 ? -127 : r > 127 ? 127 : r;
  }
  q[i] = static_cast<std::int8_t>(r);
}

/// One block per compression block: thread 0 sums |x| in double in index order (the CPU's sum),
/// then each of the first 32 threads packs one byte of signs.
__global__ void onebit_kernel(const float* x, std::size_t n, float* scales, std::uint8_t* bits) {
  const std::size_t lo = static_cast<std::size_t>(blockIdx.x) * kThreads;
  const std::size_t hi = lo + kThreads < n ? lo + kThreads : n;
  if (threadIdx.x == 0) {
    double sum = 0.0;
    for (std::size_t i = lo; i < hi; ++i) sum = __dadd_rn(sum, fabs(static_cast<double>(x[i])));
    scales[blockIdx.x] = static_cast<float>(__ddiv_rn(sum, static_cast<double>(hi - lo)));
  }
  if (threadIdx.x < kThreads / 8) {
    const std::size_t first = lo + 8 * threadIdx.x;
    if (first >= hi) return;
    unsigned byte = 0;
    for (unsigned b = 0; b < 8 && first + b < hi; ++b)
      if (x[first + b] >= 0.0f) byte |= 1u << b;
    bits[first / 8] = static_cast<std::uint8_t>(byte);
  }
}

/// topk's order as one ascending key: inverted magnitude bits (NaN as infinity), then the index.
__global__ void topk_keys(const float* x, std::size_t n, std::uint64_t* keys) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  std::uint32_t mag = __float_as_uint(x[i]) & 0x7fffffffu;
  if (mag > 0x7f800000u) mag = 0x7f800000u;
  keys[i] = (static_cast<std::uint64_t>(~mag) << 32) | static_cast<std::uint32_t>(i);
}

__global__ void topk_pick(const std::uint64_t* sorted, std::size_t k, std::uint32_t* idx) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < k) idx[j] = static_cast<std::uint32_t>(sorted[j]);
}

__global__ void topk_gather(const float* x, const std::uint32_t* idx, std::size_t k, float* values) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < k) values[j] = x[idx[j]];
}

__global__ void unpack_kernel(ValueFormat f, const std::uint8_t* b, std::size_t n, float* y) {
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const std::size_t head = 4 * ((n + kThreads - 1) / kThreads);
  const float* scales = reinterpret_cast<const float*>(b);
  switch (f) {
    case ValueFormat::kFp16: y[i] = float_of_fp16(static_cast<std::uint16_t>(b[2 * i] | b[2 * i + 1] << 8)); break;
    case ValueFormat::kBf16: y[i] = __uint_as_float(static_cast<std::uint32_t>(b[2 * i] | b[2 * i + 1] << 8) << 16); break;
    case ValueFormat::kInt8:
      y[i] = __fmul_rn(static_cast<float>(static_cast<std::int8_t>(b[head + i])), scales[i / kThreads]);
      break;
    case ValueFormat::kOneBit: {
      const float s = scales[i / kThreads];
      y[i] = (b[head + i / 8] >> (i % 8)) & 1u ? s : -s;
      break;
    }
    default: break;
  }
}

__global__ void scatter_kernel(const std::uint32_t* idx, const float* values, std::size_t k, float* y) {
  const std::size_t j = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j < k) y[idx[j]] = values[j];
}

template <typename T>
void to_host(void* host, const T* dev, std::size_t count) {
  if (count > 0) PSTWIN_CUDA_CHECK(cudaMemcpy(host, dev, count * sizeof(T), cudaMemcpyDeviceToHost));
}

void sort_u64(std::uint64_t* in, std::uint64_t* out, std::size_t n) {
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, items));
  Device<unsigned char> temp(temp_bytes);
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.p, temp_bytes, in, out, items));
}

void sort_u32(std::uint32_t* in, std::uint32_t* out, std::size_t n) {
  std::size_t temp_bytes = 0;
  const int items = static_cast<int>(n);
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, in, out, items));
  Device<unsigned char> temp(temp_bytes);
  PSTWIN_CUDA_CHECK(cub::DeviceRadixSort::SortKeys(temp.p, temp_bytes, in, out, items));
}

}  // namespace

Cost compress_on_gpu(const CompressParams& p, const float* x, std::size_t n, std::vector<std::uint8_t>& out) {
  if (n >= (std::size_t{1} << 31)) throw std::length_error("compress_on_gpu: more than 2^31 values");
  out.assign(packed_bytes(p, n), 0);
  const double dn = static_cast<double>(n);
  const Cost cost{p.format == ValueFormat::kFloat32 ? 0.0 : (p.format == ValueFormat::kInt8 ? 4 : 2) * dn,
                  4 * dn + static_cast<double>(out.size())};
  if (n == 0) {
    if (p.format == ValueFormat::kTopK) out.assign(4, 0);  // k = 0
    return cost;
  }
  if (p.format == ValueFormat::kFloat32) {
    std::memcpy(out.data(), x, 4 * n);  // little-endian hosts only, as CUDA's are
    return cost;
  }
  Device<float> dx(n);
  PSTWIN_CUDA_CHECK(cudaMemcpy(dx.p, x, 4 * n, cudaMemcpyHostToDevice));
  const std::size_t nb = blocks_for(n);
  switch (p.format) {
    case ValueFormat::kFp16:
    case ValueFormat::kBf16: {
      Device<std::uint16_t> h(n);
      half_kernel<<<blocks_for(n), kThreads>>>(dx.p, n, p.format == ValueFormat::kBf16, h.p);
      check_launch("half_kernel");
      to_host(out.data(), h.p, n);
      break;
    }
    case ValueFormat::kInt8: {
      Device<float> scales(nb);
      Device<std::int8_t> q(n);
      int8_kernel<<<static_cast<unsigned>(nb), kThreads>>>(dx.p, n, p.seed, scales.p, q.p);
      check_launch("int8_kernel");
      to_host(out.data(), scales.p, nb);
      to_host(out.data() + 4 * nb, q.p, n);
      break;
    }
    case ValueFormat::kOneBit: {
      Device<float> scales(nb);
      Device<std::uint8_t> bits((n + 7) / 8);
      onebit_kernel<<<static_cast<unsigned>(nb), kThreads>>>(dx.p, n, scales.p, bits.p);
      check_launch("onebit_kernel");
      to_host(out.data(), scales.p, nb);
      to_host(out.data() + 4 * nb, bits.p, (n + 7) / 8);
      break;
    }
    case ValueFormat::kTopK: {
      const std::size_t k = topk_count(n, p.topk_ratio);
      Device<std::uint64_t> keys(n), sorted(n);
      topk_keys<<<blocks_for(n), kThreads>>>(dx.p, n, keys.p);
      check_launch("topk_keys");
      sort_u64(keys.p, sorted.p, n);
      Device<std::uint32_t> idx(k), idx_sorted(k);
      Device<float> values(k);
      topk_pick<<<blocks_for(k), kThreads>>>(sorted.p, k, idx.p);
      check_launch("topk_pick");
      sort_u32(idx.p, idx_sorted.p, k);
      topk_gather<<<blocks_for(k), kThreads>>>(dx.p, idx_sorted.p, k, values.p);
      check_launch("topk_gather");
      const std::uint32_t k32 = static_cast<std::uint32_t>(k);
      std::memcpy(out.data(), &k32, 4);
      to_host(out.data() + 4, idx_sorted.p, k);
      to_host(out.data() + 4 + 4 * k, values.p, k);
      break;
    }
    default: break;
  }
  return cost;
}

Cost decompress_on_gpu(ValueFormat f, const std::uint8_t* bytes, std::size_t size, std::size_t n, float* y) {
  if (auto problem = packed_problem(f, bytes, size, n); !problem.empty())
    throw std::invalid_argument("decompress: " + problem);
  const Cost cost{static_cast<double>(n), static_cast<double>(size) + 4.0 * static_cast<double>(n)};
  if (n == 0) return cost;
  if (f == ValueFormat::kFloat32) {
    std::memcpy(y, bytes, 4 * n);
    return cost;
  }
  Device<std::uint8_t> b(size);
  Device<float> dy(n);
  PSTWIN_CUDA_CHECK(cudaMemcpy(b.p, bytes, size, cudaMemcpyHostToDevice));
  if (f == ValueFormat::kTopK) {
    std::uint32_t k32;
    std::memcpy(&k32, bytes, 4);
    const std::size_t k = k32;
    PSTWIN_CUDA_CHECK(cudaMemset(dy.p, 0, 4 * n));
    scatter_kernel<<<blocks_for(k), kThreads>>>(reinterpret_cast<const std::uint32_t*>(b.p + 4),
                                                reinterpret_cast<const float*>(b.p + 4 + 4 * k), k, dy.p);
    check_launch("scatter_kernel");
  } else {
    unpack_kernel<<<blocks_for(n), kThreads>>>(f, b.p, n, dy.p);
    check_launch("unpack_kernel");
  }
  to_host(y, dy.p, n);
  return cost;
}

}  // namespace pstwin::cuda

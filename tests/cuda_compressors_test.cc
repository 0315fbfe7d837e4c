// The CUDA compressors (kernels/cuda/compress_kernels.h) against the CPU ones: the same packed
// bytes and the same unpacked values, bit for bit, for every format at sizes around the block
// (256), with ties for topk and int8's stochastic rounding. Without a GPU, or in a build without
// CUDA, every test reports SKIPPED with the reason.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "kernels/compression.h"
#include "kernels/cuda_backend.h"
#include "tests/kernel_test_problems.h"

#if PSTWIN_HAVE_CUDA
#include "kernels/cuda/compress_kernels.h"
#endif

namespace pstwin {
namespace {

TEST(CudaCompressors, MatchTheCpuBitForBit) {
  std::string why;
  if (!cuda_device_available(&why)) GTEST_SKIP() << "no GPU for the CUDA compressors: " << why;
#if PSTWIN_HAVE_CUDA
  std::uint32_t seed = 1;
  for (std::size_t n : {0, 1, 7, 255, 256, 257, 1000, 100003}) {
    auto x = testing::random_vector(n, 1.0f, seed++);
    for (std::size_t i = 0; i + 3 < n; i += 17) x[i + 3] = -x[i];  // ties for topk
    for (std::uint8_t f = 0; f <= kMaxValueFormat; ++f) {
      const CompressParams p{.format = static_cast<ValueFormat>(f), .topk_ratio = 0.03, .seed = 99};
      const std::string at = std::string(value_format_name(p.format)) + " n=" + std::to_string(n);
      std::vector<std::uint8_t> cpu, gpu;
      const Cost cc = compress(p, x.data(), n, cpu);
      const Cost gc = cuda::compress_on_gpu(p, x.data(), n, gpu);
      ASSERT_EQ(gpu, cpu) << at;
      EXPECT_EQ(gc.bytes, cc.bytes) << at;
      std::vector<float> ycpu(n), ygpu(n);
      decompress(p.format, cpu.data(), cpu.size(), n, ycpu.data());
      cuda::decompress_on_gpu(p.format, cpu.data(), cpu.size(), n, ygpu.data());
      ASSERT_EQ(std::memcmp(ycpu.data(), ygpu.data(), 4 * n), 0) << at;
    }
  }
#endif
}

}  // namespace
}  // namespace pstwin

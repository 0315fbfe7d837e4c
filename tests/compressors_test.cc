// The compressors (kernels/compression.h) against hand-computed values: fp16 and bf16 rounding,
// int8 scales and stochastic rounding, onebit signs and scale, the top-k set, the documented sizes
// in bytes, clipping, and error feedback carrying exactly the residual (GradientCompressor).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <bit>
#include <stdexcept>
#include <vector>

#include "kernels/compression.h"
#include "runtime/roles/gradient_compression.h"

namespace pstwin {
namespace {

std::vector<float> unpack(ValueFormat f, const std::vector<std::uint8_t>& b, std::size_t n) {
  std::vector<float> y(n, -99.0f);
  decompress(f, b.data(), b.size(), n, y.data());
  return y;
}

std::vector<std::uint8_t> pack(ValueFormat f, const std::vector<float>& x, double ratio = 0.01,
                               std::uint64_t seed = 7) {
  std::vector<std::uint8_t> out;
  compress(CompressParams{.format = f, .topk_ratio = ratio, .seed = seed}, x.data(), x.size(), out);
  return out;
}

TEST(Compressors, Fp16RoundsToNearestEvenAndSaturates) {
  EXPECT_EQ(float_to_fp16(1.0f), 0x3C00);
  EXPECT_EQ(float_to_fp16(-2.0f), 0xC000);
  EXPECT_EQ(float_to_fp16(0.1f), 0x2E66);                        // 0.0999755859375
  EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f), 0x3C00);             // a tie: to the even 1.0
  EXPECT_EQ(float_to_fp16(1.0f + 3 * 0x1p-11f), 0x3C02);         // a tie: to the even 1 + 2^-9
  EXPECT_EQ(float_to_fp16(1.0f + 0x1p-11f + 0x1p-20f), 0x3C01);  // above the tie: up
  EXPECT_EQ(float_to_fp16(0x1p-24f), 0x0001);                    // the smallest subnormal
  EXPECT_EQ(float_to_fp16(0x1p-25f), 0x0000);                    // a tie: to the even 0
  EXPECT_EQ(float_to_fp16(1.5f * 0x1p-25f), 0x0001);
  EXPECT_EQ(float_to_fp16(65504.0f), 0x7BFF);
  EXPECT_EQ(float_to_fp16(1e6f), 0x7BFF);   // saturates
  EXPECT_EQ(float_to_fp16(-1e6f), 0xFBFF);
  EXPECT_EQ(float_to_fp16(INFINITY), 0x7C00);
  EXPECT_TRUE(std::isnan(fp16_to_float(float_to_fp16(NAN))));
  EXPECT_EQ(fp16_to_float(0x2E66), 0.0999755859375f);
  EXPECT_EQ(fp16_to_float(0x0001), 0x1p-24f);
  EXPECT_EQ(fp16_to_float(0xC000), -2.0f);
  const std::vector<float> x = {1.0f, 0.1f, -2.0f};
  const auto b = pack(ValueFormat::kFp16, x);
  EXPECT_EQ(b, (std::vector<std::uint8_t>{0x00, 0x3C, 0x66, 0x2E, 0x00, 0xC0}));
  EXPECT_EQ(unpack(ValueFormat::kFp16, b, 3), (std::vector<float>{1.0f, 0.0999755859375f, -2.0f}));
}

TEST(Compressors, Bf16KeepsTheUpperHalfRoundedToEven) {
  EXPECT_EQ(float_to_bf16(1.0f), 0x3F80);
  EXPECT_EQ(float_to_bf16(0.1f), 0x3DCD);  // 0x3DCCCCCD: the lower half 0xCCCD rounds up
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F808000u)), 0x3F80);  // tie: even
  EXPECT_EQ(float_to_bf16(std::bit_cast<float>(0x3F818000u)), 0x3F82);  // tie: even
  EXPECT_EQ(bf16_to_float(0x3DCD), std::bit_cast<float>(0x3DCD0000u));
  const auto b = pack(ValueFormat::kBf16, {1.0f, -1.0f});
  EXPECT_EQ(b, (std::vector<std::uint8_t>{0x80, 0x3F, 0x80, 0xBF}));
}

TEST(Compressors, Int8HasAScalePerBlockAndRoundsStochastically) {
  // max |x| = 127: the scale is exactly 1, so x / scale is x.
  const std::vector<float> x = {127.0f, -63.5f, 0.0f, 10.25f, -127.0f};
  const auto b = pack(ValueFormat::kInt8, x);
  ASSERT_EQ(b.size(), 4u + 5u);
  EXPECT_EQ((std::vector<std::uint8_t>(b.begin(), b.begin() + 4)), (std::vector<std::uint8_t>{0, 0, 0x80, 0x3F}));
  const auto y = unpack(ValueFormat::kInt8, b, 5);
  EXPECT_EQ(y[0], 127.0f);
  EXPECT_TRUE(y[1] == -64.0f || y[1] == -63.0f) << y[1];
  EXPECT_EQ(y[2], 0.0f);
  EXPECT_TRUE(y[3] == 10.0f || y[3] == 11.0f) << y[3];
  EXPECT_EQ(y[4], -127.0f);
  // Two blocks: 300 values are two scales and 300 bytes; each block has its own scale.
  std::vector<float> two(300, 1.0f);
  two[0] = 127.0f;   // block 0: scale 1
  two[256] = 12.7f;  // block 1: scale 0.1
  const auto b2 = pack(ValueFormat::kInt8, two);
  EXPECT_EQ(b2.size(), 8u + 300u);
  const auto y2 = unpack(ValueFormat::kInt8, b2, 300);
  EXPECT_EQ(y2[1], 1.0f);
  float scale1;
  std::memcpy(&scale1, b2.data() + 4, 4);
  EXPECT_EQ(scale1, 12.7f / 127.0f);
  EXPECT_NEAR(y2[256], 12.7f, scale1);
  EXPECT_NEAR(y2[257], 1.0f, scale1);
  // Unbiased: 0.5 of scale 1 rounds to 0 or 1 evenly; deterministic for a seed.
  std::vector<float> half(256 * 40, 0.5f);
  for (std::size_t i = 0; i < half.size(); i += 256) half[i] = 127.0f;
  const auto bh = pack(ValueFormat::kInt8, half);
  double sum = 0;
  std::size_t count = 0;
  const auto yh = unpack(ValueFormat::kInt8, bh, half.size());
  for (std::size_t i = 0; i < yh.size(); ++i)
    if (i % 256) {
      ASSERT_TRUE(yh[i] == 0.0f || yh[i] == 1.0f);
      sum += yh[i];
      ++count;
    }
  EXPECT_NEAR(sum / count, 0.5, 0.02);
  EXPECT_EQ(pack(ValueFormat::kInt8, half, 0.01, 7), bh);
  EXPECT_NE(pack(ValueFormat::kInt8, half, 0.01, 8), bh);
}

TEST(Compressors, OneBitSendsSignsAndTheMeanMagnitude) {
  const std::vector<float> x = {0.5f, -1.5f, 2.0f, 0.0f};  // mean |x| = 1
  const auto b = pack(ValueFormat::kOneBit, x);
  EXPECT_EQ(b, (std::vector<std::uint8_t>{0, 0, 0x80, 0x3F, 0x0D}));  // signs 1, 0, 1, 1
  EXPECT_EQ(unpack(ValueFormat::kOneBit, b, 4), (std::vector<float>{1.0f, -1.0f, 1.0f, 1.0f}));
  EXPECT_EQ(pack(ValueFormat::kOneBit, std::vector<float>(257, 1.0f)).size(), 8u + 33u);
}

TEST(Compressors, TopKSendsTheLargestMagnitudesInIndexOrder) {
  const std::vector<float> x = {0.1f, -5.0f, 3.0f, 0.2f, -3.0f, 4.0f};
  const auto b = pack(ValueFormat::kTopK, x, 0.5);  // k = 3; 3 and -3 tie: the lower index wins
  ASSERT_EQ(b.size(), 4u + 8u * 3u);
  EXPECT_EQ(b[0], 3);
  EXPECT_EQ(b[4], 1);
  EXPECT_EQ(b[8], 2);
  EXPECT_EQ(b[12], 5);
  EXPECT_EQ(unpack(ValueFormat::kTopK, b, 6), (std::vector<float>{0, -5.0f, 3.0f, 0, 0, 4.0f}));
  EXPECT_EQ(topk_count(1000, 0.01), 10u);
  EXPECT_EQ(topk_count(3, 0.01), 1u);
  EXPECT_EQ(topk_count(0, 0.5), 0u);
  EXPECT_EQ(topk_count(7, 1.0), 7u);
}

TEST(Compressors, SizesAreAsDocumented) {
  const std::size_t n = 1000;  // 4 blocks
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kFloat32}, n), 4000u);
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kFp16}, n), 2000u);
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kBf16}, n), 2000u);
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kInt8}, n), 16u + 1000u);
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kOneBit}, n), 16u + 125u);
  EXPECT_EQ(packed_bytes({.format = ValueFormat::kTopK, .topk_ratio = 0.01}, n), 4u + 80u);
  std::vector<float> x(n, 0.5f);
  for (std::uint8_t f = 0; f <= kMaxValueFormat; ++f) {
    const CompressParams p{.format = static_cast<ValueFormat>(f), .topk_ratio = 0.01};
    std::vector<std::uint8_t> out;
    compress(p, x.data(), n, out);
    EXPECT_EQ(out.size(), packed_bytes(p, n)) << value_format_name(p.format);
  }
}

TEST(Compressors, InvalidPackingsAreNamed) {
  auto b = pack(ValueFormat::kTopK, {1.0f, 2.0f, 3.0f}, 0.7);  // k = 3: indices 0, 1, 2
  EXPECT_EQ(packed_problem(ValueFormat::kTopK, b.data(), b.size(), 3), "");
  b[8] = 0;  // second index 0 after 0
  EXPECT_NE(packed_problem(ValueFormat::kTopK, b.data(), b.size(), 3).find("strictly increasing"), std::string::npos);
  EXPECT_NE(packed_problem(ValueFormat::kTopK, b.data(), b.size(), 2).find("k = 3"), std::string::npos);
  auto q = pack(ValueFormat::kInt8, {1.0f});
  q[4] = 0x80;
  EXPECT_NE(packed_problem(ValueFormat::kInt8, q.data(), q.size(), 1).find("-128"), std::string::npos);
  auto s = pack(ValueFormat::kOneBit, {1.0f});
  s[4] = 0x03;
  EXPECT_NE(packed_problem(ValueFormat::kOneBit, s.data(), s.size(), 1).find("padding"), std::string::npos);
  EXPECT_NE(packed_problem(ValueFormat::kFp16, s.data(), s.size(), 1).find("expected 2"), std::string::npos);
  std::vector<float> y(3);
  EXPECT_THROW(decompress(ValueFormat::kTopK, b.data(), b.size(), 3, y.data()), std::invalid_argument);
}

TEST(Compressors, ClippingByNormAndByValue) {
  std::vector<float> g = {3.0f, 4.0f};
  clip_global_norm(g.data(), 2, 1.0f);
  EXPECT_FLOAT_EQ(g[0], 0.6f);
  EXPECT_FLOAT_EQ(g[1], 0.8f);
  clip_global_norm(g.data(), 2, 10.0f);  // within the norm: unchanged
  EXPECT_FLOAT_EQ(g[0], 0.6f);
  std::vector<float> v = {3.0f, -4.0f, 0.5f};
  clip_by_value(v.data(), 3, 1.0f);
  EXPECT_EQ(v, (std::vector<float>{1.0f, -1.0f, 0.5f}));
}

Message dense_push(std::vector<float> values, std::int64_t clock) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.clock = clock;
  m.values = std::move(values);
  return m;
}

TEST(Compressors, ErrorFeedbackCarriesExactlyTheResidual) {
  CompressionConfig c;
  c.push = {.format = ValueFormat::kTopK, .topk_ratio = 0.5, .error_feedback = true};
  GradientCompressor worker(c, 3);
  Message first = dense_push({1.0f, -2.0f, 0.5f, 0.25f}, 0);
  worker.pack_push(first, 1);
  EXPECT_EQ(first.packed_count, 4u);
  EXPECT_TRUE(first.values.empty());
  unpack_values(first);
  EXPECT_EQ(first.values, (std::vector<float>{1.0f, -2.0f, 0, 0}));
  EXPECT_EQ(worker.range_residual(0), (std::vector<float>{0, 0, 0.5f, 0.25f}));
  Message second = dense_push({0.125f, 0.125f, 0.125f, 0.125f}, 1);
  worker.pack_push(second, 1);
  unpack_values(second);
  // 0.5 + 0.125 and 0.25 + 0.125 are now the largest: the residual went out with them.
  EXPECT_EQ(second.values, (std::vector<float>{0, 0, 0.625f, 0.375f}));
  EXPECT_EQ(worker.range_residual(0), (std::vector<float>{0.125f, 0.125f, 0, 0}));
  // Without error feedback nothing is kept.
  c.push.error_feedback = false;
  GradientCompressor plain(c, 3);
  Message m = dense_push({1.0f, -2.0f, 0.5f, 0.25f}, 0);
  plain.pack_push(m, 1);
  EXPECT_TRUE(plain.range_residual(0).empty());
}

TEST(Compressors, KeyedErrorFeedbackIsKeptPerKey) {
  CompressionConfig c;
  c.push = {.format = ValueFormat::kTopK, .topk_ratio = 0.5, .error_feedback = true};
  GradientCompressor worker(c, 3);
  Message first = dense_push({4.0f, 4.0f, 1.0f, 1.0f}, 0);  // keys 10, 20 of two floats each
  first.header.flags = msg_flags::kKeyed;
  first.keys = {10, 20};
  worker.pack_push(first, 2);
  Message second = dense_push({0.0f, 0.0f, 0.0f, 0.0f}, 1);  // keys 20, 30: key 20's residual returns
  second.header.flags = msg_flags::kKeyed;
  second.keys = {20, 30};
  worker.pack_push(second, 2);
  unpack_values(second);
  EXPECT_EQ(second.values, (std::vector<float>{1.0f, 1.0f, 0, 0}));
}

}  // namespace
}  // namespace pstwin

// The frame checksum (runtime/frame_checksum.h): XXH3-64's low 32 bits, the same whether a frame
// is hashed whole or streamed in pieces cut anywhere.
#include "runtime/frame_checksum.h"

#include <gtest/gtest.h>

#include <xxhash.h>

#include <cstdint>
#include <vector>

namespace pstwin {
namespace {

std::vector<std::uint8_t> bytes_of(std::size_t n) {
  std::vector<std::uint8_t> b(n);
  std::uint32_t x = 12345;
  for (auto& v : b) v = static_cast<std::uint8_t>((x = x * 1103515245u + 12345u) >> 24);
  return b;
}

TEST(FrameChecksum, IsTheLow32BitsOfXxh3) {
  const auto b = bytes_of(1000);
  EXPECT_EQ(frame_checksum(b.data(), b.size()), static_cast<std::uint32_t>(XXH3_64bits(b.data(), b.size())));
}

TEST(FrameHasher, PiecesCutAnywhereGiveTheWholeFramesChecksum) {
  // Past XXH3's internal block of 1,024 bytes and its 256-byte stripes, so cuts fall inside both.
  const auto b = bytes_of(5000);
  const std::uint32_t whole = frame_checksum(b.data(), b.size());
  for (const std::size_t cut : {0, 1, 3, 64, 240, 241, 1023, 1024, 1025, 4999, 5000}) {
    FrameHasher h;
    h.add(b.data(), cut);
    h.add(b.data() + cut, b.size() - cut);
    EXPECT_EQ(h.digest(), whole) << "cut at " << cut;
  }
  FrameHasher bytewise;
  for (const std::uint8_t& v : b) bytewise.add(&v, 1);
  EXPECT_EQ(bytewise.digest(), whole);
  FrameHasher nothing;
  EXPECT_EQ(nothing.digest(), frame_checksum(nullptr, 0));
}

}  // namespace
}  // namespace pstwin

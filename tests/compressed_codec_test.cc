// Compressed values on the wire (codec.h, version 5): each format round-trips with its exact
// bytes, the frame grows by exactly the packed size, and a decoder refuses invalid packings.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "runtime/byte_order.h"
#include "runtime/codec.h"
#include "runtime/errors.h"
#include "runtime/roles/gradient_compression.h"

namespace pstwin {
namespace {

Message packed_push(ValueFormat f, double ratio = 0.25) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.flags = msg_flags::kWholeRange;
  m.header.range = 2;
  m.header.clock = 5;
  m.keys = {100, 101, 102, 103, 104, 105, 106, 107};
  m.values = {0.5f, -1.0f, 2.0f, 0.0f, 3.0f, -0.25f, 1.5f, -4.0f};
  pack_values(m, CompressionDirection{.format = f, .topk_ratio = ratio}, 42);
  return m;
}

void fix_checksum(std::vector<std::uint8_t>& b) {
  byte_order::store_u32(b.data() + b.size() - 4, frame_checksum(b.data(), b.size() - 4));
}

std::string rejection(const std::vector<std::uint8_t>& b) {
  try {
    decode(b.data(), b.size());
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(CompressedCodec, EveryFormatRoundTripsWithItsExactSize) {
  // 112-byte header, one u64 first key, the values section, the CRC.
  const std::size_t frame = kWireHeaderBytes + 8 + 4;
  const std::size_t sizes[] = {32, 16, 16, 4 + 8, 4 + 1, 4 + 8 * 2};
  for (std::uint8_t f = 0; f <= kMaxValueFormat; ++f) {
    const auto format = static_cast<ValueFormat>(f);
    Message m = packed_push(format);
    const std::vector<std::uint8_t> b = encode(m);
    EXPECT_EQ(b.size(), frame + sizes[f]) << value_format_name(format);
    EXPECT_EQ(encoded_size(m), b.size());
    EXPECT_EQ(b[76], f);
    Message back = decode(b.data(), b.size());
    EXPECT_EQ(back.value_format, format);
    EXPECT_EQ(back.packed, m.packed);
    EXPECT_EQ(back.packed_count, format == ValueFormat::kFloat32 ? 0u : 8u);
    unpack_values(back);
    unpack_values(m);
    EXPECT_EQ(back.values, m.values) << value_format_name(format);
  }
}

// A receiver decodes into messages it is done with (decode_into): a packed frame after a plain
// one, and a plain one after a packed one, leave nothing of the previous message behind.
TEST(CompressedCodec, AReusedMessageKeepsNothingOfTheFormatBefore) {
  Message reused;
  const std::vector<std::uint8_t> plain = encode(packed_push(ValueFormat::kFloat32));
  const std::vector<std::uint8_t> topk = encode(packed_push(ValueFormat::kTopK));
  decode_into(plain.data(), plain.size(), reused);
  decode_into(topk.data(), topk.size(), reused);
  EXPECT_EQ(reused.value_format, ValueFormat::kTopK);
  EXPECT_TRUE(reused.values.empty()) << "packed values travel in `packed` only";
  EXPECT_EQ(reused.packed, packed_push(ValueFormat::kTopK).packed);
  decode_into(plain.data(), plain.size(), reused);
  EXPECT_EQ(reused.value_format, ValueFormat::kFloat32);
  EXPECT_EQ(reused.packed_count, 0u);
  EXPECT_TRUE(reused.packed.empty());
  EXPECT_EQ(reused.values, (std::vector<float>{0.5f, -1.0f, 2.0f, 0.0f, 3.0f, -0.25f, 1.5f, -4.0f}));
}

TEST(CompressedCodec, UncompressedFramesKeepTheirVersion4Size) {
  Message m = packed_push(ValueFormat::kFloat32);
  EXPECT_EQ(encode(m).size(), kWireHeaderBytes + 8 + 8 * 4 + 4);
}

TEST(CompressedCodec, InvalidPackingsAreRefused) {
  std::vector<std::uint8_t> b = encode(packed_push(ValueFormat::kTopK));  // k = 2: indices 4, 7
  const std::size_t payload = kWireHeaderBytes + 8;
  b[payload + 8] = 1;  // second index 1 after 4
  fix_checksum(b);
  EXPECT_NE(rejection(b).find("strictly increasing"), std::string::npos) << rejection(b);
  b = encode(packed_push(ValueFormat::kTopK));
  b[payload] = 9;  // k = 9 of 8 values
  fix_checksum(b);
  EXPECT_NE(rejection(b).find("k = 9"), std::string::npos) << rejection(b);
  b = encode(packed_push(ValueFormat::kFp16));
  b[76] = static_cast<std::uint8_t>(ValueFormat::kInt8);  // 16 bytes are no int8 packing of 8 values
  fix_checksum(b);
  EXPECT_NE(rejection(b).find("expected 12"), std::string::npos) << rejection(b);
  b = encode(packed_push(ValueFormat::kFp16));
  b[88] = 0xff;  // a huge value count
  b[95] = 0x7f;
  fix_checksum(b);
  EXPECT_NE(rejection(b).find("packed values exceed"), std::string::npos) << rejection(b);
}

TEST(CompressedCodec, EncodeRefusesMixedOrWrongPackings) {
  Message m = packed_push(ValueFormat::kInt8);
  m.values = {1.0f};
  EXPECT_THROW(encode(m), ProtocolError);
  m = packed_push(ValueFormat::kInt8);
  m.packed.pop_back();
  EXPECT_THROW(encode(m), ProtocolError);
}

}  // namespace
}  // namespace pstwin

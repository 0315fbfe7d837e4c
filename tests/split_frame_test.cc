// The split frame of wire version 6 (runtime/codec.h): a header part and a values part, which
// ZeroMQ carries as two message parts and UCX as one iov. It stands for exactly the whole frame,
// checksum included, and a decoder refuses every way the two parts can disagree.
#include "runtime/codec.h"

#include <gtest/gtest.h>

#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/roles/gradient_compression.h"

namespace pstwin {
namespace {

Message push_with_values() {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 3;
  m.header.clock = 11;
  m.keys = {2, 5, 9};                      // explicit keys: before the values in the frame
  m.values = {1.5f, -2.0f, 3.25f, 0.5f, -0.0f, 7.0f};
  m.lengths = {2, 2, 2};                   // lengths and data: after them
  m.data = "tail";
  return m;
}

struct Split {
  std::vector<std::uint8_t> head;
  std::vector<std::uint8_t> values;
};

Split split(const Message& m, FrameChecksum checksum = FrameChecksum::kVerify) {
  Split s;
  s.values.resize(values_section_size(m));
  write_values_section(m, s.values.data());
  s.head.resize(encoded_size(m) - s.values.size());
  EXPECT_EQ(encode_split_into(m, s.head.data(), s.head.size(), s.values.data(), checksum), s.head.size());
  return s;
}

// What decode_split_into says about the parts; "<accepted>" when it takes them.
std::string rejection(const std::vector<std::uint8_t>& head, const std::vector<std::uint8_t>& values,
                      FrameChecksum checksum = FrameChecksum::kVerify,
                      std::size_t max_bytes = kDefaultMaxMessageBytes) {
  Message out;
  try {
    decode_split_into(head.data(), head.size(), values.data(), values.size(), out, max_bytes,
                      std::numeric_limits<std::uint64_t>::max(), checksum);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(SplitFrame, ItsPartsSplicedAtTheValuesOffsetAreTheWholeFrame) {
  const Message m = push_with_values();
  const Split s = split(m);
  EXPECT_EQ(s.values.size(), 6u * 4);
  EXPECT_EQ(values_offset(s.head.data()), kWireHeaderBytes + 3 * 8);
  std::vector<std::uint8_t> joined(s.head.begin(), s.head.begin() + values_offset(s.head.data()));
  joined.insert(joined.end(), s.values.begin(), s.values.end());
  joined.insert(joined.end(), s.head.begin() + values_offset(s.head.data()), s.head.end());
  EXPECT_EQ(joined, encode(m)) << "the same bytes, the checksum included";
}

TEST(SplitFrame, RoundTripsAndTheValuesInPlaceAreTheMessagesOwn) {
  const Message m = push_with_values();
  ASSERT_EQ(values_in_place(m), reinterpret_cast<const std::uint8_t*>(m.values.data()));
  const Split s = split(m);
  Message out;
  decode_split_into(s.head.data(), s.head.size(), s.values.data(), s.values.size(), out);
  EXPECT_EQ(out.keys, m.keys);
  EXPECT_EQ(out.values, m.values);
  EXPECT_EQ(out.lengths, m.lengths);
  EXPECT_EQ(out.data, m.data);
  EXPECT_EQ(out.header.clock, 11);
}

TEST(SplitFrame, AMessageWithoutValuesIsItsHeaderPartAlone) {
  Message m;
  m.header.type = MsgType::kStop;
  m.data = "x";
  EXPECT_EQ(values_section_size(m), 0u);
  const Split s = split(m);
  EXPECT_EQ(s.head, encode(m));
  EXPECT_EQ(rejection(s.head, {}), "<accepted>");
}

TEST(SplitFrame, VirtualAndPackedValuesSplitToo) {
  Message synthetic;
  synthetic.header.type = MsgType::kPullReply;
  synthetic.virtual_values = 1000;
  EXPECT_EQ(values_in_place(synthetic), nullptr) << "zeros are written out, or lent by the transport";
  Split s = split(synthetic);
  EXPECT_EQ(s.values, std::vector<std::uint8_t>(4000, 0));
  Message out;
  decode_split_into(s.head.data(), s.head.size(), s.values.data(), s.values.size(), out);
  EXPECT_EQ(out.values, std::vector<float>(1000, 0.0f));

  Message packed = push_with_values();
  pack_values(packed, CompressionDirection{.format = ValueFormat::kTopK, .topk_ratio = 0.5}, 42);
  ASSERT_EQ(values_in_place(packed), packed.packed.data());
  s = split(packed);
  decode_split_into(s.head.data(), s.head.size(), s.values.data(), s.values.size(), out);
  EXPECT_EQ(out.value_format, ValueFormat::kTopK);
  EXPECT_EQ(out.packed, packed.packed);
}

// A values part received straight into a float vector (UCX): plain values become the message's
// own vector without a copy, packed ones are read from it, and the checks hold as for bytes.
std::vector<float> as_floats(const std::vector<std::uint8_t>& bytes) {
  std::vector<float> v(bytes.size() / sizeof(float));
  std::memcpy(v.data(), bytes.data(), v.size() * sizeof(float));
  return v;
}

TEST(SplitFrame, ValuesReceivedInPlaceBecomeTheMessagesOwn) {
  const Message sent = push_with_values();
  const Split s = split(sent);
  std::vector<float> received = as_floats(s.values);
  const float* where = received.data();
  Message out;
  out.values = {9.0f, 9.0f};  // what the receiver's message held before: handed back in `received`
  decode_split_adopting(s.head.data(), s.head.size(), received, out);
  EXPECT_EQ(out.values, sent.values);
  EXPECT_EQ(out.values.data(), where) << "swapped in, not copied";
  EXPECT_EQ(received, std::vector<float>({9.0f, 9.0f}));
  EXPECT_EQ(out.keys, sent.keys);
  EXPECT_EQ(out.lengths, sent.lengths);
  EXPECT_EQ(out.data, sent.data);

  Message packed = push_with_values();
  pack_values(packed, CompressionDirection{.format = ValueFormat::kTopK, .topk_ratio = 0.5}, 42);
  const Split p = split(packed);
  ASSERT_EQ(p.values.size() % sizeof(float), 0u);
  std::vector<float> packed_received = as_floats(p.values);
  Message packed_out;
  decode_split_adopting(p.head.data(), p.head.size(), packed_received, packed_out);
  EXPECT_EQ(packed_out.packed, packed.packed);
  EXPECT_EQ(packed_received, as_floats(p.values)) << "read from, left as it was";

  std::vector<float> corrupt = as_floats(s.values);
  corrupt[1] = 4.0f;
  Message refused;
  EXPECT_THROW(decode_split_adopting(s.head.data(), s.head.size(), corrupt, refused), ProtocolError);
  std::vector<float> longer = as_floats(s.values);
  longer.push_back(1.0f);
  EXPECT_THROW(decode_split_adopting(s.head.data(), s.head.size(), longer, refused), ProtocolError);
}

TEST(SplitFrame, AHeaderWithoutItsValuesPartIsRefused) {
  const Split s = split(push_with_values());
  EXPECT_NE(rejection(s.head, {}).find("values part of 0 bytes, but the header says 6 values"), std::string::npos)
      << rejection(s.head, {});
}

TEST(SplitFrame, AValuesPartOfAnotherLengthThanTheHeaderSaysIsRefused) {
  Split s = split(push_with_values());
  std::vector<std::uint8_t> longer = s.values;
  longer.resize(longer.size() + 4);
  EXPECT_NE(rejection(s.head, longer).find("values part of 28 bytes, but the header says 6 values"), std::string::npos);
  std::vector<std::uint8_t> shorter(s.values.begin(), s.values.end() - 1);
  EXPECT_NE(rejection(s.head, shorter).find("values part of 23 bytes"), std::string::npos);
}

TEST(SplitFrame, AWholeFrameSentAsAHeaderPartIsRefused) {
  // What a sender that did not split would send as its first part, followed by nothing.
  const std::vector<std::uint8_t> whole = encode(push_with_values());
  EXPECT_NE(rejection(whole, {}).find("values part of 0 bytes"), std::string::npos) << rejection(whole, {});
}

TEST(SplitFrame, TheChecksumCoversTheValuesPartUnlessSkipped) {
  Split s = split(push_with_values());
  s.values[5] ^= 0x40;
  EXPECT_NE(rejection(s.head, s.values).find("checksum mismatch"), std::string::npos);
  // Under CURVE the checksum is skipped (the cipher's tag covers both parts).
  const Split unchecked = split(push_with_values(), FrameChecksum::kSkip);
  EXPECT_EQ(rejection(unchecked.head, unchecked.values, FrameChecksum::kSkip), "<accepted>");
  EXPECT_NE(rejection(unchecked.head, unchecked.values).find("checksum mismatch"), std::string::npos);
}

TEST(SplitFrame, EveryTruncationOfTheHeaderPartIsRefused) {
  const Split s = split(push_with_values());
  for (std::size_t len = 0; len < s.head.size(); ++len) {
    const std::vector<std::uint8_t> cut(s.head.begin(), s.head.begin() + static_cast<std::ptrdiff_t>(len));
    EXPECT_NE(rejection(cut, s.values), "<accepted>") << "length " << len;
  }
}

TEST(SplitFrame, BothPartsTogetherMustFitTheSizeLimit) {
  const Split s = split(push_with_values());
  const std::size_t total = s.head.size() + s.values.size();
  EXPECT_EQ(rejection(s.head, s.values, FrameChecksum::kVerify, total), "<accepted>");
  EXPECT_NE(rejection(s.head, s.values, FrameChecksum::kVerify, total - 1).find("exceed the limit"),
            std::string::npos);
}

// `bytes` cut into pieces of the given sizes (the last takes the rest).
std::vector<std::span<const std::uint8_t>> cut(const std::vector<std::uint8_t>& bytes, std::vector<std::size_t> sizes) {
  std::vector<std::span<const std::uint8_t>> pieces;
  std::size_t at = 0;
  for (const std::size_t n : sizes) {
    pieces.emplace_back(bytes.data() + at, n);
    at += n;
  }
  if (at < bytes.size()) pieces.emplace_back(bytes.data() + at, bytes.size() - at);
  return pieces;
}

// What decode_split_gathering says about a values part cut into `pieces`; "<accepted>" when it
// takes them, and then `out` holds the message.
std::string gathering(const std::vector<std::uint8_t>& head, const std::vector<std::span<const std::uint8_t>>& pieces,
                      Message& out, FrameChecksum checksum = FrameChecksum::kVerify) {
  std::vector<float> gather;
  try {
    decode_split_gathering(head.data(), head.size(), pieces, gather, out, kDefaultMaxMessageBytes,
                           std::numeric_limits<std::uint64_t>::max(), checksum);
  } catch (const ProtocolError& e) {
    return e.what();
  }
  return "<accepted>";
}

TEST(SplitFrame, ValuesInPiecesAreGatheredIntoTheMessageWhereverCut) {
  const Message sent = push_with_values();  // 6 values, 24 bytes
  const Split s = split(sent);
  for (const auto& sizes : std::vector<std::vector<std::size_t>>{{}, {4}, {8, 8}, {4, 4, 4, 4, 4}, {20}}) {
    Message out;
    ASSERT_EQ(gathering(s.head, cut(s.values, sizes), out), "<accepted>") << sizes.size() << " cuts";
    EXPECT_EQ(out.values, sent.values);
    EXPECT_EQ(out.keys, sent.keys);
    EXPECT_EQ(out.lengths, sent.lengths);
    EXPECT_EQ(out.data, sent.data);
  }
  // Gathered into the receiver's spare vector, which the message then takes without a copy.
  std::vector<float> spare;
  spare.reserve(100);
  const float* where = spare.data();
  Message out;
  decode_split_gathering(s.head.data(), s.head.size(), cut(s.values, {8}), spare, out);
  EXPECT_EQ(out.values, sent.values);
  EXPECT_EQ(out.values.data(), where);
}

TEST(SplitFrame, AChangedByteInAnyPieceFailsTheChecksumUnlessSkipped) {
  // 100,000 values (400,000 bytes) in pieces of 256 KiB: longer than the stretch the decoder
  // copies and then hashes at a time (64 KiB), so changes land in every stretch of a piece.
  Message sent;
  sent.header.type = MsgType::kPush;
  for (int i = 0; i < 100'000; ++i) sent.values.push_back(static_cast<float>(i) * 0.25f);
  const Split s = split(sent);
  Message out;
  ASSERT_EQ(gathering(s.head, cut(s.values, {262'144}), out), "<accepted>");
  EXPECT_EQ(out.values, sent.values);
  for (const std::size_t at : {std::size_t{0}, std::size_t{65'535}, std::size_t{65'536}, std::size_t{200'000},
                               std::size_t{262'143}, std::size_t{262'144}, std::size_t{399'999}}) {
    std::vector<std::uint8_t> changed = s.values;
    changed[at] ^= 0x01;
    EXPECT_NE(gathering(s.head, cut(changed, {262'144}), out).find("checksum mismatch"), std::string::npos)
        << "byte " << at;
    // Skipped (CURVE, or nodes of one machine): taken as it came.
    const Split unchecked = split(sent, FrameChecksum::kSkip);
    changed = unchecked.values;
    changed[at] ^= 0x01;
    ASSERT_EQ(gathering(unchecked.head, cut(changed, {262'144}), out, FrameChecksum::kSkip), "<accepted>");
    EXPECT_NE(out.values, sent.values);
  }
  // Two pieces of one length swapped: same bytes, another order.
  std::vector<std::span<const std::uint8_t>> swapped = cut(s.values, {131'072, 131'072});
  std::swap(swapped[0], swapped[1]);
  EXPECT_NE(gathering(s.head, swapped, out).find("checksum mismatch"), std::string::npos);
}

TEST(SplitFrame, GatheringTakesPiecesAtAnyAddress) {
  // A piece that does not start at a float's alignment (ZeroMQ makes no promise) is copied as bytes.
  const Message sent = push_with_values();
  const Split s = split(sent);
  std::vector<std::uint8_t> shifted(s.values.size() + 1);
  std::memcpy(shifted.data() + 1, s.values.data(), s.values.size());
  const std::vector<std::span<const std::uint8_t>> pieces{{shifted.data() + 1, 8}, {shifted.data() + 9, 16}};
  Message out;
  ASSERT_EQ(gathering(s.head, pieces, out), "<accepted>");
  EXPECT_EQ(out.values, sent.values);
}

TEST(SplitFrame, GatheredPiecesMustBeWholeValuesAndAsLongAsTheHeaderSays) {
  const Split s = split(push_with_values());
  Message out;
  EXPECT_NE(gathering(s.head, cut(s.values, {6}), out).find("values piece 1 of 2 is 6 bytes, not a whole number"),
            std::string::npos)
      << gathering(s.head, cut(s.values, {6}), out);
  const std::vector<std::uint8_t> shorter(s.values.begin(), s.values.end() - 4);
  EXPECT_NE(gathering(s.head, cut(shorter, {8}), out).find("values part of 20 bytes, but the header says 6 values"),
            std::string::npos);
  EXPECT_NE(gathering(s.head, {}, out).find("values part of 0 bytes"), std::string::npos);
}

}  // namespace
}  // namespace pstwin

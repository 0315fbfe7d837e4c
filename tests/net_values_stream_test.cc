// Streamed values sections (net/values_stream.h, wire version 8), reassembled without sockets: a
// stream arrives whole, streams of two peers interleaved arrive whole each, and every broken stream
// (a new header before the end, a part without a header, of the wrong size or number, one too
// many, a corrupt part, a malformed announcement) is refused with a ProtocolError that names it,
// holding nothing back for a role.
#include "net/values_stream.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "tests/known_pushes.h"

namespace pstwin::net {
namespace {

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::size_t kValues = 100'000;  // 400,000 bytes: 6 parts of 65,536 bytes and one of 6,784

// A push from node 2 to node 1 whose values tell its tag (known_push).
Message push_of(std::size_t n, int tag = 0) { return pstwin::testing_support::known_push(n, tag, 2, 1); }

zmq::message_t copy_of(const zmq::message_t& m) { return zmq::message_t(m.data(), m.size()); }

// A message as its sender streams it: announcement, header part, and then per part its marker.
struct Stream {
  zmq::message_t announcement, head;
  std::vector<zmq::message_t> markers, parts;
};

Stream stream_of(const Message& m, FrameChecksum checksum = FrameChecksum::kVerify) {
  auto frames = std::make_shared<FramePool>();
  auto spare = std::make_shared<SpareValues>();
  OutgoingParts out = split_for_zmq(m, checksum, frames, spare, kChunk);
  EXPECT_TRUE(sent_as_stream(out));
  Stream s{announcement_of(out), copy_of(out.head), {}, {}};
  for (std::size_t i = 0; i < out.values.size(); ++i) {
    s.markers.push_back(part_marker(static_cast<std::uint32_t>(i + 1)));
    s.parts.push_back(copy_of(out.values[i]));  // copies: the sender's vector goes back to `spare`
  }
  return s;
}

class ValuesStream : public testing::Test {
 protected:
  std::shared_ptr<SpareValues> spare = std::make_shared<SpareValues>();
  ValuesReassembly streams{kDefaultMaxMessageBytes, spare};

  void start(NodeId peer, const Stream& s, FrameChecksum checksum = FrameChecksum::kVerify) {
    streams.start(peer, s.announcement, copy_of(s.head), checksum, -1);
  }
  // Adds parts [from, to) of `s`; the message if the last one completed it.
  std::optional<Message> add(NodeId peer, const Stream& s, std::size_t from, std::size_t to) {
    std::optional<Message> m;
    for (std::size_t i = from; i < to; ++i) {
      EXPECT_FALSE(m) << "a message before its last part";
      m = streams.add(peer, s.markers[i], s.parts[i], ~std::uint64_t{0});
    }
    return m;
  }
  // The ProtocolError's text that `f` throws ("" when none).
  template <typename F>
  static std::string refusal(F f) {
    try {
      f();
    } catch (const ProtocolError& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(ValuesStream, ArrivesWholeOnlyWithItsLastPart) {
  const Stream s = stream_of(push_of(kValues, 3));
  ASSERT_EQ(s.parts.size(), 7u);
  start(2, s);
  EXPECT_FALSE(add(2, s, 0, 6)) << "delivered before its last part";
  EXPECT_TRUE(streams.any_open());
  auto m = add(2, s, 6, 7);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(kValues, 3).values);
  EXPECT_EQ(m->header.clock, 3);
  EXPECT_FALSE(streams.any_open());
}

TEST_F(ValuesStream, TwoPeersInterleavedEachArriveWhole) {
  const Stream a = stream_of(push_of(kValues, 1)), b = stream_of(push_of(kValues, 2));
  start(2, a);
  start(3, b);
  for (std::size_t i = 0; i + 1 < a.parts.size(); ++i) {
    EXPECT_FALSE(add(3, b, i, i + 1));
    EXPECT_FALSE(add(2, a, i, i + 1));
  }
  auto mb = add(3, b, 6, 7);
  auto ma = add(2, a, 6, 7);
  ASSERT_TRUE(ma && mb);
  EXPECT_EQ(ma->values, push_of(kValues, 1).values);
  EXPECT_EQ(mb->values, push_of(kValues, 2).values);
}

TEST_F(ValuesStream, ReusedVectorsNeverLeakOneMessagesValuesIntoTheNext) {
  // Each message's vector goes back to the spare values, as a role recycles it, and the next is
  // gathered there: every one must hold its own values, none of the one before.
  for (int clock = 0; clock < 4; ++clock) {
    const Stream s = stream_of(push_of(kValues, clock));
    start(2, s);
    auto m = add(2, s, 0, s.parts.size());
    ASSERT_TRUE(m);
    EXPECT_EQ(m->values, push_of(kValues, clock).values) << "clock " << clock;
    spare->give(std::move(m->values));
  }
}

TEST_F(ValuesStream, ANewHeaderBeforeTheLastPartAbandonsTheOldMessage) {
  const Stream s = stream_of(push_of(kValues));
  start(2, s);
  (void)add(2, s, 0, 3);
  const auto lost = streams.abandon(2);
  ASSERT_TRUE(lost);
  EXPECT_EQ(*lost, "an unfinished message: 3 of its 7 values parts came");
  EXPECT_FALSE(streams.abandon(2));
  start(2, s);  // and the next arrives whole
  auto m = add(2, s, 0, 7);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(kValues).values);
}

TEST_F(ValuesStream, APartWithoutAHeaderIsRefused) {
  const Stream s = stream_of(push_of(kValues));
  EXPECT_EQ(refusal([&] { add(2, s, 0, 1); }), "values stream: values part 1 without a header message before it");
}

TEST_F(ValuesStream, APartOutOfTurnOrOneTooManyIsRefusedAndNothingIsHeld) {
  const Stream s = stream_of(push_of(kValues));
  start(2, s);
  (void)add(2, s, 0, 2);
  EXPECT_EQ(refusal([&] { add(2, s, 3, 4); }),
            "values stream: values part 4 of 7 came where part 3 was due (a part lost or repeated?)");
  EXPECT_FALSE(streams.any_open());
  // A part past the last: the message was delivered, so it has no header.
  start(2, s);
  ASSERT_TRUE(add(2, s, 0, 7));
  EXPECT_NE(refusal([&] { add(2, s, 6, 7); }).find("without a header"), std::string::npos);
}

TEST_F(ValuesStream, APartOfTheWrongSizeIsRefused) {
  const Stream s = stream_of(push_of(kValues));
  start(2, s);
  const zmq::message_t shorter(s.parts[0].data(), kChunk - 4);
  EXPECT_EQ(refusal([&] { streams.add(2, s.markers[0], shorter, ~std::uint64_t{0}); }),
            "values stream: values part 1 of 7 is 65532 bytes, announced 65536");
  EXPECT_FALSE(streams.any_open());
}

TEST_F(ValuesStream, ACorruptPartFailsTheChecksumOfTheWholeFrame) {
  Stream s = stream_of(push_of(kValues));
  static_cast<std::uint8_t*>(s.parts[4].data())[100] ^= 1;
  start(2, s);
  EXPECT_NE(refusal([&] { add(2, s, 0, 7); }).find("checksum mismatch"), std::string::npos);
  EXPECT_FALSE(streams.any_open());
  // Without a checksum (CURVE, nodes of one machine) the same frame decodes: what the pair skips.
  Stream plain = stream_of(push_of(kValues), FrameChecksum::kSkip);
  start(2, plain, FrameChecksum::kSkip);
  EXPECT_TRUE(add(2, plain, 0, 7));
}

TEST_F(ValuesStream, MalformedAnnouncementsAreRefusedNamingWhatIsWrong) {
  const Stream s = stream_of(push_of(kValues));
  // Announcement fields: parts at 4 (u32), part bytes at 8 (u64), total bytes at 16 (u64).
  const auto with = [&](std::size_t at, std::uint64_t v, std::size_t width) {
    zmq::message_t a = copy_of(s.announcement);
    std::memcpy(static_cast<std::uint8_t*>(a.data()) + at, &v, width);
    return refusal([&] { streams.start(2, a, copy_of(s.head), FrameChecksum::kVerify, -1); });
  };
  EXPECT_NE(with(4, 1, 4).find("a stream has 2 to 16384 parts"), std::string::npos);
  EXPECT_NE(with(4, 16385, 4).find("a stream has 2 to 16384 parts"), std::string::npos);
  EXPECT_NE(with(8, 65534, 8).find("a whole number of values"), std::string::npos);
  EXPECT_NE(with(8, 0, 8).find("a whole number of values"), std::string::npos);
  EXPECT_NE(with(16, 7 * kChunk + 4, 8).find("the parts cannot hold that many bytes"), std::string::npos);
  EXPECT_NE(with(16, 6 * kChunk, 8).find("the parts cannot hold that many bytes"), std::string::npos);
  // Consistent with itself, but not with the header part's value count.
  EXPECT_NE(with(16, 6 * kChunk + 8, 8).find("but the header part says 100000 values"), std::string::npos);
  // Over the receiver's limit.
  ValuesReassembly small(300'000, spare);
  EXPECT_NE(refusal([&] { small.start(2, s.announcement, copy_of(s.head), FrameChecksum::kVerify, -1); })
                .find("exceed the limit of 300000 bytes"),
            std::string::npos);
  // A header part that is not one.
  EXPECT_NE(refusal([&] { streams.start(2, s.announcement, zmq::message_t(10), FrameChecksum::kVerify, -1); })
                .find("header part: decode message: truncated"),
            std::string::npos);
  EXPECT_NE(refusal([&] { streams.start(2, zmq::message_t(20), copy_of(s.head), FrameChecksum::kVerify, -1); })
                .find("announcement of 20 bytes, expected 24"),
            std::string::npos);
  EXPECT_FALSE(streams.any_open());
}

TEST_F(ValuesStream, AClosedConnectionCutsOffItsPeersMessageOnlyAndItsQueuedPartsStillCount) {
  const Stream s = stream_of(push_of(kValues));
  streams.start(2, s.announcement, copy_of(s.head), FrameChecksum::kVerify, 17);
  streams.start(3, s.announcement, copy_of(s.head), FrameChecksum::kVerify, 18);
  streams.connection_closed(19);
  streams.connection_closed(-1);  // a descriptor ZeroMQ did not say
  EXPECT_TRUE(streams.cut_off().empty());
  streams.connection_closed(17);
  EXPECT_EQ(streams.cut_off(), std::vector<NodeId>{2});
  // Parts already queued still count: the message completes and is no longer cut off.
  auto m = add(2, s, 0, 7);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(kValues).values);
  EXPECT_TRUE(streams.cut_off().empty());
}

TEST(ValuesStreamFrames, FirstFramesAreToldApart) {
  EXPECT_EQ(stream_frame_of(part_marker(3)), StreamFrame::kValuesPart);
  EXPECT_EQ(stream_frame_of(zmq::message_t(std::string("PSTW...."))), StreamFrame::kMessage);
  EXPECT_EQ(stream_frame_of(zmq::message_t(std::string("PST"))), StreamFrame::kMessage);
  OutgoingParts two;
  two.values.emplace_back(kChunk);
  two.values.emplace_back(8);
  EXPECT_TRUE(sent_as_stream(two));
  EXPECT_EQ(stream_frame_of(announcement_of(two)), StreamFrame::kAnnouncement);
  two.values.back().rebuild(7);  // packed values of an odd length keep one multi-part message
  EXPECT_FALSE(sent_as_stream(two));
  OutgoingParts one;
  one.values.emplace_back(kChunk);
  EXPECT_FALSE(sent_as_stream(one));
}

}  // namespace
}  // namespace pstwin::net

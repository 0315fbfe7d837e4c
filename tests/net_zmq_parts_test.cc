// ZmqEnv's multi-part messages (net/zmq_parts.h): a header part and the values section, in one
// part or, when long, several (wire version 7). A peer that sends them in any other layout, or
// whose parts were lost, duplicated or reordered on the way, has its message dropped and counted,
// never assembled into wrong values, and the node carries on. A sender's values come back to its
// spare values only once ZeroMQ is done with every part.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "runtime/codec.h"
#include "runtime/errors.h"
#include "tests/zmq_scheduler_and_server.h"

namespace pstwin::net {
namespace {

// A push from the scheduler (node 0) to the server (node 1) with `n` values.
Message push_of(std::size_t n) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 0;
  m.header.receiver = 1;
  for (std::size_t i = 0; i < n; ++i) m.values.push_back(static_cast<float>(i) + 0.5f);
  return m;
}

// Its two parts, as a sender sends a values section of up to kValueChunkBytes.
std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> parts_of(const Message& m) {
  std::vector<std::uint8_t> values(values_section_size(m));
  write_values_section(m, values.data());
  std::vector<std::uint8_t> head(encoded_size(m) - values.size());
  encode_split_into(m, head.data(), head.size(), values.data());
  return {head, values};
}

constexpr std::size_t kValues = 100'000;   // 400,000 bytes of values
constexpr std::size_t kChunk = 64 * 1024;  // so 7 parts: 6 of 65,536 bytes and one of 6,784

// The header part of `m`, then its values section cut into parts of kChunk bytes, as a version 7
// sender sends a long one.
std::vector<std::vector<std::uint8_t>> chunked_parts_of(const Message& m) {
  const auto [head, values] = parts_of(m);
  std::vector<std::vector<std::uint8_t>> parts{head};
  for (std::size_t at = 0; at < values.size(); at += kChunk)
    parts.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(at),
                       values.begin() + static_cast<std::ptrdiff_t>(std::min(at + kChunk, values.size())));
  return parts;
}

class ZmqParts : public testing::Test {
 protected:
  // The scheduler listens on every interface (as under launch --hostfile), so its entry names no
  // machine and its frames with the server carry the checksum, as between two machines: what
  // catches two parts swapped (between nodes of one machine: tests/net_zmq_checksum_test.cc).
  void SetUp() override {
    nodes = std::make_unique<testing_support::SchedulerAndServer>("tcp://*:*");
    scheduler = nodes->scheduler.get();
    server = nodes->server.get();
  }

  void send(const std::vector<std::vector<std::uint8_t>>& parts) { nodes->send_as_scheduler(parts); }

  std::unique_ptr<testing_support::SchedulerAndServer> nodes;
  ZmqEnv* scheduler = nullptr;
  ZmqEnv* server = nullptr;
};

TEST_F(ZmqParts, AGoodTwoPartMessageArrivesWhole) {
  const auto [head, values] = parts_of(push_of(1000));
  send({head, values});
  auto m = server->recv(5.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(1000).values);
  EXPECT_EQ(server->rejected(), 0u);
}

TEST_F(ZmqParts, EveryOtherLayoutIsDroppedAndCounted) {
  const auto [head, values] = parts_of(push_of(1000));
  send({head});                              // a header without its values part
  std::vector<std::uint8_t> shorter(values.begin(), values.end() - 4);
  send({head, shorter});                     // a values part of another length than the header's
  send({head, values, {1, 2, 3}});           // an extra part: 3 bytes more than the header says
  send({encode(push_of(1000))});             // a whole frame, as version 5 sent it
  send({head, values});                      // and then a good one
  auto m = server->recv(5.0);
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->values, push_of(1000).values);
  EXPECT_EQ(server->rejected(), 4u);
}

TEST_F(ZmqParts, AVersion6MessageIsDroppedNamingBothVersions) {
  // A version 6 node sends the same frames, its values in one part: refused by its version byte,
  // so a job of mixed builds fails at registration rather than message by message.
  auto [head, values] = parts_of(push_of(1000));
  head[4] = 6;
  testing::internal::CaptureStderr();
  send({head, values});
  const auto [good_head, good_values] = parts_of(push_of(1000));
  send({good_head, good_values});
  auto m = server->recv(5.0);
  const std::string said = testing::internal::GetCapturedStderr();
  ASSERT_TRUE(m);
  EXPECT_EQ(server->rejected(), 1u);
  EXPECT_NE(said.find("unknown format version 6 (this build reads 8)"), std::string::npos) << said;
}

TEST_F(ZmqParts, LargeValuesTravelLentAndComeBackToTheSendersSpareValues) {
  // 200,000 values: above the size ZeroMQ is lent values at (kLentPartBytes).
  Message big = push_of(200'000);
  const float* lent = big.values.data();
  scheduler->send(1, std::move(big));
  auto m = server->recv(5.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(200'000).values);
  // ZeroMQ's I/O thread has given the vector back once sent: the sender's next message reuses it.
  std::vector<float> again;
  for (int i = 0; i < 500 && again.data() != lent; ++i) {
    if (again.capacity() > 0) scheduler->recycle_values(std::move(again));
    again = scheduler->reusable_values(200'000);
    if (again.data() != lent) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(again.data(), lent);
}

TEST_F(ZmqParts, AMessageInSevenPartsArrivesWhole) {
  const auto parts = chunked_parts_of(push_of(kValues));
  ASSERT_EQ(parts.size(), 1u + 7u);
  send(parts);
  auto m = server->recv(5.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(kValues).values);
  EXPECT_EQ(server->rejected(), 0u);
}

TEST_F(ZmqParts, LostDuplicatedOrReorderedPartsAreDroppedAndCountedNeverAssembled) {
  const auto good = chunked_parts_of(push_of(kValues));
  const auto without = [&](std::size_t i) {
    auto p = good;
    p.erase(p.begin() + static_cast<std::ptrdiff_t>(i));
    return p;
  };
  const auto doubled = [&](std::size_t i) {
    auto p = good;
    const auto again = good[i];
    p.insert(p.begin() + static_cast<std::ptrdiff_t>(i), again);
    return p;
  };
  const auto swapped = [&](std::size_t i, std::size_t j) {
    auto p = good;
    std::swap(p[i], p[j]);
    return p;
  };
  const std::size_t last = good.size() - 1;
  send(without(3));        // a middle part lost: 16,384 values short
  send(without(last));     // the last part lost
  send(doubled(2));        // a middle part twice
  send(doubled(last));     // the short last part twice: it is then not last
  send(swapped(2, 5));     // two full parts swapped: same lengths, only the checksum tells
  send(swapped(3, last));  // the short part in the middle
  auto cut = good;
  cut[4].resize(kChunk - 4);  // a part cut short by one value, and one value more in the last
  cut[last].insert(cut[last].end(), {0, 0, 0, 0});
  send(cut);
  send(good);  // and then a good one
  auto m = server->recv(5.0);
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->values, push_of(kValues).values);
  EXPECT_EQ(server->rejected(), 7u);
}

TEST(ValuePartsLayout, RulesNameThePartAndBothLengths) {
  const auto check = [](std::vector<std::size_t> sizes) {
    ReceivedParts parts;
    for (std::size_t s : sizes) parts.values.emplace_back(s);
    check_value_parts(parts);
  };
  EXPECT_NO_THROW(check({8, 8, 8, 3}));
  EXPECT_NO_THROW(check({8, 8, 8, 8}));
  EXPECT_NO_THROW(check({5}));  // one part: any length
  EXPECT_THROW(check({8, 4, 8, 3}), ProtocolError);
  EXPECT_THROW(check({8, 8, 0}), ProtocolError);
  EXPECT_THROW(check({8, 8, 12}), ProtocolError);
  EXPECT_THROW(check({6, 6, 2}), ProtocolError);  // not whole values, and more follow
  EXPECT_THROW(check({0}), ProtocolError);
  try {
    check({8, 8, 4, 8, 3});
    FAIL() << "accepted a short part in the middle";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("values part 3 of 5 is 4 bytes but part 1 is 8"), std::string::npos)
        << e.what();
  }
}

TEST(ValuePartsSender, CutsTheValuesInPlaceAndGivesThemBackAfterTheLastPart) {
  auto frames = std::make_shared<FramePool>();
  auto spare = std::make_shared<SpareValues>();
  Message m = push_of(kValues);
  const auto* lent = reinterpret_cast<const std::uint8_t*>(m.values.data());
  OutgoingParts parts = split_for_zmq(std::move(m), FrameChecksum::kVerify, frames, spare, kChunk);
  ASSERT_EQ(parts.values.size(), 7u);
  for (std::size_t i = 0; i < 7; ++i) {
    EXPECT_EQ(parts.values[i].data(), lent + i * kChunk) << "part " << i << " is a copy";
    EXPECT_EQ(parts.values[i].size(), i < 6 ? kChunk : kValues * 4 - 6 * kChunk);
  }
  // While any part is held by ZeroMQ the vector is not the spare's to hand out again.
  parts.values.erase(parts.values.begin(), parts.values.begin() + 6);
  EXPECT_EQ(spare->take(kValues).capacity(), 0u);
  parts.values.clear();
  EXPECT_EQ(reinterpret_cast<const std::uint8_t*>(spare->take(kValues).data()), lent);
}

TEST_F(ZmqParts, ALargePushBetweenEnvsArrivesWhole) {
  // 1,000,000 values: 4 parts of kValueChunkBytes, the last shorter.
  scheduler->send(1, push_of(1'000'000));
  auto m = server->recv(10.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(1'000'000).values);
  EXPECT_EQ(server->rejected(), 0u);
}

}  // namespace
}  // namespace pstwin::net

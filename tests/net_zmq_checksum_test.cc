// ZmqEnv's frame checksum per pair of nodes (ZmqEnv::checksum_with, net/pair_checksum.h): frames
// between nodes of one machine are taken without one, frames between machines are still checked
// (a changed byte is dropped and counted), and both ends of a pair, the scheduler's included,
// always decide alike, so that no frame is dropped for a checksum its sender never wrote.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "runtime/codec.h"
#include "tests/null_sink.h"
#include "tests/zmq_scheduler_and_server.h"

namespace pstwin::net {
namespace {

using pstwin::testing_support::NullSink;

constexpr const char* kLoopback = "tcp://127.0.0.1:*";
// A scheduler listening on every interface (launch --hostfile): its entry names no machine, so
// its frames keep the checksum, as between two machines.
constexpr const char* kEveryInterface = "tcp://*:*";

using Pair = testing_support::SchedulerAndServer;

Message push_of(std::size_t n, float first) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 0;
  m.header.receiver = 1;
  for (std::size_t i = 0; i < n; ++i) m.values.push_back(first + static_cast<float>(i));
  return m;
}

constexpr std::size_t kValues = 100'000;   // 400,000 bytes of values
constexpr std::size_t kChunk = 64 * 1024;  // in 7 parts, as a version 7 sender cuts a long one

// `m`'s header part with `checksum`, then its values in parts of kChunk bytes.
std::vector<std::vector<std::uint8_t>> parts_of(const Message& m, FrameChecksum checksum) {
  std::vector<std::uint8_t> values(values_section_size(m));
  write_values_section(m, values.data());
  std::vector<std::uint8_t> head(encoded_size(m) - values.size());
  encode_split_into(m, head.data(), head.size(), values.data(), checksum);
  std::vector<std::vector<std::uint8_t>> parts{head};
  for (std::size_t at = 0; at < values.size(); at += kChunk)
    parts.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(at),
                       values.begin() + static_cast<std::ptrdiff_t>(std::min(at + kChunk, values.size())));
  return parts;
}

TEST(ZmqChecksum, BetweenMachinesAChangedByteIsDroppedAndCounted) {
  Pair pair(kEveryInterface);
  ASSERT_EQ(pair.server->checksum_with(0), FrameChecksum::kVerify);
  auto in_the_values = parts_of(push_of(kValues, 0.5f), FrameChecksum::kVerify);
  in_the_values[4][1000] ^= 0x01;  // the least significant bit of one value in a middle part
  pair.send_as_scheduler(in_the_values);
  auto in_the_last = parts_of(push_of(kValues, 0.5f), FrameChecksum::kVerify);
  in_the_last.back().back() ^= 0x80;
  pair.send_as_scheduler(in_the_last);
  auto in_the_header = parts_of(push_of(kValues, 0.5f), FrameChecksum::kVerify);
  in_the_header[0][48] ^= 0x01;  // the clock
  pair.send_as_scheduler(in_the_header);
  pair.send_as_scheduler(parts_of(push_of(kValues, 0.5f), FrameChecksum::kSkip));  // none written
  pair.send_as_scheduler(parts_of(push_of(kValues, 2.5f), FrameChecksum::kVerify));
  auto m = pair.server->recv(5.0);
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->values, push_of(kValues, 2.5f).values);
  EXPECT_EQ(pair.server->rejected(), 4u);
}

TEST(ZmqChecksum, BetweenNodesOfOneMachineFramesAreTakenWithoutOne) {
  Pair pair(kLoopback);
  ASSERT_EQ(pair.server->checksum_with(0), FrameChecksum::kSkip);
  // As a node of this machine sends it: 0 in the checksum field, in several parts and in one.
  pair.send_as_scheduler(parts_of(push_of(kValues, 0.5f), FrameChecksum::kSkip));
  auto m = pair.server->recv(5.0);
  ASSERT_TRUE(m) << "a frame without checksum from a node of this machine was dropped";
  EXPECT_EQ(m->values, push_of(kValues, 0.5f).values);
  const auto small = parts_of(push_of(10, 1.5f), FrameChecksum::kSkip);
  ASSERT_EQ(small.size(), 2u);
  pair.send_as_scheduler(small);
  m = pair.server->recv(5.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(10, 1.5f).values);
  EXPECT_EQ(pair.server->rejected(), 0u);
}

TEST(ZmqChecksum, BothEndsOfEveryPairDecideAlikeTheSchedulersIncluded) {
  // The server dials the scheduler at 127.0.0.1 or localhost, but judges the pair by the entry the
  // scheduler wrote for itself, as the scheduler does: at "*" that names no machine, so both keep
  // the checksum; judged by its dial address, the server would write none and the scheduler drop
  // every frame it sent.
  for (const auto& [bind, dial] : std::vector<std::pair<std::string, std::string>>{
           {kEveryInterface, "127.0.0.1"}, {kEveryInterface, "localhost"}, {kLoopback, "localhost"}}) {
    Pair pair(bind, dial);
    const FrameChecksum expected = bind == kLoopback ? FrameChecksum::kSkip : FrameChecksum::kVerify;
    EXPECT_EQ(pair.server->checksum_with(0), expected) << bind << ", dialled at " << dial;
    EXPECT_EQ(pair.scheduler->checksum_with(1), expected) << bind << ", dialled at " << dial;
    // A large message each way (several parts, lent), and a small one.
    pair.scheduler->send(1, push_of(kValues, 0.5f));
    auto m = pair.server->recv(5.0);
    ASSERT_TRUE(m) << bind << ", dialled at " << dial;
    EXPECT_EQ(m->values, push_of(kValues, 0.5f).values);
    for (const std::size_t n : {kValues, std::size_t{3}}) {
      Message snapshot = push_of(n, 4.5f);
      snapshot.header.type = MsgType::kSnapshot;
      pair.server->send(0, snapshot);
      auto s = pair.scheduler->recv(5.0);
      ASSERT_TRUE(s) << "the scheduler dropped the server's frame: " << bind << ", dialled at " << dial;
      EXPECT_EQ(s->values, snapshot.values);
    }
    EXPECT_EQ(pair.server->rejected(), 0u);
    EXPECT_EQ(pair.scheduler->rejected(), 0u);
  }
}

TEST(ZmqChecksum, UnderCurveNoPairHasOne) {
  ZmqOptions o;
  o.keys = make_job_keys();
  NullSink sink;
  ZmqEnv env(o, 1, sink);
  EXPECT_EQ(env.checksum_with(0), FrameChecksum::kSkip) << "CURVE's tag covers every part";
  ZmqOptions insecure;
  ZmqEnv plain(insecure, 1, sink);
  EXPECT_EQ(plain.checksum_with(0), FrameChecksum::kVerify) << "before the address book, every pair keeps it";
}

}  // namespace
}  // namespace pstwin::net

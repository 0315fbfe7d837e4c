// ZmqEnv with streamed values sections (wire version 8, net/values_stream.h): a long values
// section goes as a header message and one message per values part, and the receiver assembles
// it per peer. A stream arrives whole, and only once its last part is in; a broken one (a new
// message before its last part, a part without its header, a sender whose connection closes
// mid-message) is dropped and counted and never reaches the role; under CURVE, where ZmqEnv sends
// streams, a large push arrives whole and reused vectors never leak one clock's values into the
// next.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "net/curve_keys.h"
#include "net/values_stream.h"
#include "tests/known_pushes.h"
#include "tests/time_scale.h"
#include "tests/zmq_scheduler_and_server.h"

namespace pstwin::net {
namespace {

using pstwin::testing_support::time_scale;
using Bytes = std::vector<std::uint8_t>;

constexpr std::size_t kChunk = 64 * 1024;
constexpr std::size_t kValues = 100'000;  // in kChunk parts: 7, the last of 6,784 bytes

// A push from the scheduler (node 0) to the server (node 1) whose values tell its tag (known_push).
Message push_of(std::size_t n, int tag = 0) { return pstwin::testing_support::known_push(n, tag, 0, 1); }

Bytes bytes_of(const zmq::message_t& m) {
  const auto* p = static_cast<const std::uint8_t*>(m.data());
  return Bytes(p, p + m.size());
}

// The ZeroMQ messages of `m` streamed in kChunk parts: the header message, then one per part.
std::vector<std::vector<Bytes>> stream_of(const Message& m, FrameChecksum checksum) {
  OutgoingParts out =
      split_for_zmq(m, checksum, std::make_shared<FramePool>(), std::make_shared<SpareValues>(), kChunk);
  std::vector<std::vector<Bytes>> messages{{bytes_of(announcement_of(out)), bytes_of(out.head)}};
  for (std::size_t i = 0; i < out.values.size(); ++i)
    messages.push_back({bytes_of(part_marker(static_cast<std::uint32_t>(i + 1))), bytes_of(out.values[i])});
  return messages;
}

class ZmqValuesStream : public testing::Test {
 protected:
  // The scheduler at "*": frames between the two carry the checksum, as between machines.
  void SetUp() override { nodes = std::make_unique<testing_support::SchedulerAndServer>("tcp://*:*"); }
  void send(const std::vector<std::vector<Bytes>>& messages, std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i) nodes->send_as_scheduler(messages[i]);
  }
  ZmqEnv& server() { return *nodes->server; }
  std::unique_ptr<testing_support::SchedulerAndServer> nodes;
};

TEST_F(ZmqValuesStream, AStreamArrivesWholeOnlyOnceItsLastPartIsIn) {
  const auto stream = stream_of(push_of(kValues, 5), FrameChecksum::kVerify);
  ASSERT_EQ(stream.size(), 1u + 7u);
  send(stream, 0, 7);  // the header message and six of the seven parts
  EXPECT_FALSE(server().recv(0.3)) << "a message reached the role before its last part";
  EXPECT_EQ(server().rejected(), 0u);
  send(stream, 7, 8);
  auto m = server().recv(5.0 * time_scale());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(kValues, 5).values);
  EXPECT_EQ(server().rejected(), 0u);
}

TEST_F(ZmqValuesStream, BrokenStreamsAreDroppedAndCountedAndTheNextMessageArrives) {
  const auto stream = stream_of(push_of(kValues, 1), FrameChecksum::kVerify);
  testing::internal::CaptureStderr();
  send(stream, 0, 4);          // a header message and three parts, then
  send(stream, 0, 1);          // a new header message: the first message is dropped
  send(stream, 5, 6);          // part 5 where part 1 is due: the second is dropped
  send(stream, 2, 3);          // a part with no header message before it
  send(stream, 0, 3);          // two parts, then a small message (header and values part)
  const OutgoingParts small = split_for_zmq(push_of(10, 2), FrameChecksum::kVerify, std::make_shared<FramePool>(),
                                            std::make_shared<SpareValues>());
  nodes->send_as_scheduler({bytes_of(small.head), bytes_of(small.values.at(0))});
  send(stream, 0, stream.size());  // and a good stream
  std::vector<Message> got;
  for (int i = 0; i < 2; ++i)
    if (auto m = server().recv(5.0 * time_scale())) got.push_back(std::move(*m));
  const std::string said = testing::internal::GetCapturedStderr();
  ASSERT_EQ(got.size(), 2u) << said;
  EXPECT_EQ(got[0].values, push_of(10, 2).values);
  EXPECT_EQ(got[1].values, push_of(kValues, 1).values);
  EXPECT_EQ(server().rejected(), 4u) << said;
  EXPECT_NE(said.find("an unfinished message: 3 of its 7 values parts came, and then a new message"),
            std::string::npos)
      << said;
  EXPECT_NE(said.find("values part 5 of 7 came where part 1 was due"), std::string::npos) << said;
  EXPECT_NE(said.find("values part 2 without a header message before it"), std::string::npos) << said;
  EXPECT_NE(said.find("an unfinished message: 2 of its 7 values parts came, and then a new message"),
            std::string::npos)
      << said;
}

TEST_F(ZmqValuesStream, ASenderWhoseConnectionClosesMidMessageHasItDroppedAndCounted) {
  const auto stream = stream_of(push_of(kValues), FrameChecksum::kVerify);
  send(stream, 0, 3);
  EXPECT_FALSE(server().recv(0.3));
  testing::internal::CaptureStderr();
  nodes->poser.close();
  // The server learns of the closed connection from its ROUTER's monitor, and drops the message
  // once a receive finds nothing more for its whole wait.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(10.0 * time_scale());
  while (server().rejected() == 0 && std::chrono::steady_clock::now() < deadline) EXPECT_FALSE(server().recv(0.1));
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(server().rejected(), 1u);
  EXPECT_NE(said.find("an unfinished message: 2 of its 7 values parts came before its connection closed"),
            std::string::npos)
      << said;
}

TEST_F(ZmqValuesStream, ASenderThatClosesRightAfterItsLastPartStillHasItsMessageTaken) {
  // A worker that exits right after its last push: ZeroMQ reports the closed connection before the
  // server has read the parts that connection had delivered, which must still complete it.
  const auto stream = stream_of(push_of(kValues, 4), FrameChecksum::kVerify);
  send(stream, 0, 3);
  EXPECT_FALSE(server().recv(0.3));  // the message is open, two parts in
  send(stream, 3, stream.size());
  nodes->poser.set(zmq::sockopt::linger, 5000);  // what is queued still goes out, then it closes
  nodes->poser.close();
  std::this_thread::sleep_for(std::chrono::duration<double>(0.3 * time_scale()));  // the close is reported
  auto m = server().recv(5.0 * time_scale());
  ASSERT_TRUE(m) << "the message was dropped for its closed connection";
  EXPECT_EQ(m->values, push_of(kValues, 4).values);
  EXPECT_EQ(server().rejected(), 0u);
}

// A scheduler and a server, under CURVE or --insecure: ZmqEnv streams long values sections in
// both.
struct NodePair {
  explicit NodePair(bool curve) {
    ZmqOptions o;
    if (curve) o.keys = make_job_keys();
    o.linger_s = 0;
    scheduler = std::make_unique<ZmqEnv>(o, 1, sink);
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 0, 10.0); });
    server->join(scheduler->endpoint(), "server", server->endpoint(), 10.0);
    hosting.get();
  }
  pstwin::testing_support::NullSink sink;
  std::unique_ptr<ZmqEnv> scheduler, server;
};

class ZmqValuesStreamModes : public testing::TestWithParam<bool> {};

TEST_P(ZmqValuesStreamModes, ALargePushArrivesWholeAsAStreamAndASmallOneAsOneMessage) {
  NodePair nodes(GetParam());
  nodes.scheduler->send(1, push_of(1'000'000, 3));  // 4 MB: four parts, each a message
  auto m = nodes.server->recv(10.0 * time_scale());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(1'000'000, 3).values);
  EXPECT_EQ(nodes.server->streams_taken(), 1u) << "the 4 MB push did not come as a stream";
  nodes.scheduler->send(1, push_of(200'000, 4));  // 800 kB: one part, one message
  m = nodes.server->recv(10.0 * time_scale());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values, push_of(200'000, 4).values);
  EXPECT_EQ(nodes.server->streams_taken(), 1u) << "a push of one values part came as a stream";
  EXPECT_EQ(nodes.server->rejected(), 0u);
}

TEST_P(ZmqValuesStreamModes, EveryClocksValuesArriveAsSentThroughReusedVectors) {
  // 300,000 values: 1.2 MB, two parts of kValueChunkBytes. The server gives each message's
  // vector back, so the next is gathered into it, and the sender's vectors come back from ZeroMQ
  // to be filled again: no clock may see another's values.
  NodePair nodes(GetParam());
  for (int clock = 0; clock < 5; ++clock) {
    Message push = push_of(300'000, clock);
    std::vector<float> reused = nodes.scheduler->reusable_values(300'000);
    reused.assign(push.values.begin(), push.values.end());
    push.values = std::move(reused);
    nodes.scheduler->send(1, std::move(push));
    auto m = nodes.server->recv(5.0 * time_scale());
    ASSERT_TRUE(m) << "clock " << clock;
    EXPECT_EQ(m->values, push_of(300'000, clock).values) << "clock " << clock;
    nodes.server->recycle_values(std::move(m->values));
  }
  EXPECT_EQ(nodes.server->streams_taken(), 5u);
  EXPECT_EQ(nodes.server->rejected(), 0u);
}

INSTANTIATE_TEST_SUITE_P(CurveAndInsecure, ZmqValuesStreamModes, testing::Values(true, false),
                         [](const testing::TestParamInfo<bool>& info) { return info.param ? "Curve" : "Insecure"; });

}  // namespace
}  // namespace pstwin::net

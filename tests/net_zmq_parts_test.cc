// ZmqEnv's two-part messages (net/zmq_parts.h, wire version 6): a header part and a values part.
// A peer that sends them in any other layout has its message dropped and counted, and the node
// carries on.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

#include "runtime/codec.h"
#include "tests/null_sink.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

// A push from the scheduler (node 0) to the server (node 1) with `n` values.
Message push_of(std::size_t n) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 0;
  m.header.receiver = 1;
  for (std::size_t i = 0; i < n; ++i) m.values.push_back(static_cast<float>(i) + 0.5f);
  return m;
}

// Its two parts, as a version 6 sender sends them.
std::pair<std::vector<std::uint8_t>, std::vector<std::uint8_t>> parts_of(const Message& m) {
  std::vector<std::uint8_t> values(values_section_size(m));
  write_values_section(m, values.data());
  std::vector<std::uint8_t> head(encoded_size(m) - values.size());
  encode_split_into(m, head.data(), head.size(), values.data());
  return {head, values};
}

class ZmqParts : public testing::Test {
 protected:
  void SetUp() override {
    ZmqOptions o;
    o.linger_s = 0;
    scheduler = std::make_unique<ZmqEnv>(o, 1, sink);
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 0, 10.0); });
    server->join(scheduler->endpoint(), "server", server->endpoint(), 10.0);
    hosting.get();
  }

  // Sends `parts` as one message from a socket posing as the scheduler (identity n0), so they get
  // past the identity check (the scheduler itself then cannot connect: the identity is taken).
  void send(const std::vector<std::vector<std::uint8_t>>& parts) {
    if (!posing) {
      poser.set(zmq::sockopt::routing_id, "n0");
      poser.set(zmq::sockopt::linger, 0);
      poser.connect(server->endpoint());
      posing = true;
    }
    for (std::size_t i = 0; i < parts.size(); ++i)
      poser.send(zmq::buffer(parts[i]), i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }

  NullSink sink;
  std::unique_ptr<ZmqEnv> scheduler, server;
  zmq::context_t ctx;
  zmq::socket_t poser{ctx, zmq::socket_type::dealer};
  bool posing = false;
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
  send({head, values, {1, 2, 3}});           // an extra part
  send({encode(push_of(1000))});             // a whole frame, as version 5 sent it
  send({head, values});                      // and then a good one
  auto m = server->recv(5.0);
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->values, push_of(1000).values);
  EXPECT_EQ(server->rejected(), 4u);
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

}  // namespace
}  // namespace pstwin::net

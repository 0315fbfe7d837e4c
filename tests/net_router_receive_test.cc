// receive_routed (net/router_receive.h): the blocking receive under ZmqEnv's data path returns a
// message as soon as it is there, however long the timeout, and counts its frames.
#include "net/router_receive.h"

#include <gtest/gtest.h>

#include <future>
#include <string>

namespace pstwin::net {
namespace {

// A ROUTER on loopback TCP and a DEALER connected to it, identity "n5", as ZmqEnv sets them up.
struct Pair {
  Pair() {
    router.bind("tcp://127.0.0.1:*");
    dealer.set(zmq::sockopt::routing_id, "n5");
    dealer.connect(router.get(zmq::sockopt::last_endpoint));
  }
  zmq::context_t ctx;
  zmq::socket_t router{ctx, zmq::socket_type::router};
  zmq::socket_t dealer{ctx, zmq::socket_type::dealer};
};

constexpr double kAnHour = 3600.0;  // a test that waited this out would fail on ctest's timeout

TEST(RouterReceive, TakesAQueuedMessageAtOnce) {
  Pair p;
  p.dealer.send(zmq::str_buffer("push"), zmq::send_flags::none);
  auto m = receive_routed(p.router, kAnHour);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->identity.to_string(), "n5");
  EXPECT_EQ(m->payload.to_string(), "push");
  EXPECT_EQ(m->frames, 1u);
}

TEST(RouterReceive, WakesForAMessageSentWhileItWaits) {
  Pair p;
  // The receive starts first and must block (not return empty) until the message arrives, then
  // return it without waiting out its hour.
  auto waiting = std::async(std::launch::async, [&] { return receive_routed(p.router, kAnHour); });
  p.dealer.send(zmq::str_buffer("pull reply"), zmq::send_flags::none);
  auto m = waiting.get();
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->payload.to_string(), "pull reply");
}

TEST(RouterReceive, ReturnsNothingWhenTheTimeIsUp) {
  Pair p;
  EXPECT_FALSE(receive_routed(p.router, 0.0).has_value());
  EXPECT_FALSE(receive_routed(p.router, 0.0004).has_value());  // rounded up to 1 ms, still empty
}

TEST(RouterReceive, KeepsUpToMaxFramesAndCountsTheRest) {
  Pair p;
  p.dealer.send(zmq::str_buffer("first"), zmq::send_flags::sndmore);
  p.dealer.send(zmq::str_buffer("second"), zmq::send_flags::sndmore);
  p.dealer.send(zmq::str_buffer("third"), zmq::send_flags::sndmore);
  p.dealer.send(zmq::str_buffer("fourth"), zmq::send_flags::none);
  p.dealer.send(zmq::str_buffer("next"), zmq::send_flags::none);
  auto m = receive_routed(p.router, kAnHour, 3);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->payload.to_string(), "first");
  ASSERT_EQ(m->rest.size(), 2u);  // max_frames 3: the fourth frame is counted, not kept
  EXPECT_EQ(m->rest[0].to_string(), "second");
  EXPECT_EQ(m->rest[1].to_string(), "third");
  EXPECT_EQ(m->frames, 4u);
  // The extra frames were consumed: the next receive is the next message.
  auto next = receive_routed(p.router, kAnHour);
  ASSERT_TRUE(next.has_value());
  EXPECT_EQ(next->payload.to_string(), "next");
  EXPECT_TRUE(next->rest.empty());
  EXPECT_EQ(next->frames, 1u);
}

TEST(RouterReceive, AnEmptyMessageIsOneEmptyFrame) {
  // A ROUTER hands every message over with its identity first; an empty DEALER message is one
  // empty frame, so frames is 1 with an empty payload.
  Pair p;
  p.dealer.send(zmq::message_t(), zmq::send_flags::none);
  auto m = receive_routed(p.router, kAnHour);
  ASSERT_TRUE(m.has_value());
  EXPECT_EQ(m->frames, 1u);
  EXPECT_EQ(m->payload.size(), 0u);
}

}  // namespace
}  // namespace pstwin::net

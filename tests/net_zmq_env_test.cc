// ZmqEnv on loopback: rendezvous, wire safety against garbage, and CURVE membership.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include "tests/null_sink.h"

#include <future>
#include <random>

#include "runtime/codec.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

// A scheduler and one server that completed the rendezvous.
struct TwoNodes {
  explicit TwoNodes(const std::optional<CurveKeys>& keys) {
    ZmqOptions o;
    o.keys = keys;
    o.linger_s = 0;
    scheduler = std::make_unique<ZmqEnv>(o, 1, sink);
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 0, 10.0); });
    server->join(scheduler->endpoint(), "server", server->endpoint(), 10.0);
    hosting.get();
  }
  NullSink sink;
  std::unique_ptr<ZmqEnv> scheduler, server;
};

Message stop_from_scheduler() {
  Message m;
  m.header.type = MsgType::kStop;
  m.header.sender = 0;
  m.header.receiver = 1;
  return m;
}

zmq::socket_t dealer(zmq::context_t& ctx, const std::string& identity) {
  zmq::socket_t s(ctx, zmq::socket_type::dealer);
  s.set(zmq::sockopt::routing_id, identity);
  s.set(zmq::sockopt::linger, 0);
  return s;
}

TEST(ZmqEnv, RendezvousGivesIdsAndAnAddressBook) {
  TwoNodes nodes(std::nullopt);
  EXPECT_EQ(nodes.scheduler->self(), 0u);
  EXPECT_EQ(nodes.server->self(), 1u);
  ASSERT_EQ(nodes.server->address_book().size(), 2u);
  EXPECT_EQ(nodes.server->address_book()[1], nodes.server->endpoint());
  // A real message each way.
  nodes.scheduler->send(1, stop_from_scheduler());
  auto m = nodes.server->recv(5.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->header.type, MsgType::kStop);
  EXPECT_EQ(m->header.sender, 0u);
}

TEST(ZmqEnv, ThousandsOfGarbageFramesAreDroppedAndTheNodeCarriesOn) {
  TwoNodes nodes(std::nullopt);
  zmq::context_t ctx;
  // Posing as the scheduler (identity n0), so frames get past the identity check to the decoder.
  auto fuzzer = dealer(ctx, "n0");
  fuzzer.connect(nodes.server->endpoint());
  std::mt19937 rng(12345);
  const std::vector<std::uint8_t> good = encode(stop_from_scheduler());
  constexpr int kFrames = 3000;
  for (int i = 0; i < kFrames; ++i) {
    std::vector<std::uint8_t> frame;
    switch (i % 4) {
      case 0:  // random bytes of random length
        frame.resize(rng() % 300);
        for (auto& b : frame) b = static_cast<std::uint8_t>(rng());
        break;
      case 1:  // a valid message with one byte changed
        frame = good;
        frame[rng() % frame.size()] ^= static_cast<std::uint8_t>(1 + rng() % 255);
        break;
      case 2:  // a valid message cut short
        frame.assign(good.begin(), good.begin() + static_cast<long>(rng() % good.size()));
        break;
      case 3: {  // a valid message that lies about who sent it
        Message m = stop_from_scheduler();
        m.header.sender = 1 + rng() % 5;
        frame = encode(m);
        break;
      }
    }
    fuzzer.send(zmq::buffer(frame), zmq::send_flags::none);
  }
  fuzzer.send(zmq::buffer(good), zmq::send_flags::none);
  auto m = nodes.server->recv(10.0);
  ASSERT_TRUE(m) << "the good message after the garbage did not arrive";
  EXPECT_EQ(m->header.type, MsgType::kStop);
  EXPECT_EQ(nodes.server->rejected(), static_cast<std::uint64_t>(kFrames));
}

TEST(ZmqEnv, UnknownIdentitiesAreDropped) {
  TwoNodes nodes(std::nullopt);
  zmq::context_t ctx;
  auto stranger = dealer(ctx, "n77");
  stranger.connect(nodes.server->endpoint());
  const auto bytes = encode(stop_from_scheduler());
  stranger.send(zmq::buffer(bytes), zmq::send_flags::none);
  EXPECT_FALSE(nodes.server->recv(0.5));
  EXPECT_EQ(nodes.server->rejected(), 1u);
}

TEST(ZmqEnv, OversizedMessagesNeverReachTheNode) {
  ZmqOptions o;
  o.max_message_bytes = 4096;
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink), server(o, 1, sink);
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 0, 10.0); });
  server.join(scheduler.endpoint(), "server", server.endpoint(), 10.0);
  hosting.get();
  zmq::context_t ctx;
  auto big = dealer(ctx, "n5");
  big.connect(server.endpoint());
  Message m = stop_from_scheduler();
  m.values.assign(10000, 1.0f);  // 40 KB > 4 KB
  const auto bytes = encode(m);
  big.send(zmq::buffer(bytes), zmq::send_flags::none);
  EXPECT_FALSE(server.recv(0.5));
  // Dropped by the transport's size limit before any decoding: the node never saw it.
  EXPECT_EQ(server.rejected(), 0u);
  // The node still works for everyone else.
  scheduler.send(1, stop_from_scheduler());
  EXPECT_TRUE(server.recv(5.0));
}

TEST(ZmqEnv, OnlyHoldersOfTheJobKeyCanConnect) {
  const CurveKeys job = make_job_keys();
  TwoNodes nodes(job);
  zmq::context_t ctx;
  const CurveKeys other = make_job_keys();
  auto intruder = dealer(ctx, "n0");
  intruder.set(zmq::sockopt::curve_serverkey, job.public_z85);  // the public key is no secret
  intruder.set(zmq::sockopt::curve_publickey, other.public_z85);
  intruder.set(zmq::sockopt::curve_secretkey, other.secret_z85);
  intruder.connect(nodes.server->endpoint());
  const auto bytes = encode(stop_from_scheduler());
  intruder.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  EXPECT_FALSE(nodes.server->recv(1.0));
  EXPECT_GE(nodes.server->refused_connections(), 1u);
  // Without any credentials the CURVE handshake cannot even start.
  auto plain = dealer(ctx, "n0");
  plain.connect(nodes.server->endpoint());
  plain.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  EXPECT_FALSE(nodes.server->recv(0.5));
  // The job's own scheduler still gets through.
  nodes.scheduler->send(1, stop_from_scheduler());
  EXPECT_TRUE(nodes.server->recv(5.0));
}

TEST(ZmqEnv, ANodeTooManyIsTurnedAwayWithAReason) {
  TwoNodes nodes(std::nullopt);  // the job: a scheduler and one server, already started
  NullSink sink;
  ZmqEnv extra(ZmqOptions{}, 1, sink);
  auto serving = std::async(std::launch::async, [&] { return nodes.scheduler->recv(2.0); });
  try {
    extra.join(nodes.scheduler->endpoint(), "server", extra.endpoint(), 5.0);
    FAIL() << "an extra server joined";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("turned this node away: the job has already started"),
              std::string::npos)
        << e.what();
  }
  EXPECT_FALSE(serving.get());
}

TEST(ZmqEnv, SchedulerWaitsOnlyAsLongAsItsTimeout) {
  NullSink sink;
  ZmqEnv scheduler(ZmqOptions{}, 1, sink);
  try {
    scheduler.host_registration(2, 3, 0.3);
    FAIL() << "registration should time out";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("only 0 of 2 servers and 0 of 3 workers registered"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace pstwin::net

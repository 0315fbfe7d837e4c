// ZmqEnv on loopback: rendezvous (IPv4 and IPv6), wire safety against garbage, CURVE membership,
// and a message of its own for each reason a node cannot listen or join.
#include "net/zmq_env.h"

#include <gtest/gtest.h>

#include "tests/null_sink.h"

#include <fstream>
#include <future>
#include <random>

#include "net/handshake_watch.h"
#include "net/job_fingerprint.h"
#include "net/tcp_address.h"

#include "runtime/codec.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

// A scheduler and one server that completed the rendezvous, taking messages of at most
// `max_message_bytes`. The scheduler listens at `scheduler_bind`: on loopback, as under launch,
// the two are nodes of one machine and their frames carry no checksum; at "*" (launch
// --hostfile) its entry names no machine, so they carry one, as between machines.
struct TwoNodes {
  explicit TwoNodes(const std::optional<CurveKeys>& keys, std::size_t max_message_bytes = kDefaultMaxMessageBytes,
                    const std::string& scheduler_bind = "tcp://127.0.0.1:*") {
    ZmqOptions o;
    o.keys = keys;
    o.linger_s = 0;
    o.max_message_bytes = max_message_bytes;
    ZmqOptions at = o;
    at.bind_endpoint = scheduler_bind;
    scheduler = std::make_unique<ZmqEnv>(at, 1, sink);
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 0, 10.0); });
    server->join("tcp://127.0.0.1:" + parse_tcp_endpoint(scheduler->endpoint()).port, "server", server->endpoint(),
                 10.0);
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
  // Frames that carry the checksum (see TwoNodes), so that a changed byte anywhere is caught.
  TwoNodes nodes(std::nullopt, kDefaultMaxMessageBytes, "tcp://*:*");
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

TEST(ZmqEnv, AnOversizedMessageIsDroppedCountedAndSaidWithItsSizeAndSender) {
  TwoNodes nodes(std::nullopt, 4096);
  zmq::context_t ctx;
  auto big = dealer(ctx, "n5");  // no node of this job: sized before anything else
  big.connect(nodes.server->endpoint());
  Message m = stop_from_scheduler();
  m.values.assign(1500, 1.0f);  // 6000-odd bytes: over 4096, under ZeroMQ's own cut at twice that
  const auto bytes = encode(m);
  big.send(zmq::buffer(bytes), zmq::send_flags::none);
  testing::internal::CaptureStderr();
  EXPECT_FALSE(nodes.server->recv(0.5));
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_EQ(nodes.server->rejected(), 1u);
  EXPECT_NE(said.find("dropped a message from n5: " + std::to_string(bytes.size()) +
                      " bytes, over the 4096-byte message limit"),
            std::string::npos)
      << said;
  // The node still works for everyone else.
  nodes.scheduler->send(1, stop_from_scheduler());
  EXPECT_TRUE(nodes.server->recv(5.0));
}

TEST(ZmqEnv, ASenderRefusesAMessageOverTheLimitNamingIt) {
  TwoNodes nodes(std::nullopt, 4096);
  Message m = stop_from_scheduler();
  m.header.range = 3;
  m.values.assign(2000, 1.0f);
  const auto sent = nodes.scheduler->messages_sent();
  try {
    nodes.scheduler->send(1, m);
    FAIL() << "an oversized message was sent";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("node 0: will not send a stop of key range 3 to node 1: " +
                                         std::to_string(encoded_size(m)) + " bytes, over the 4096-byte"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(nodes.scheduler->messages_sent(), sent);
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

TEST(ZmqEnv, AMalformedFingerprintIsRefusedAndCountedNamingWhatIsWrong) {
  NullSink sink;
  ZmqEnv scheduler(ZmqOptions{}, 1, sink);
  RendezvousRules rules;
  rules.connect_timeout_s = 1.0;
  rules.fingerprint = job_fingerprint({{"scenario", {{"name", "x"}}}, {"variant", "bsp"}});
  auto hosting = std::async(std::launch::async, [&] {
    try {
      scheduler.host_registration(0, 1, rules);
    } catch (const std::runtime_error&) {
    }
  });
  zmq::context_t ctx;
  auto s = dealer(ctx, "r42");
  s.connect(scheduler.endpoint());
  Message reg;
  reg.header.type = MsgType::kRegister;
  reg.data = R"({"role": "worker", "address": "tcp://127.0.0.1:1", "fingerprint": {"sha256": 7}})";
  const auto bytes = encode(reg);
  s.send(zmq::buffer(bytes), zmq::send_flags::none);
  zmq::pollitem_t item{s.handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, std::chrono::milliseconds(5000));
  zmq::message_t frame;
  ASSERT_TRUE(s.recv(frame, zmq::recv_flags::dontwait));
  const Message reply = decode(static_cast<const std::uint8_t*>(frame.data()), frame.size());
  EXPECT_EQ(reply.header.type, MsgType::kAddressBook);
  EXPECT_NE(reply.data.find("kRegister: malformed fingerprint: \\\"sha256\\\""), std::string::npos)
      << reply.data;
  hosting.get();
  EXPECT_EQ(scheduler.rejected(), 1u);
}

TEST(ZmqEnv, SchedulerWaitsOnlyAsLongAsItsTimeout) {
  NullSink sink;
  ZmqEnv scheduler(ZmqOptions{}, 1, sink);
  try {
    scheduler.host_registration(2, 3, 0.3);
    FAIL() << "registration should time out";
  } catch (const std::runtime_error& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("only 0 of 2 servers and 0 of 3 workers registered"), std::string::npos) << what;
    // Who is missing, by role and index, and what gives them more time.
    EXPECT_NE(what.find("missing: server:0-1, worker:0-2"), std::string::npos) << what;
    EXPECT_NE(what.find("--connect-timeout"), std::string::npos) << what;
  }
}

bool has_ipv6_loopback() {
  std::ifstream interfaces("/proc/net/if_inet6");
  std::string line;
  while (std::getline(interfaces, line))
    if (line.rfind("00000000000000000000000000000001", 0) == 0) return true;
  return false;
}

/// The message of the std::runtime_error `f` throws ("" when it throws none).
template <typename F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(ZmqEnv, AJobRunsOverIpv6WithCurveAndHeartbeats) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback (::1) on this machine";
  ZmqOptions o;
  o.keys = make_job_keys();
  o.linger_s = 0;
  o.bind_endpoint = "tcp://[::1]:*";
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink), server(o, 1, sink);
  EXPECT_EQ(scheduler.endpoint().rfind("tcp://[::1]:", 0), 0u) << scheduler.endpoint();
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 0, 10.0); });
  server.join(scheduler.endpoint(), "server", server.advertised("::1"), 10.0);
  hosting.get();
  EXPECT_EQ(server.self(), 1u);
  EXPECT_EQ(server.layout(), (JobLayout{1, 0}));
  EXPECT_EQ(scheduler.address_book().at(1), server.endpoint());
  // Data both ways (the ROUTERs and the DEALERs), and the heartbeat thread's own connection.
  scheduler.send(1, stop_from_scheduler());
  ASSERT_TRUE(server.recv(5.0));
  Message hello;
  hello.header.type = MsgType::kWorkerDone;
  server.send(0, hello);
  auto got = scheduler.recv(5.0);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->header.type, MsgType::kWorkerDone);
  server.start_heartbeats(0.01);
  got = scheduler.recv(5.0);
  ASSERT_TRUE(got);
  EXPECT_EQ(got->header.type, MsgType::kHeartbeat);
  EXPECT_EQ(got->header.sender, 1u);
  server.stop_heartbeats();
}

TEST(ZmqEnv, EachReasonNotToListenHasItsOwnMessage) {
  NullSink sink;
  auto listen_at = [&](const std::string& endpoint) {
    return error_of([&] {
      ZmqOptions o;
      o.bind_endpoint = endpoint;
      ZmqEnv env(o, 1, sink);
    });
  };
  EXPECT_EQ(listen_at("tcp://::1:5570"),
            "cannot listen at tcp://::1:5570: put IPv6 literals in brackets, as in tcp://[::1]:5570");
  EXPECT_EQ(listen_at("tcp://nosuchhost.invalid:*").rfind(
                "cannot listen at tcp://nosuchhost.invalid:*: cannot resolve host nosuchhost.invalid (", 0),
            0u);
  // 203.0.113.0/24 is reserved for documentation: no machine has it.
  EXPECT_EQ(listen_at("tcp://203.0.113.7:*"),
            "cannot listen at tcp://203.0.113.7:*: 203.0.113.7 is not an address of this machine");
  ZmqOptions o;
  ZmqEnv first(o, 1, sink);
  EXPECT_EQ(listen_at(first.endpoint()), "cannot listen at " + first.endpoint() +
                                             ": address already in use (another job or node is there)");
  EXPECT_EQ(listen_at("tcp://localhost:*").rfind("cannot listen", 0), std::string::npos)
      << "a host name is listened at at its address";
}

TEST(ZmqEnv, EachReasonNotToJoinHasItsOwnMessage) {
  NullSink sink;
  const CurveKeys job = make_job_keys();
  ZmqOptions keyed;
  keyed.keys = job;
  ZmqEnv scheduler(keyed, 1, sink);  // never hosts: registrations go unanswered
  auto join_with = [&](const std::optional<CurveKeys>& keys, const std::string& at, double timeout_s) {
    return error_of([&] {
      ZmqOptions o;
      o.keys = keys;
      ZmqEnv node(o, 1, sink);
      node.join(at, "worker", node.endpoint(), timeout_s);
    });
  };
  const std::string at = scheduler.endpoint();
  EXPECT_EQ(join_with(make_job_keys(), at, 10.0),
            "the scheduler at " + at + " broke off the handshake 3 times: it holds another key pair "
            "than this node (every node needs the job's key file)");
  // ZeroMQ reports the mechanism mismatch and the disconnections in either order; on a loaded
  // machine the third disconnection may come first. Both messages point at the cause.
  const std::string insecure = join_with(std::nullopt, at, 10.0);
  EXPECT_TRUE(insecure == "the scheduler at " + at + " and this node disagree on security: one of "
                          "them runs with --insecure and the other with a key file" ||
              insecure == "the scheduler at " + at + " broke off the handshake 3 times (is a pstwin "
                          "scheduler of this job listening there?)")
      << insecure;
  EXPECT_EQ(join_with(job, at, 0.5), "cannot reach the scheduler at " + at +
                                          " within 0.5 s: it accepted the connection but did not "
                                          "answer the registration");
  EXPECT_EQ(join_with(job, "tcp://127.0.0.1:9", 0.5),
            "cannot reach the scheduler at tcp://127.0.0.1:9 within 0.5 s: nothing accepted a "
            "connection there (is it running, at that address?)");
  EXPECT_EQ(join_with(job, "tcp://nosuchhost.invalid:5570", 5.0)
                .rfind("cannot reach the scheduler at tcp://nosuchhost.invalid:5570: cannot resolve "
                       "host nosuchhost.invalid (", 0),
            0u);
}

TEST(HandshakeWatch, AKeyTheJobsAuthenticationRefusesIsToldApart) {
  NullSink sink;
  const CurveKeys job = make_job_keys(), other = make_job_keys();
  ZmqOptions o;
  o.keys = job;
  ZmqEnv server(o, 1, sink);
  zmq::context_t ctx;
  auto intruder = dealer(ctx, "r1");
  intruder.set(zmq::sockopt::curve_serverkey, job.public_z85);  // the public key is no secret
  intruder.set(zmq::sockopt::curve_publickey, other.public_z85);
  intruder.set(zmq::sockopt::curve_secretkey, other.secret_z85);
  HandshakeWatch watch(ctx, intruder, "intruder");
  intruder.connect(server.endpoint());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!watch.refused() && std::chrono::steady_clock::now() < deadline) {
    zmq::pollitem_t item{watch.events().handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::chrono::milliseconds(100));
    watch.update();
  }
  EXPECT_EQ(watch.outcome(), HandshakeWatch::Outcome::kKeyRefused);
}

}  // namespace
}  // namespace pstwin::net

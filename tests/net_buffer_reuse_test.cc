// Reused buffers on the hot path (net/frame_pool.h, the spare values of InprocEnv and ZmqEnv)
// never carry one clock's values into the next: every message of a run of pushes and replies of
// changing sizes arrives with exactly the values sent, over each transport (UCX included).
#include <gtest/gtest.h>

#include <future>
#include <memory>

#include "net/curve_keys.h"
#include "net/frame_pool.h"
#include "net/ucx_data_plane.h"
#include "net/inproc_env.h"
#include "net/span_forwarding.h"
#include "net/zmq_env.h"
#include "runtime/codec.h"
#include "tests/null_sink.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

// Sizes chosen so a reused buffer is sometimes larger than the message it carries: a stale tail
// would show as extra values. Some are above ZmqEnv's lent-frame size, some below.
constexpr std::size_t kSizes[] = {200'000, 17, 100'000, 300'000, 5, 70'000, 300'000, 0};
constexpr int kClocks = 16;

// The distinct, exactly representable value `i` of clock `clock` sent by `who` (0 or 1).
float value(int who, int clock, std::size_t i) {
  return static_cast<float>((who ? -1 : 1) * (clock * 1'000'000 + static_cast<long>(i) + 1));
}

Message push_of(int who, int clock) {
  Message m;
  m.header.type = who ? MsgType::kPullReply : MsgType::kPush;
  m.header.clock = clock;
  const std::size_t n = kSizes[(clock + who) % std::size(kSizes)];
  m.values.resize(n);
  for (std::size_t i = 0; i < n; ++i) m.values[i] = value(who, clock, i);
  return m;
}

// Checks that `m` is exactly push_of(who, clock); reports the first wrong value.
void expect_exact(const std::optional<Message>& m, int who, int clock) {
  ASSERT_TRUE(m) << "clock " << clock << ": nothing arrived";
  EXPECT_EQ(m->header.clock, clock);
  const std::size_t n = kSizes[(clock + who) % std::size(kSizes)];
  ASSERT_EQ(m->values.size(), n) << "clock " << clock;
  for (std::size_t i = 0; i < n; ++i)
    ASSERT_EQ(m->values[i], value(who, clock, i)) << "clock " << clock << ", value " << i;
}

// Node a pushes two clocks before b answers either, so two frames are in flight at once, then b
// answers each; every message is checked value by value.
void exchange(Env& a, Env& b, NodeId a_id, NodeId b_id) {
  for (int clock = 0; clock < kClocks; clock += 2) {
    a.send(b_id, push_of(0, clock));
    a.send(b_id, push_of(0, clock + 1));
    for (int c = clock; c < clock + 2; ++c) {
      expect_exact(b.recv(10.0), 0, c);
      b.send(a_id, push_of(1, c));
    }
    for (int c = clock; c < clock + 2; ++c) expect_exact(a.recv(10.0), 1, c);
  }
}

TEST(BufferReuse, InprocValuesNeverLeakFromOneClockIntoTheNext) {
  InprocNetwork net(2);
  NullSink sink;
  const auto start = std::chrono::steady_clock::now();
  const JobLayout layout{1, 0};
  InprocEnv a(net, layout, 0, 7, sink, start), b(net, layout, 1, 7, sink, start);
  exchange(a, b, 0, 1);
}

TEST(BufferReuse, InprocHandsTheSendersValuesOverWithoutACopy) {
  InprocNetwork net(2);
  NullSink sink;
  const auto start = std::chrono::steady_clock::now();
  const JobLayout layout{1, 0};
  InprocEnv a(net, layout, 0, 7, sink, start), b(net, layout, 1, 7, sink, start);
  Message push = push_of(0, 0);
  const float* sent = push.values.data();
  const std::uint64_t size = encoded_size(push);
  a.send(1, std::move(push));
  auto got = b.recv(1.0);
  expect_exact(got, 0, 0);
  EXPECT_EQ(got->values.data(), sent) << "the values were copied on the way";
  EXPECT_EQ(got->header.sender, 0u);
  EXPECT_EQ(got->header.receiver, 1u);
  // Counted as the codec sizes it, as if it had been encoded.
  EXPECT_EQ(net.bytes_sent(), size);
  EXPECT_EQ(net.messages_sent(), 1u);
}

TEST(BufferReuse, ALaunchedRolesRecycledValuesReachItsNodesTransport) {
  // A launched server or worker runs in a SpanForwardingEnv around its node's env: the vectors
  // it recycles must come back from the node's spare values, where its transport receives the
  // next message (the memory of a pull reply is the next one's).
  InprocNetwork net(2);
  NullSink sink;
  const JobLayout layout{1, 0};
  InprocEnv node(net, layout, 1, 7, sink, std::chrono::steady_clock::now());
  SpanForwardingEnv role_env(node);
  std::vector<float> done(300'000, 1.0f);
  const float* memory = done.data();
  role_env.recycle_values(std::move(done));
  const std::vector<float> next = node.reusable_values(300'000);
  EXPECT_EQ(next.data(), memory) << "the recycled vector did not reach the node";
  node.recycle_values(std::vector<float>(200'000));
  EXPECT_EQ(role_env.reusable_values(200'000).capacity(), 200'000u) << "nor does the node's reach the role";
}

TEST(BufferReuse, ZmqValuesNeverLeakFromOneClockIntoTheNext) {
  ZmqOptions o;
  o.linger_s = 0;
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink), server(o, 1, sink);
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 0, 10.0); });
  server.join(scheduler.endpoint(), "server", server.endpoint(), 10.0);
  hosting.get();
  exchange(scheduler, server, 0, 1);
}

TEST(BufferReuse, ZmqCurveValuesNeverLeakFromOneClockIntoTheNext) {
  ZmqOptions o;
  o.linger_s = 0;
  o.keys = make_job_keys();  // frames without a checksum: CURVE's tag covers both parts
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink), server(o, 1, sink);
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 0, 10.0); });
  server.join(scheduler.endpoint(), "server", server.endpoint(), 10.0);
  hosting.get();
  exchange(scheduler, server, 0, 1);
}

TEST(BufferReuse, UcxValuesNeverLeakFromOneClockIntoTheNext) {
  ZmqOptions o;
  o.linger_s = 0;
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink);
  o.ucx = true;  // the server and worker exchange their messages over UCX
  ZmqEnv server(o, 1, sink), worker(o, 1, sink);
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 1, 10.0); });
  auto joining = std::async(std::launch::async, [&] {
    worker.join(scheduler.endpoint(), "worker", worker.advertised("127.0.0.1"), 10.0);
  });
  server.join(scheduler.endpoint(), "server", server.advertised("127.0.0.1"), 10.0);
  joining.get();
  hosting.get();
  // Each side receives on its own thread, as separate processes would, so that both progress
  // UCX while a large message's rendezvous runs.
  auto answering = std::async(std::launch::async, [&] {
    for (int c = 0; c < kClocks; ++c) {
      expect_exact(server.recv(10.0), 0, c);
      server.send(2, push_of(1, c));
    }
    // The last reply's rendezvous needs its sender to progress until the worker has it (a
    // server process does so as it ends: ZmqOptions::linger_s).
    EXPECT_TRUE(server.ucx()->wait_sent(10.0));
  });
  for (int c = 0; c < kClocks; ++c) {
    worker.send(1, push_of(0, c));
    expect_exact(worker.recv(10.0), 1, c);
  }
  answering.get();
}

TEST(FramePool, ReusesAFreedBufferThatFitsAndNotOneTooLarge) {
  FramePool pool;
  Frame big = pool.acquire(1'000'000);
  const std::uint8_t* big_bytes = big.data();
  pool.release(std::move(big));
  // A message of about the same size takes the freed buffer.
  Frame again = pool.acquire(900'000);
  EXPECT_EQ(again.data(), big_bytes);
  EXPECT_EQ(again.size, 900'000u);
  EXPECT_EQ(pool.allocations(), 1u);
  pool.release(std::move(again));
  // A small one does not tie up the large buffer.
  Frame small = pool.acquire(100);
  EXPECT_NE(small.data(), big_bytes);
  EXPECT_EQ(pool.allocations(), 2u);
  EXPECT_EQ(pool.free_buffers(), 1u);
}

TEST(FramePool, KeepsAtMostItsLimitOfFreeBuffers) {
  FramePool pool(2);
  for (int i = 0; i < 5; ++i) pool.release(pool.acquire(1000 * (i + 1)));
  EXPECT_LE(pool.free_buffers(), 2u);
}

}  // namespace
}  // namespace pstwin::net

// InprocNetwork and InprocEnv: the in-process transport.
#include "net/inproc_env.h"

#include <gtest/gtest.h>

#include "tests/null_sink.h"

#include <chrono>
#include <future>

#include "runtime/codec.h"
#include "runtime/errors.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

TEST(InprocEnv, MessagesArriveDecodedAndInOrder) {
  InprocNetwork net(2);
  NullSink sink;
  const auto start = std::chrono::steady_clock::now();
  const JobLayout layout{1, 0};
  InprocEnv a(net, layout, 0, 7, sink, start), b(net, layout, 1, 7, sink, start);
  for (int i = 0; i < 3; ++i) {
    Message m;
    m.header.type = MsgType::kPush;
    m.header.clock = i;
    m.values = {1.0f * i};
    a.send(1, m);
  }
  for (int i = 0; i < 3; ++i) {
    auto m = b.recv(1.0);
    ASSERT_TRUE(m);
    EXPECT_EQ(m->header.clock, i);
    EXPECT_EQ(m->header.sender, 0u);
    EXPECT_EQ(m->values, std::vector<float>{1.0f * i});
  }
  EXPECT_FALSE(b.recv(0.01));
  EXPECT_GT(net.bytes_sent(), 3 * kWireHeaderBytes);
}

TEST(InprocEnv, RefusesWhatTheEncoderWouldRefuseThoughNothingIsEncoded) {
  InprocNetwork net(2);
  NullSink sink;
  InprocEnv a(net, JobLayout{1, 0}, 0, 7, sink, std::chrono::steady_clock::now());
  Message m;
  m.header.type = MsgType::kPush;
  m.keys = {5, 3};  // not increasing
  m.values = {1.0f, 2.0f};
  EXPECT_THROW(a.send(1, m), ProtocolError);
  EXPECT_EQ(net.messages_sent(), 0u);
  EXPECT_THROW(a.send(9, Message{}), std::invalid_argument);  // no node 9
}

TEST(InprocEnv, AbortWakesEveryWaiterAtOnce) {
  InprocNetwork net(3);
  const auto t0 = std::chrono::steady_clock::now();
  auto waiting = std::async(std::launch::async, [&] { return net.take(2, 100.0); });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  net.abort();
  EXPECT_FALSE(waiting.get());
  EXPECT_FALSE(net.take(1, 100.0));  // and every later wait too
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(InprocEnv, SeedsRolesAsTheSimulationDoes) {
  InprocNetwork net(4);
  NullSink sink;
  // Node 3 of a job with 2 servers is worker 0: its stream follows its role and index.
  InprocEnv env(net, JobLayout{2, 1}, 3, 42, sink, std::chrono::steady_clock::now());
  Rng expected(role_stream_seed(42, NodeRole::kWorker, 0));
  EXPECT_EQ(env.rng().next_u64(), expected.next_u64());
}

}  // namespace
}  // namespace pstwin::net

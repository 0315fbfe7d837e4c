// The Envs a node's role runs in around its ZmqEnv (SpanForwardingEnv for servers and workers,
// ObservedEnv for the scheduler) pass a role's spent values through to the node's spare values:
// the next large message received lands in memory already faulted in instead of a fresh
// allocation (DESIGN.md, "The hot path"). They once dropped them (the Env default), and on a
// ZeroMQ node every 40 MB message then took a new buffer.
#include <gtest/gtest.h>

#include <future>

#include "net/live_metrics.h"
#include "net/span_forwarding.h"
#include "net/zmq_env.h"
#include "tests/null_sink.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

// 300,000 values: 1.2 MB, two values parts (zmq_parts.h), so the gathering path is the one used.
constexpr std::size_t kValues = 300'000;

Message push_of(float first) {
  Message m;
  m.header.type = MsgType::kPush;
  m.values.resize(kValues);
  for (std::size_t i = 0; i < kValues; ++i) m.values[i] = first + static_cast<float>(i);
  return m;
}

TEST(EnvWrappers, AServersSpentValuesAreWhereItsNextPushLands) {
  ZmqOptions o;
  o.linger_s = 0;
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink), server(o, 1, sink);
  auto hosting = std::async(std::launch::async, [&] { scheduler.host_registration(1, 0, 10.0); });
  server.join(scheduler.endpoint(), "server", server.endpoint(), 10.0);
  hosting.get();
  SpanForwardingEnv role_env(server);

  scheduler.send(1, push_of(1.0f));
  auto first = role_env.recv(10.0);
  ASSERT_TRUE(first);
  ASSERT_EQ(first->values.size(), kValues);
  const float* spent = first->values.data();
  role_env.recycle_values(std::move(first->values));

  scheduler.send(1, push_of(-5.0f));
  auto second = role_env.recv(10.0);
  ASSERT_TRUE(second);
  ASSERT_EQ(second->values.size(), kValues);
  EXPECT_EQ(second->values.data(), spent) << "the second push took fresh memory";
  EXPECT_EQ(second->values.front(), -5.0f);
  EXPECT_EQ(second->values.back(), -5.0f + static_cast<float>(kValues - 1));
}

TEST(EnvWrappers, TheSchedulersEnvHandsSpentValuesBackForReuse) {
  ZmqOptions o;
  NullSink sink;
  ZmqEnv scheduler(o, 1, sink);
  LiveMetrics live(sink, JobLayout{1, 1});
  ObservedEnv role_env(scheduler, live);
  std::vector<float> spent(kValues);
  const float* memory = spent.data();
  role_env.recycle_values(std::move(spent));
  const std::vector<float> reused = role_env.reusable_values(kValues);
  EXPECT_EQ(reused.data(), memory);
  EXPECT_GE(reused.capacity(), kValues);
}

}  // namespace
}  // namespace pstwin::net

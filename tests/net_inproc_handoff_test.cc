// InprocNetwork::take, the in-process hand-off: a message is taken whether it arrives as the
// taker starts to wait or once it is asleep on its queue, a queued one at once, and one sender's
// messages in order (what any change to how a taker waits must keep).
#include "net/inproc_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace pstwin::net {
namespace {

// A message told apart by its clock, stamped from node 0 to node 1.
Message message_of(std::uint8_t mark) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 0;
  m.header.receiver = 1;
  m.header.clock = mark;
  return m;
}

TEST(InprocHandOff, TakesAQueuedMessageWithoutWaiting) {
  InprocNetwork net(2);
  net.deliver(1, message_of(7));
  auto f = net.take(1, 0.0);  // no time to wait at all
  ASSERT_TRUE(f);
  EXPECT_EQ(f->header.clock, 7);
  EXPECT_FALSE(net.take(1, 0.0));  // and the queue is empty again
}

TEST(InprocHandOff, TakesAMessageDeliveredAsItStartsWaiting) {
  InprocNetwork net(2);
  auto taking = std::async(std::launch::async, [&] { return net.take(1, 3600.0); });
  net.deliver(1, message_of(8));
  auto f = taking.get();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->header.clock, 8);
}

TEST(InprocHandOff, TakesAMessageDeliveredWhileItSleeps) {
  InprocNetwork net(2);
  auto taking = std::async(std::launch::async, [&] { return net.take(1, 3600.0); });
  // Long enough for the taker to be asleep on its queue's condition variable.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  net.deliver(1, message_of(9));
  auto f = taking.get();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->header.clock, 9);
}

TEST(InprocHandOff, MessagesOfOneSenderKeepTheirOrder) {
  InprocNetwork net(2);
  std::thread sender([&] {
    for (int i = 0; i < 200; ++i) net.deliver(1, message_of(static_cast<std::uint8_t>(i)));
  });
  for (int i = 0; i < 200; ++i) {
    auto f = net.take(1, 3600.0);
    if (!f) {
      ADD_FAILURE() << "message " << i << " never came";
      break;
    }
    EXPECT_EQ(f->header.clock, static_cast<std::int64_t>(i));
  }
  sender.join();
}

}  // namespace
}  // namespace pstwin::net

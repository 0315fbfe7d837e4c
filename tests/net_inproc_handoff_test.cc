// InprocNetwork::take, the in-process hand-off: a frame is taken whether it arrives as the taker
// starts to wait or once it is asleep on its queue, a queued one at once, and one sender's frames
// in order (what any change to how a taker waits must keep).
#include "net/inproc_env.h"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

namespace pstwin::net {
namespace {

Frame frame_of(InprocNetwork& net, std::uint8_t byte) {
  Frame f = net.pool().acquire(1);
  f.data()[0] = byte;
  return f;
}

TEST(InprocHandOff, TakesAQueuedFrameWithoutWaiting) {
  InprocNetwork net(2);
  net.deliver(1, frame_of(net, 7));
  auto f = net.take(1, 0.0);  // no time to wait at all
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data()[0], 7);
  EXPECT_FALSE(net.take(1, 0.0));  // and the queue is empty again
}

TEST(InprocHandOff, TakesAFrameDeliveredAsItStartsWaiting) {
  InprocNetwork net(2);
  auto taking = std::async(std::launch::async, [&] { return net.take(1, 3600.0); });
  net.deliver(1, frame_of(net, 8));
  auto f = taking.get();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data()[0], 8);
}

TEST(InprocHandOff, TakesAFrameDeliveredWhileItSleeps) {
  InprocNetwork net(2);
  auto taking = std::async(std::launch::async, [&] { return net.take(1, 3600.0); });
  // Long enough for the taker to be asleep on its queue's condition variable.
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  net.deliver(1, frame_of(net, 9));
  auto f = taking.get();
  ASSERT_TRUE(f);
  EXPECT_EQ(f->data()[0], 9);
}

TEST(InprocHandOff, FramesOfOneSenderKeepTheirOrder) {
  InprocNetwork net(2);
  std::thread sender([&] {
    for (int i = 0; i < 200; ++i) net.deliver(1, frame_of(net, static_cast<std::uint8_t>(i)));
  });
  for (int i = 0; i < 200; ++i) {
    auto f = net.take(1, 3600.0);
    if (!f) {
      ADD_FAILURE() << "frame " << i << " never came";
      break;
    }
    EXPECT_EQ(f->data()[0], static_cast<std::uint8_t>(i));
  }
  sender.join();
}

}  // namespace
}  // namespace pstwin::net

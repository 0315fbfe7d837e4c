// spin_briefly and SpinPolicy (net/brief_spin.h), and the in-process hand-off that waits awake with it before
// sleeping (InprocNetwork::take): a frame is taken whether it arrives while the taker is awake
// or asleep, and a queued one at once.
#include "net/brief_spin.h"

#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "net/inproc_env.h"

namespace pstwin::net {
namespace {

constexpr std::chrono::hours kAnHour{1};  // a spin that waited this out would fail on ctest's timeout

TEST(SpinBriefly, ReturnsAtOnceWhenAlreadyReady) {
  int calls = 0;
  EXPECT_TRUE(spin_briefly([&] { return ++calls > 0; }, kAnHour));
  EXPECT_EQ(calls, 1);
}

TEST(SpinBriefly, ReturnsAsSoonAsReady) {
  int calls = 0;
  EXPECT_TRUE(spin_briefly([&] { return ++calls == 5; }, kAnHour));
  EXPECT_EQ(calls, 5);
}

TEST(SpinBriefly, GivesUpWithoutABudget) {
  int calls = 0;
  EXPECT_FALSE(spin_briefly([&] { return ++calls < 0; }, std::chrono::nanoseconds(0)));
  EXPECT_EQ(calls, 1);
}

TEST(SpinBriefly, SeesAnotherThreadsStore) {
  std::atomic<bool> flag{false};
  std::thread setter([&] { flag.store(true, std::memory_order_release); });
  EXPECT_TRUE(spin_briefly([&] { return flag.load(std::memory_order_acquire); }, kAnHour));
  setter.join();
}

TEST(SpinPolicy, SpinsWhileSpinningPays) {
  SpinPolicy policy;
  for (int i = 0; i < 3; ++i) {
    EXPECT_TRUE(policy.should_spin());  // the first wait spins, and every one after a paying spin
    policy.spun(true);
  }
}

TEST(SpinPolicy, AfterASpinThatDidNotPayOnlyProbes) {
  SpinPolicy policy;
  ASSERT_TRUE(policy.should_spin());
  policy.spun(false);
  // The next kProbeEvery - 1 waits sleep at once; the one after tries spinning again.
  for (unsigned i = 1; i < SpinPolicy::kProbeEvery; ++i) EXPECT_FALSE(policy.should_spin()) << i;
  EXPECT_TRUE(policy.should_spin());
  policy.spun(false);
  EXPECT_FALSE(policy.should_spin());  // still not paying: back to probing
}

TEST(SpinPolicy, APayingProbeResumesSpinning) {
  SpinPolicy policy;
  policy.spun(false);
  for (unsigned i = 1; i < SpinPolicy::kProbeEvery; ++i) policy.should_spin();
  ASSERT_TRUE(policy.should_spin());
  policy.spun(true);
  EXPECT_TRUE(policy.should_spin());
  EXPECT_TRUE(policy.should_spin());
}

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

TEST(InprocHandOff, TakesAFrameDeliveredWhileItIsAwake) {
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
  // Well past the spin: the taker is asleep on the queue's condition variable by now.
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

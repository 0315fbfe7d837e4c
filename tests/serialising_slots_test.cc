// SerialisingSlots: when nic_send_window's slots free (sim/serialising_slots.h), hand-computed.
#include "sim/serialising_slots.h"

#include <gtest/gtest.h>

namespace pstwin {
namespace {

// 1,000 bytes at 1e6 B/s: 1 ms on the wire.
constexpr double kRate_Bps = 1e6;

TEST(SerialisingSlots, ASlotFreesWhenItsLastByteHasLeft) {
  SerialisingSlots slots;
  slots.hold(2.0, 1000, kRate_Bps);
  EXPECT_EQ(slots.held(), 1u);
  EXPECT_DOUBLE_EQ(slots.next_free_s(), 2.001);
  slots.release_until(2.0005);
  EXPECT_EQ(slots.held(), 1u);
  slots.release_until(2.001);
  EXPECT_EQ(slots.held(), 0u);
}

// The wire sends one message at a time: a second handed over while the first is still leaving
// starts after it, so a window of K never sends K messages at once faster than the line rate.
TEST(SerialisingSlots, MessagesLeaveOneAfterAnother) {
  SerialisingSlots slots;
  slots.hold(0.0, 1000, kRate_Bps);    // 0 .. 1 ms
  slots.hold(0.0005, 2000, kRate_Bps); // 1 .. 3 ms, not 0.5 .. 2.5
  slots.release_until(0.001);
  ASSERT_EQ(slots.held(), 1u);
  EXPECT_DOUBLE_EQ(slots.next_free_s(), 0.003);
  // An idle wire: the next one starts when handed over.
  slots.release_until(0.003);
  slots.hold(0.010, 1000, kRate_Bps);
  EXPECT_DOUBLE_EQ(slots.next_free_s(), 0.011);
}

// A clock an ulp short of the time asked for still frees the slot (a shorter wait would not move
// SimGrid's clock); a nanosecond short does not.
TEST(SerialisingSlots, WithinAPicosecondCountsAsLeft) {
  SerialisingSlots slots;
  slots.hold(0.0, 1000, kRate_Bps);
  slots.release_until(0.001 - 1e-9);
  EXPECT_EQ(slots.held(), 1u);
  slots.release_until(0.001 - 1e-15);
  EXPECT_EQ(slots.held(), 0u);
}

TEST(SerialisingSlots, NoLinkFreesAtOnce) {
  SerialisingSlots slots;
  slots.hold(1.0, 1000, 0.0);
  EXPECT_DOUBLE_EQ(slots.next_free_s(), 1.0);
  slots.release_until(1.0);
  EXPECT_EQ(slots.held(), 0u);
}

}  // namespace
}  // namespace pstwin

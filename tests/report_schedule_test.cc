// ReportSchedule: when a led range snapshots and checkpoints.
#include <gtest/gtest.h>

#include "runtime/roles/report_schedule.h"

namespace pstwin {
namespace {

TEST(ReportSchedule, ASnapshotIsDueAtEachMultipleOfEvalEveryOnce) {
  JobSpec spec;
  spec.eval_every = 3;
  ReportSchedule s(spec, 0, 0.0);
  EXPECT_TRUE(s.snapshot_due(0));
  EXPECT_FALSE(s.snapshot_due(0));
  EXPECT_FALSE(s.snapshot_due(1));
  EXPECT_FALSE(s.snapshot_due(2));
  EXPECT_TRUE(s.snapshot_due(3));
  EXPECT_FALSE(s.snapshot_due(3));
  spec.eval_every = 0;
  ReportSchedule never(spec, 0, 0.0);
  EXPECT_FALSE(never.snapshot_due(0));
}

TEST(ReportSchedule, ACheckpointIsDueByClockOrByTimeButNotAtTheStartingClock) {
  JobSpec spec;
  spec.fault.checkpoint_every_clocks = 2;
  ReportSchedule by_clock(spec, 4, 10.0);
  EXPECT_FALSE(by_clock.checkpoint_due(4, 10.0));  // where leading began
  EXPECT_FALSE(by_clock.checkpoint_due(5, 11.0));
  EXPECT_TRUE(by_clock.checkpoint_due(6, 12.0));
  EXPECT_FALSE(by_clock.checkpoint_due(6, 13.0));
  spec.fault.checkpoint_every_clocks = 0;
  spec.fault.checkpoint_every_s = 5.0;
  ReportSchedule by_time(spec, 0, 10.0);
  EXPECT_FALSE(by_time.checkpoint_due(1, 14.5));
  EXPECT_TRUE(by_time.checkpoint_due(2, 15.0));
  EXPECT_FALSE(by_time.checkpoint_due(3, 19.0));  // the time counts from the last one
  EXPECT_TRUE(by_time.checkpoint_due(4, 20.0));
}

}  // namespace
}  // namespace pstwin

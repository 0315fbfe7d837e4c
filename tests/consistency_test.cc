// ConsistencyController: BSP barriers, SSP's staleness bound, ASP, backup workers, liveness.
#include "runtime/consistency/controller.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>
#include <stdexcept>
#include <string>

namespace pstwin {
namespace {

ConsistencyController make(ConsistencyMode mode, std::uint32_t workers, std::int64_t s = 0,
                           std::int32_t backup = 0) {
  return ConsistencyController(ConsistencyConfig{mode, s, backup}, workers);
}

TEST(Consistency, ModeNames) {
  EXPECT_EQ(consistency_mode_name(ConsistencyMode::kBsp), "bsp");
  EXPECT_EQ(consistency_mode_name(ConsistencyMode::kAsp), "asp");
  EXPECT_EQ(consistency_mode_name(ConsistencyMode::kSsp), "ssp");
}

TEST(Consistency, ConstructorValidates) {
  EXPECT_THROW(make(ConsistencyMode::kBsp, 0), std::invalid_argument);
  EXPECT_THROW(make(ConsistencyMode::kSsp, 4, -1), std::invalid_argument);
  EXPECT_THROW(make(ConsistencyMode::kBsp, 4, 0, 4), std::invalid_argument);
  EXPECT_THROW(make(ConsistencyMode::kBsp, 4, 0, -1), std::invalid_argument);
  EXPECT_NO_THROW(make(ConsistencyMode::kBsp, 4, 0, 3));
}

// A pull for clock c+1 is refused until the last of the four pushes for c, and allowed after it,
// whatever order the pushes come in.
TEST(Consistency, BspPullWaitsForEveryWorkersPush) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 4);
  std::vector<std::uint32_t> order = {0, 1, 2, 3};
  std::mt19937 rng(7);
  for (std::int64_t clock = 0; clock < 6; ++clock) {
    std::shuffle(order.begin(), order.end(), rng);
    EXPECT_EQ(c.clock(), clock);
    for (std::uint32_t w = 0; w < 4; ++w) EXPECT_TRUE(c.can_serve_pull(w, clock));
    for (std::size_t i = 0; i < order.size(); ++i) {
      for (std::uint32_t w = 0; w < 4; ++w) {
        EXPECT_FALSE(c.can_serve_pull(w, clock + 1)) << "clock " << clock << ", push " << i;
      }
      const PushAction a = c.on_push(order[i], clock);
      EXPECT_EQ(a, i + 1 < order.size() ? PushAction::kBuffer : PushAction::kBarrierReached);
    }
    for (std::uint32_t w = 0; w < 4; ++w) {
      EXPECT_TRUE(c.can_serve_pull(w, clock + 1));
      EXPECT_FALSE(c.can_serve_pull(w, clock + 2));
    }
    EXPECT_EQ(c.clock(), clock + 1);
  }
}

TEST(Consistency, BspPushAheadOfTheBarrierThrows) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 2);
  EXPECT_EQ(c.on_push(0, 0), PushAction::kBuffer);
  EXPECT_THROW(c.on_push(0, 1), std::invalid_argument);
  EXPECT_EQ(c.pushes(0), 1) << "a rejected push changes nothing";
  EXPECT_EQ(c.on_push(1, 0), PushAction::kBarrierReached);
  EXPECT_EQ(c.on_push(0, 1), PushAction::kBuffer);
}

TEST(Consistency, OutOfOrderPushThrowsNamingTheClocks) {
  ConsistencyController c = make(ConsistencyMode::kAsp, 3);
  try {
    c.on_push(2, 1);
    FAIL() << "accepted clock 1 as worker 2's first push";
  } catch (const std::invalid_argument& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("worker 2"), std::string::npos) << what;
    EXPECT_NE(what.find("pushed clock 1"), std::string::npos) << what;
    EXPECT_NE(what.find("expected clock 0"), std::string::npos) << what;
  }
  EXPECT_EQ(c.on_push(2, 0), PushAction::kApply);
  EXPECT_THROW(c.on_push(2, 0), std::invalid_argument) << "a repeated clock";
  EXPECT_THROW(c.on_push(3, 0), std::invalid_argument) << "an unknown worker";
  EXPECT_THROW(c.can_serve_pull(3, 0), std::invalid_argument);
}

// A fast worker pulls and pushes as long as it is allowed while the others are stuck after m
// pushes: it reads clocks m .. m+s and no further, i.e. exactly s clocks ahead of the others.
TEST(Consistency, SspFastWorkerRunsExactlySClocksAhead) {
  for (std::int64_t s : {0, 1, 2, 5}) {
    for (std::int64_t m : {0, 3}) {
      SCOPED_TRACE(testing::Message() << "s=" << s << " m=" << m);
      ConsistencyController c = make(ConsistencyMode::kSsp, 4, s);
      for (std::int64_t k = 0; k < m; ++k) {
        for (std::uint32_t w = 0; w < 4; ++w) {
          ASSERT_TRUE(c.can_serve_pull(w, k));
          ASSERT_EQ(c.on_push(w, k), PushAction::kApply);
        }
      }
      std::int64_t last_read = -1;
      for (std::int64_t k = m; c.can_serve_pull(0, k); ++k) {
        last_read = k;
        ASSERT_EQ(c.on_push(0, k), PushAction::kApply);
        ASSERT_LT(k, m + 100) << "never blocked";
      }
      EXPECT_EQ(last_read, m + s);
      EXPECT_EQ(c.pushes(0), m + s + 1);
      EXPECT_EQ(c.clock(), m);

      // One slow worker catching up is not enough; all of them are.
      c.on_push(1, m);
      c.on_push(2, m);
      EXPECT_FALSE(c.can_serve_pull(0, m + s + 1));
      c.on_push(3, m);
      EXPECT_TRUE(c.can_serve_pull(0, m + s + 1));
      EXPECT_FALSE(c.can_serve_pull(0, m + s + 2));
      EXPECT_EQ(c.clock(), m + 1);
    }
  }
}

// Workers follow pull(c), push(c), pull(c+1), ...; a random worker acts at each step. SSP(0) and
// BSP must allow and refuse exactly the same pulls and agree on the clock.
TEST(Consistency, Ssp0AllowsExactlyTheSamePullsAsBsp) {
  for (std::uint32_t seed = 1; seed <= 20; ++seed) {
    constexpr std::uint32_t kWorkers = 4;
    ConsistencyController bsp = make(ConsistencyMode::kBsp, kWorkers);
    ConsistencyController ssp = make(ConsistencyMode::kSsp, kWorkers, 0);
    std::vector<std::int64_t> clock(kWorkers, 0);
    std::vector<bool> has_read(kWorkers, false);  // pulled `clock`, next action is its push
    std::mt19937 rng(seed);
    int refused = 0;
    for (int step = 0; step < 2000; ++step) {
      const std::uint32_t w = rng() % kWorkers;
      if (!has_read[w]) {
        const bool allowed = bsp.can_serve_pull(w, clock[w]);
        ASSERT_EQ(allowed, ssp.can_serve_pull(w, clock[w]))
            << "seed " << seed << " step " << step << " worker " << w << " clock " << clock[w];
        has_read[w] = allowed;
        refused += allowed ? 0 : 1;
      } else {
        const PushAction a = bsp.on_push(w, clock[w]);
        ASSERT_TRUE(a == PushAction::kBuffer || a == PushAction::kBarrierReached);
        ASSERT_EQ(ssp.on_push(w, clock[w]), PushAction::kApply);
        ++clock[w];
        has_read[w] = false;
      }
      ASSERT_EQ(bsp.clock(), ssp.clock());
    }
    EXPECT_GT(refused, 0) << "the sequence never exercised a refusal";
  }
}

TEST(Consistency, AspNeverBlocks) {
  ConsistencyController c = make(ConsistencyMode::kAsp, 4);
  std::vector<std::int64_t> pushes(4, 0);
  std::mt19937 rng(3);
  for (int step = 0; step < 500; ++step) {
    const std::uint32_t w = rng() % 4;
    ASSERT_TRUE(c.can_serve_pull(w, pushes[w]));
    ASSERT_TRUE(c.can_serve_pull(w, pushes[w] + 1000));
    ASSERT_EQ(c.on_push(w, pushes[w]++), PushAction::kApply);
    ASSERT_EQ(c.clock(), *std::min_element(pushes.begin(), pushes.end()));
  }
}

TEST(Consistency, BspBackupWorkersUseQuorumAndDropLatePushes) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 4, 0, 1);
  EXPECT_EQ(c.on_push(3, 0), PushAction::kBuffer);
  EXPECT_EQ(c.on_push(1, 0), PushAction::kBuffer);
  EXPECT_FALSE(c.can_serve_pull(0, 1));
  EXPECT_EQ(c.on_push(2, 0), PushAction::kBarrierReached) << "quorum is W - b = 3";
  EXPECT_TRUE(c.can_serve_pull(0, 1));
  EXPECT_EQ(c.clock(), 1);
  EXPECT_EQ(c.on_push(0, 0), PushAction::kDrop) << "clock 0 is already applied";
  EXPECT_EQ(c.pushes(0), 1) << "a dropped push still counts as pushed";
  // The late worker takes part in the next clock like any other.
  EXPECT_EQ(c.on_push(0, 1), PushAction::kBuffer);
  EXPECT_EQ(c.on_push(1, 1), PushAction::kBuffer);
  EXPECT_EQ(c.on_push(2, 1), PushAction::kBarrierReached);
  EXPECT_EQ(c.on_push(3, 1), PushAction::kDrop);
  EXPECT_EQ(c.clock(), 2);
}

TEST(Consistency, SetLiveFalseCompletesABarrier) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 4);
  c.on_push(0, 0);
  c.on_push(1, 0);
  c.on_push(2, 0);
  EXPECT_FALSE(c.can_serve_pull(0, 1));
  EXPECT_TRUE(c.set_live(3, false));
  EXPECT_EQ(c.clock(), 1);
  EXPECT_TRUE(c.can_serve_pull(0, 1));
  // Later barriers need only the three live workers.
  c.on_push(0, 1);
  c.on_push(1, 1);
  EXPECT_EQ(c.on_push(2, 1), PushAction::kBarrierReached);
  EXPECT_FALSE(c.set_live(3, false)) << "already dead";
}

TEST(Consistency, KillingAWorkerThatArrivedDoesNotDoubleCount) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 4);
  c.on_push(0, 0);
  c.on_push(1, 0);
  EXPECT_FALSE(c.set_live(0, false)) << "arrivals 1 of quorum 3";
  EXPECT_EQ(c.on_push(2, 0), PushAction::kBuffer) << "arrivals 2 of quorum 3";
  EXPECT_EQ(c.on_push(3, 0), PushAction::kBarrierReached);
  EXPECT_EQ(c.clock(), 1);
  // Revived, worker 0 is behind nobody: its clock-0 push already happened.
  EXPECT_FALSE(c.set_live(0, true));
  c.on_push(1, 1);
  c.on_push(2, 1);
  EXPECT_EQ(c.on_push(3, 1), PushAction::kBuffer) << "worker 0 counts again";
  EXPECT_EQ(c.on_push(0, 1), PushAction::kBarrierReached);
}

TEST(Consistency, DeadWorkersPushCountsOnlyOnceRevived) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 3);
  c.set_live(2, false);
  EXPECT_EQ(c.on_push(2, 0), PushAction::kBuffer);
  EXPECT_EQ(c.on_push(0, 0), PushAction::kBuffer) << "arrivals 1 of quorum 2";
  EXPECT_FALSE(c.set_live(2, true)) << "arrivals 2 of quorum 3";
  EXPECT_EQ(c.on_push(1, 0), PushAction::kBarrierReached) << "0, 2 and now 1: all three";
}

TEST(Consistency, SspExcludesDeadWorkersFromTheMinimum) {
  ConsistencyController c = make(ConsistencyMode::kSsp, 3, 1);
  for (std::int64_t k = 0; k < 3; ++k) {
    c.on_push(1, k);
    c.on_push(2, k);
  }
  EXPECT_EQ(c.clock(), 0);
  EXPECT_TRUE(c.can_serve_pull(1, 1));
  EXPECT_FALSE(c.can_serve_pull(1, 2));
  EXPECT_FALSE(c.set_live(0, false)) << "no BSP barrier to report";
  EXPECT_EQ(c.clock(), 3);
  EXPECT_EQ(c.min_live_pushes(), 3);
  EXPECT_TRUE(c.can_serve_pull(1, 4));
  EXPECT_FALSE(c.can_serve_pull(1, 5));
}

TEST(Consistency, ClockValues) {
  ConsistencyController bsp = make(ConsistencyMode::kBsp, 2);
  ConsistencyController asp = make(ConsistencyMode::kAsp, 2);
  EXPECT_EQ(bsp.clock(), 0);
  EXPECT_EQ(asp.clock(), 0);
  bsp.on_push(0, 0);
  asp.on_push(0, 0);
  asp.on_push(0, 1);
  EXPECT_EQ(bsp.clock(), 0);
  EXPECT_EQ(asp.clock(), 0);
  EXPECT_EQ(asp.pushes(0), 2);
  bsp.on_push(1, 0);
  asp.on_push(1, 0);
  EXPECT_EQ(bsp.clock(), 1);
  EXPECT_EQ(asp.clock(), 1);
  asp.set_live(0, false);
  asp.set_live(1, false);
  EXPECT_EQ(asp.min_live_pushes(), 0) << "no live worker";
}

TEST(Consistency, ARejoinedWorkerCountsFromItsRejoinClock) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 3);
  // Worker 2 dies after clock 0; the others go on to clock 3.
  for (std::uint32_t w = 0; w < 3; ++w) c.on_push(w, 0);
  EXPECT_FALSE(c.set_live(2, false)) << "barrier 0 was already complete";
  for (std::int64_t k = 1; k < 3; ++k) {
    c.on_push(0, k);
    EXPECT_EQ(c.on_push(1, k), PushAction::kBarrierReached);
  }
  ASSERT_EQ(c.clock(), 3);
  // It rejoins at clock 3: barrier 3 now waits for it too, and its next push carries clock 3.
  EXPECT_FALSE(c.rejoin(2, 3));
  EXPECT_TRUE(c.live(2));
  c.on_push(0, 3);
  EXPECT_EQ(c.on_push(1, 3), PushAction::kBuffer);
  EXPECT_EQ(c.on_push(2, 3), PushAction::kBarrierReached);
  EXPECT_EQ(c.clock(), 4);
}

TEST(Consistency, RejoiningOneClockAheadCountsAsArrivedAndMayCompleteTheBarrier) {
  ConsistencyController c = make(ConsistencyMode::kBsp, 3);
  c.set_live(2, false);
  c.on_push(0, 0);
  EXPECT_EQ(c.on_push(1, 0), PushAction::kBarrierReached);
  c.on_push(0, 1);
  c.on_push(1, 1);  // barrier 1 done with the two live workers
  ASSERT_EQ(c.clock(), 2);
  c.on_push(0, 2);
  c.on_push(1, 2);
  ASSERT_EQ(c.clock(), 3);
  c.on_push(0, 3);
  // Rejoining at clock 4 (another range is one ahead): worker 2 counts as arrived for 3, so with
  // worker 1 still to come the barrier waits; its arrival completes it.
  EXPECT_FALSE(c.rejoin(2, 4));
  EXPECT_EQ(c.on_push(1, 3), PushAction::kBarrierReached);
  EXPECT_EQ(c.clock(), 4);
  EXPECT_THROW(c.rejoin(2, 6), std::invalid_argument) << "more than one ahead under BSP";
}

TEST(Consistency, StateRoundTripsIntoAnotherController) {
  ConsistencyController a = make(ConsistencyMode::kBsp, 3);
  a.on_push(0, 0);
  a.on_push(1, 0);
  a.set_live(2, false);  // completes barrier 0
  a.on_push(0, 1);
  ConsistencyController b = make(ConsistencyMode::kBsp, 3);
  b.restore(a.state());
  EXPECT_EQ(b.clock(), 1);
  EXPECT_FALSE(b.live(2));
  EXPECT_EQ(b.on_push(1, 1), PushAction::kBarrierReached);
  ConsistencyController wrong = make(ConsistencyMode::kBsp, 4);
  EXPECT_THROW(wrong.restore(a.state()), std::invalid_argument);
}

}  // namespace
}  // namespace pstwin

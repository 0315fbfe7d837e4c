// PullGate: replies held for the consistency model, then for durability, with known orders.
#include <gtest/gtest.h>

#include <vector>

#include "runtime/roles/pull_gate.h"

namespace pstwin {
namespace {

PendingReply pull(std::uint32_t worker, std::int64_t clock, std::uint64_t request) {
  PendingReply p;
  p.kind = PendingReply::Kind::kPullReply;
  p.worker = 10 + worker;
  p.worker_index = worker;
  p.clock = clock;
  p.request_id = request;
  return p;
}

std::vector<std::uint64_t> requests(const std::vector<PendingReply>& replies) {
  std::vector<std::uint64_t> ids;
  for (const auto& p : replies) ids.push_back(p.request_id);
  return ids;
}

ConsistencyController bsp(std::uint32_t workers) {
  return ConsistencyController(ConsistencyConfig{ConsistencyMode::kBsp, 0, 0}, workers);
}

TEST(PullGate, APullWaitsForTheBarrierOfItsClock) {
  auto c = bsp(2);
  PullGate gate;
  std::vector<PendingReply> ready;
  gate.add(pull(0, 1, 7), c, 0, 0, ready);
  gate.add(pull(1, 0, 8), c, 0, 0, ready);  // clock 0 is allowed at once
  EXPECT_EQ(requests(ready), (std::vector<std::uint64_t>{8}));
  EXPECT_EQ(gate.waiting(), 1u);
  ready.clear();
  (void)c.on_push(0, 0);
  gate.release(c, 0, 0, false, ready);
  EXPECT_TRUE(ready.empty());  // worker 1 has not pushed clock 0
  (void)c.on_push(1, 0);
  ASSERT_EQ(c.clock(), 1);
  gate.release(c, 0, 0, false, ready);
  EXPECT_EQ(requests(ready), (std::vector<std::uint64_t>{7}));
  EXPECT_EQ(gate.waiting(), 0u);
}

TEST(PullGate, EveryReplyWaitsUntilTheLogAtItsReleaseIsDurable) {
  auto c = bsp(2);
  PullGate gate;
  std::vector<PendingReply> ready;
  PendingReply ack = pull(0, 4, 1);
  ack.kind = PendingReply::Kind::kPushAck;  // not held by the consistency model
  gate.add(ack, c, /*log_end=*/2, /*durable=*/1, ready);
  PendingReply probe = pull(1, -1, 2);
  probe.kind = PendingReply::Kind::kClockProbe;
  gate.add(probe, c, /*log_end=*/3, /*durable=*/1, ready);
  gate.add(pull(0, 0, 3), c, /*log_end=*/3, /*durable=*/1, ready);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(gate.gated(), 3u);
  gate.release(c, 3, /*durable=*/2, false, ready);
  ASSERT_EQ(requests(ready), (std::vector<std::uint64_t>{1}));
  EXPECT_EQ(ready[0].needs_seq, 2u);
  ready.clear();
  gate.release(c, 3, /*durable=*/3, false, ready);
  EXPECT_EQ(requests(ready), (std::vector<std::uint64_t>{2, 3}));  // in arrival order
  EXPECT_EQ(gate.gated(), 0u);
}

TEST(PullGate, AnAllowedPullTakesTheLogEndAtItsReleaseNotAtItsArrival) {
  auto c = bsp(1);
  PullGate gate;
  std::vector<PendingReply> ready;
  gate.add(pull(0, 1, 5), c, /*log_end=*/1, /*durable=*/1, ready);
  (void)c.on_push(0, 0);  // the barrier; the log grows to 2 with it
  gate.release(c, /*log_end=*/2, /*durable=*/1, false, ready);
  EXPECT_TRUE(ready.empty());
  EXPECT_EQ(gate.gated(), 1u);
  gate.release(c, 2, /*durable=*/2, false, ready);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].needs_seq, 2u);
}

TEST(PullGate, LooksAtWaitingPullsOnlyWhenTheClockMovedOrWhenForced) {
  auto strict = bsp(2);
  PullGate gate;
  std::vector<PendingReply> ready;
  gate.add(pull(0, 2, 9), strict, 0, 0, ready);
  gate.release(strict, 0, 0, false, ready);  // the first look, at clock 0
  EXPECT_TRUE(ready.empty());
  // SSP(2) allows clock 2 at its clock 0: the same clock, so only a forced look sees it.
  ConsistencyController ssp(ConsistencyConfig{ConsistencyMode::kSsp, 2, 0}, 2);
  ASSERT_EQ(ssp.clock(), 0);
  gate.release(ssp, 0, 0, false, ready);
  EXPECT_TRUE(ready.empty());
  gate.release(ssp, 0, 0, true, ready);
  EXPECT_EQ(requests(ready), (std::vector<std::uint64_t>{9}));
}

TEST(PullGate, KeepsTheRowsOfPullsThatStayBehind) {
  auto c = bsp(2);
  PullGate gate;
  std::vector<PendingReply> ready;
  PendingReply first = pull(0, 1, 1);
  PendingReply second = pull(1, 2, 2);
  second.keyed = true;
  second.rows = {3, 5};
  gate.add(first, c, 0, 0, ready);
  gate.add(second, c, 0, 0, ready);
  (void)c.on_push(0, 0);
  (void)c.on_push(1, 0);
  gate.release(c, 0, 0, false, ready);  // the first goes, the second moves up
  EXPECT_EQ(requests(ready), (std::vector<std::uint64_t>{1}));
  ready.clear();
  (void)c.on_push(0, 1);
  (void)c.on_push(1, 1);
  gate.release(c, 0, 0, false, ready);
  ASSERT_EQ(ready.size(), 1u);
  EXPECT_EQ(ready[0].rows, (std::vector<std::uint32_t>{3, 5}));
}

}  // namespace
}  // namespace pstwin

// Failover and Heartbeats: the scheduler's decisions on deaths and returns, with exact node ids.
// Layout throughout: 3 servers (node ids 1, 2, 3), 2 workers (ids 4, 5), replication 2, so
// range 0 is on {1, 2}, range 1 on {2, 3}, range 2 on {3, 1} (primary first).
#include "runtime/roles/failover.h"
#include "runtime/roles/heartbeats.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <vector>

namespace pstwin {
namespace {

using Servers = std::vector<NodeId>;

Failover three_servers(std::uint32_t replication = 2) {
  const JobLayout layout{3, 2};
  return Failover(layout, replication, initial_membership(3, 3, 2, replication, 1));
}

TEST(Failover, ServerDeathPromotesItsBackupAndRefillsFromTheLeastLoaded) {
  Failover f = three_servers();
  const Failover::ServerLoss loss = f.server_dead(2);
  // Range 1 was led by node 2: its backup, node 3, leads it now.
  EXPECT_EQ(loss.promoted, (std::vector<RangeServer>{{1, 3}}));
  EXPECT_TRUE(loss.lost.empty());
  // Ranges 0 and 1 are down to one replica: each takes the one live server it lacks.
  EXPECT_EQ(loss.backups, (std::vector<RangeServer>{{0, 3}, {1, 1}}));
  EXPECT_EQ(f.membership().replicas, (std::vector<Servers>{{1, 3}, {3, 1}, {3, 1}}));
  EXPECT_EQ(f.membership().epoch, 1u);
  EXPECT_EQ(f.standing(2), Standing::kDead);
  EXPECT_EQ(f.to_tell(), (std::vector<NodeId>{1, 3, 4, 5}));
}

TEST(Failover, ABackupStillBeingRebuiltIsNeverPromoted) {
  Failover f = three_servers();
  f.server_dead(2);  // range 1 = {3, 1}, where node 1 is an unsynced new backup
  const Failover::ServerLoss loss = f.server_dead(3);
  // Range 1 lost its primary and its only other replica is unsynced; range 2 (led by 3, backed
  // by 1 since the start) promotes node 1.
  EXPECT_EQ(loss.lost, (std::vector<std::uint32_t>{1}));
  EXPECT_EQ(loss.promoted, (std::vector<RangeServer>{{2, 1}}));
  EXPECT_TRUE(loss.backups.empty());      // nothing is refilled in a lost job
  EXPECT_EQ(f.membership().epoch, 1u);    // nor is the epoch bumped
}

TEST(Failover, ASyncedBackupIsPromoted) {
  Failover f = three_servers();
  f.server_dead(2);
  f.backup_synced(1, 1);  // node 3, range 1's primary, reports node 1 holds the range
  f.backup_synced(7, 1);  // an unknown range changes nothing
  const Failover::ServerLoss loss = f.server_dead(3);
  EXPECT_TRUE(loss.lost.empty());
  EXPECT_EQ(loss.promoted, (std::vector<RangeServer>{{1, 1}, {2, 1}}));
  EXPECT_TRUE(loss.backups.empty());  // no live server is left to back anything up
  EXPECT_EQ(f.membership().replicas, (std::vector<Servers>{{1}, {1}, {1}}));
  EXPECT_EQ(f.membership().epoch, 2u);
}

TEST(Failover, TheFirstSyncedBackupLeadsEvenBehindAnUnsyncedOne) {
  // 4 servers, replication 3: range 0 starts on {1, 2, 3}.
  Failover f(JobLayout{4, 1}, 3, initial_membership(4, 4, 1, 3, 1));
  f.server_dead(2);       // range 0: {1, 3, 4}, node 4 unsynced
  f.server_dead(3);       // range 0: {1, 4}; no spare server
  f.server_back(2);       // range 0: {1, 4, 2}, nodes 4 and 2 unsynced
  f.backup_synced(0, 2);  // node 2 holds range 0 now; node 4 still does not
  ASSERT_EQ(f.membership().replicas[0], (Servers{1, 4, 2}));
  const Failover::ServerLoss loss = f.server_dead(1);
  EXPECT_EQ(loss.promoted.front(), (RangeServer{0, 2}));
  EXPECT_EQ(f.membership().replicas[0], (Servers{2, 4}));
}

TEST(Failover, WithoutReplicasAServerDeathLosesItsRange) {
  Failover f = three_servers(1);
  const Failover::ServerLoss loss = f.server_dead(3);
  EXPECT_EQ(loss.lost, (std::vector<std::uint32_t>{2}));
  EXPECT_TRUE(loss.promoted.empty());
}

TEST(Failover, ABackupsDeathOnlyRefills) {
  Failover f = three_servers();
  f.leave(3);  // told to stop: no longer a candidate
  const Failover::ServerLoss loss = f.server_dead(1);
  // Node 1 led range 0 and backed range 2: range 0 promotes node 2 and cannot take node 3,
  // which left; range 2 takes node 2.
  EXPECT_EQ(loss.promoted, (std::vector<RangeServer>{{0, 2}}));
  EXPECT_EQ(loss.backups, (std::vector<RangeServer>{{2, 2}}));
  EXPECT_EQ(f.membership().replicas, (std::vector<Servers>{{2}, {2, 3}, {3, 2}}));
}

TEST(Failover, RefillTakesTheLeastLoadedServerThenTheLowestId) {
  // 4 servers; node 3 holds three ranges, nodes 2 and 4 two each.
  Membership m = initial_membership(4, 4, 1, 2, 1);
  m.replicas = {{1, 2}, {3, 2}, {3, 4}, {4, 3}};
  Failover by_load(JobLayout{4, 1}, 2, m);
  EXPECT_EQ(by_load.server_dead(1).backups, (std::vector<RangeServer>{{0, 4}}));
  m.replicas = {{1, 2}, {3, 2}, {3, 4}, {4, 1}};  // nodes 3 and 4 hold two each: a tie
  Failover by_id(JobLayout{4, 1}, 2, m);
  EXPECT_EQ(by_id.server_dead(2).backups, (std::vector<RangeServer>{{0, 3}, {1, 1}}));
}

TEST(Failover, ARestartedServerFillsTheMissingBackups) {
  Failover f = three_servers();
  f.leave(3);
  f.server_dead(1);  // range 0 = {2} misses a backup
  const std::vector<RangeServer> backups = f.server_back(1);
  EXPECT_EQ(backups, (std::vector<RangeServer>{{0, 1}}));
  EXPECT_EQ(f.membership().replicas, (std::vector<Servers>{{2, 1}, {2, 3}, {3, 2}}));
  EXPECT_EQ(f.membership().epoch, 2u);
  EXPECT_TRUE(f.active(1));
  // Its backups are unsynced: losing range 0's primary now loses the range.
  EXPECT_EQ(f.server_dead(2).lost, (std::vector<std::uint32_t>{0}));
}

TEST(Failover, WorkersDieAndComeBackThroughTheMembership) {
  Failover f = three_servers();
  f.worker_dead(5);
  EXPECT_EQ(f.membership().dead_workers, (std::vector<bool>{false, true}));
  EXPECT_EQ(f.membership().epoch, 1u);
  EXPECT_TRUE(f.dead(5));
  EXPECT_EQ(f.to_tell(), (std::vector<NodeId>{1, 2, 3, 4}));
  f.leave(5);  // a dead node stays dead
  EXPECT_TRUE(f.dead(5));
  f.worker_back(5);
  EXPECT_EQ(f.membership().dead_workers, (std::vector<bool>{false, false}));
  EXPECT_EQ(f.membership().epoch, 2u);
  EXPECT_TRUE(f.active(5));
}

TEST(Failover, AStoppedServerIsWatchedOnlyWhileItOwesAFinal) {
  Failover f = three_servers();
  f.leave(2);  // node 2 leads range 1
  f.leave(4);  // a worker that is done
  EXPECT_TRUE(f.watched(1, {false, false, false}));   // active
  EXPECT_FALSE(f.watched(4, {false, false, false}));  // a worker that left
  EXPECT_TRUE(f.watched(2, {true, false, true}));     // range 1's final is not in
  EXPECT_FALSE(f.watched(2, {false, true, false}));   // it is: the others are not its finals
  EXPECT_EQ(f.to_tell(), (std::vector<NodeId>{1, 3, 5}));
  f.server_dead(3);
  EXPECT_FALSE(f.watched(3, {false, false, false}));  // dead
}

TEST(Heartbeats, ANodeIsOverdueOnlyPastTheTimeout) {
  Heartbeats h(4, 10.0, 1.0, 0.2);
  h.heard(2, 10.5);
  h.heard(9, 12.0);  // not a node of the job: ignored
  EXPECT_DOUBLE_EQ(h.silent_s(1, 11.5), 1.5);
  EXPECT_TRUE(h.overdue(1, 11.5));
  EXPECT_FALSE(h.overdue(2, 11.5));  // silent exactly the timeout
  EXPECT_TRUE(h.overdue(2, 11.75));
  EXPECT_THROW(h.silent_s(9, 12.0), std::out_of_range);
}

TEST(Heartbeats, TheSchedulersOwnDelayIsNotCountedAsSilence) {
  Heartbeats h(3, 0.0, 1.0, 0.2);
  EXPECT_EQ(h.scheduler_turn(0.2), 0.0);
  EXPECT_EQ(h.scheduler_turn(0.45), 0.0);  // 0.25 s: a late wake-up, not a stall
  h.heard(1, 0.45);
  EXPECT_NEAR(h.scheduler_turn(2.45), 1.8, 1e-12);  // looked 2 s later, meant 0.2 s
  EXPECT_DOUBLE_EQ(h.silent_s(2, 2.45), 2.45);
  EXPECT_NEAR(h.scheduler_delay_s(2), 1.8, 1e-12);
  EXPECT_NEAR(h.counted_silence_s(2, 2.45), 0.65, 1e-12);
  EXPECT_FALSE(h.overdue(2, 2.45));
  EXPECT_NEAR(h.counted_silence_s(1, 2.45), 0.2, 1e-12);
  h.heard(1, 2.45);
  EXPECT_EQ(h.scheduler_delay_s(1), 0.0);  // heard after the delay: none of it is its silence
  EXPECT_TRUE(h.overdue(2, 2.9));          // 2.9 s less 1.8 s
}

}  // namespace
}  // namespace pstwin

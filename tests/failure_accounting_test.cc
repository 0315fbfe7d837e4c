// time_lost_to_failures and the summary's "failures"/"time_lost_s", from hand-written events.
#include "runtime/output/failure_accounting.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "runtime/output/run_recorder.h"

namespace pstwin {
namespace {

using nlohmann::json;

json ev(double t, const std::string& type, json fields = json::object()) {
  fields["time_s"] = t;
  fields["type"] = type;
  return fields;
}

TEST(FailureAccounting, NoEventsOrNoFailuresLoseNothing) {
  EXPECT_EQ(time_lost_to_failures({}, 10.0), 0.0);
  EXPECT_EQ(count_failures({}), 0u);
  const std::vector<json> quiet = {ev(1.0, "checkpoint", {{"clock", 5}}),
                                   ev(2.0, "straggler_start", {{"worker", 1}}),
                                   ev(3.0, "node_dead", {{"node", "worker:1"}, {"silent_s", 1.0}})};
  EXPECT_EQ(time_lost_to_failures(quiet, 10.0), 0.0);
  EXPECT_EQ(count_failures(quiet), 0u);
}

TEST(FailureAccounting, AWorkerCountsUntilItIsDeclaredDeadOrRejoins) {
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(1.0, "node_failed", {{"node", "worker:0"}}),
                                          ev(1.3, "node_dead", {{"node", "worker:0"}})},
                                         10.0),
                   0.3);
  // Another node's node_dead and a failover do not end a worker's failure; its rejoining does.
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(1.0, "node_failed", {{"node", "worker:2"}}),
                                          ev(1.1, "node_dead", {{"node", "worker:0"}}),
                                          ev(1.2, "failover", {{"range", 0}, {"server", "server:1"}}),
                                          ev(1.7, "worker_rejoined", {{"worker", 2}, {"clock", 4}}),
                                          ev(2.0, "node_dead", {{"node", "worker:2"}})},
                                         10.0),
                   0.7);
}

TEST(FailureAccounting, AServerCountsUntilTheFirstFailover) {
  const std::vector<json> events = {ev(2.0, "node_failed", {{"node", "server:0"}}),
                                    ev(2.1, "worker_rejoined", {{"worker", 0}, {"clock", 1}}),
                                    ev(2.25, "failover",
                                       {{"range", 0}, {"server", "server:1"}, {"epoch", 3}}),
                                    ev(2.5, "failover", {{"range", 1}, {"server", "server:2"}})};
  EXPECT_DOUBLE_EQ(time_lost_to_failures(events, 10.0), 0.25);
  EXPECT_EQ(count_failures(events), 1u);
}

TEST(FailureAccounting, ANodeRestartedBeforeItWasDeclaredDeadCountsUntilItRejoins) {
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(2.0, "node_failed", {{"node", "server:1"}}),
                                          ev(2.5, "node_restarted", {{"node", "server:1"}}),
                                          ev(2.75, "node_rejoined", {{"node", "server:1"}})},
                                         10.0),
                   0.75);
}

TEST(FailureAccounting, ACutLinkCountsUntilItIsRestored) {
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(1.0, "link_failed", {{"node", "worker:1"}}),
                                          ev(1.2, "link_restored", {{"node", "worker:0"}}),
                                          ev(1.5, "link_restored", {{"node", "worker:1"}})},
                                         10.0),
                   0.5);
}

TEST(FailureAccounting, AFailureWithoutRecoveryCountsUntilTheEnd) {
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(3.5, "node_failed", {{"node", "scheduler"}})}, 10.0),
                   6.5);
  // A recovery before the failure does not count; the end is never before the failure.
  EXPECT_DOUBLE_EQ(time_lost_to_failures({ev(1.0, "node_dead", {{"node", "worker:0"}}),
                                          ev(4.0, "node_failed", {{"node", "worker:0"}})},
                                         10.0),
                   6.0);
  EXPECT_EQ(time_lost_to_failures({ev(12.0, "node_failed", {{"node", "worker:0"}})}, 10.0), 0.0);
}

TEST(FailureAccounting, UnsortedEventsAreOrderedByTimeAndFailuresAdd) {
  // As launch writes them: the scheduler's lines first, the launcher's node_failed appended.
  const std::vector<json> events = {
      ev(1.3, "node_dead", {{"node", "worker:0"}, {"silent_s", 0.3}}),
      ev(2.25, "failover", {{"range", 0}, {"server", "server:1"}}),
      ev(2.5, "link_restored", {{"node", "worker:1"}}),
      ev(2.0, "link_failed", {{"node", "worker:1"}}),
      ev(1.0, "node_failed", {{"node", "worker:0"}}),
      ev(2.0, "node_failed", {{"node", "server:0"}}),
      "not an event",
      json{{"type", "node_failed"}},  // no time: ignored
  };
  EXPECT_DOUBLE_EQ(time_lost_to_failures(events, 10.0), 0.3 + 0.25 + 0.5);
  EXPECT_EQ(count_failures(events), 3u);
  json summary = json::object();
  set_failure_fields(summary, events, 10.0);
  EXPECT_EQ(summary["failures"], 3);
  EXPECT_DOUBLE_EQ(summary["time_lost_s"].get<double>(), 1.05);
}

TEST(FailureAccounting, TheRecorderKeepsTheEventsAndTheFileReadsBack) {
  const auto dir = (std::filesystem::path(::testing::TempDir()) /
                    ("pstwin_failure_accounting_" + std::to_string(::getpid())))
                       .string();
  std::filesystem::remove_all(dir);
  {
    RunRecorder r(dir, std::nullopt);
    r.event(0.5, "checkpoint", {{"clock", 2}});
    r.event(1.0, "node_failed", {{"node", "worker:0"}});
    r.event(1.3, "node_dead", {{"node", "worker:0"}, {"silent_s", 0.3}});
    r.flush();
    ASSERT_EQ(r.failure_events().size(), 2u);
    EXPECT_DOUBLE_EQ(time_lost_to_failures(r.failure_events(), 5.0), 0.3);
  }
  {  // what launch does: a line appended after the job, and a truncated one
    std::ofstream out(dir + "/events.jsonl", std::ios::app);
    out << R"({"time_s":4.0,"type":"link_failed","node":"server:1"})" << "\n"
        << R"({"time_s":4.5,"ty)";
  }
  const auto events = read_events_jsonl(dir + "/events.jsonl");
  ASSERT_EQ(events.size(), 4u);
  EXPECT_DOUBLE_EQ(time_lost_to_failures(events, 5.0), 0.3 + 1.0);
  EXPECT_EQ(count_failures(events), 2u);
  EXPECT_TRUE(read_events_jsonl(dir + "/no-such-file").empty());
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pstwin

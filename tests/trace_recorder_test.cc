// TraceRecorder: the Trace Event Format text of a run's timeline, and its bound.
#include "runtime/output/trace_recorder.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/trace_checks.h"

namespace pstwin {
namespace {

TEST(TraceRecorder, WritesNamedProcessesAndMicrosecondSpans) {
  TraceRecorder trace(JobLayout{1, 2});  // scheduler 0, server 1, workers 2 and 3
  trace.add(3, "compute", 0.5, 0.75);
  trace.add(2, "wait_pull", 0.0, 0.25);
  trace.add(2, "compute", 0.25, 0.2500015);
  const auto doc = nlohmann::json::parse(trace.json("simulated"));
  const auto by_node = testing_support::check_trace_format(doc);
  ASSERT_EQ(by_node.at("worker:0").size(), 2u);
  // Sorted by start; 0.25 s is 250000 us, 1.5 us rounds to 2.
  EXPECT_EQ(by_node.at("worker:0")[0].name, "wait_pull");
  EXPECT_EQ(by_node.at("worker:0")[1].ts, 250000);
  EXPECT_EQ(by_node.at("worker:0")[1].dur, 2);
  EXPECT_EQ(by_node.at("worker:1")[0].ts, 500000);
  EXPECT_EQ(by_node.at("worker:1")[0].dur, 250000);
  // Node 1 is the server: pid 2, its thread named after the role.
  bool named = false;
  for (const auto& e : doc["traceEvents"])
    named |= e["ph"] == "M" && e["name"] == "thread_name" && e["pid"] == 2 && e["args"]["name"] == "server";
  EXPECT_TRUE(named);
  EXPECT_EQ(doc["otherData"]["clock"], "simulated");
}

TEST(TraceRecorder, KeepsEachNodesShareAndCountsTheRest) {
  // 4 nodes share 400 spans: 100 each (kMinSpansPerNode would give the same).
  TraceRecorder trace(JobLayout{1, 2}, 400);
  EXPECT_EQ(trace.per_node(), 100u);
  for (int i = 0; i < 150; ++i) trace.add(2, "compute", i, i + 0.5);
  trace.add(3, "compute", 0, 1);
  trace.add(9, "compute", 0, 1);  // not a node of the job
  EXPECT_EQ(trace.kept(), 101u);
  EXPECT_EQ(trace.dropped(), 51u);
  const auto doc = nlohmann::json::parse(trace.json("wall"));
  EXPECT_EQ(doc["otherData"]["spans_dropped"], 51);
}

}  // namespace
}  // namespace pstwin

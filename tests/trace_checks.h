// Checks of a trace.json that tests of simulate and launch share (tests/cli_trace_test.cc).
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace pstwin::testing_support {

/// One "X" event of a trace.
struct TraceSpan {
  std::string name;
  long long ts = 0;
  long long dur = 0;
};

/// Checks that `trace` is in the Trace Event Format as Perfetto reads it: an object with a
/// "traceEvents" array whose "M" events name every process used and whose "X" events carry a
/// name, integer pid and tid, and integer ts >= 0 and dur >= 0. Returns the "X" events by the
/// process's name ("worker:0", ...), in file order.
inline std::map<std::string, std::vector<TraceSpan>> check_trace_format(const nlohmann::json& trace) {
  std::map<std::string, std::vector<TraceSpan>> by_node;
  EXPECT_TRUE(trace.is_object());
  if (!trace.is_object() || !trace.contains("traceEvents") || !trace["traceEvents"].is_array()) {
    ADD_FAILURE() << "no traceEvents array";
    return by_node;
  }
  std::map<long long, std::string> process_names;
  for (const auto& e : trace["traceEvents"])
    if (e.at("ph") == "M" && e.at("name") == "process_name")
      process_names[e.at("pid").get<long long>()] = e.at("args").at("name").get<std::string>();
  for (const auto& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph").get<std::string>();
    EXPECT_TRUE(ph == "M" || ph == "X") << e.dump();
    EXPECT_TRUE(e.at("pid").is_number_integer() && e.at("tid").is_number_integer()) << e.dump();
    if (ph != "X") continue;
    EXPECT_TRUE(e.at("name").is_string()) << e.dump();
    EXPECT_TRUE(e.at("ts").is_number_integer() && e.at("dur").is_number_integer()) << e.dump();
    EXPECT_GE(e.at("ts").get<long long>(), 0) << e.dump();
    EXPECT_GE(e.at("dur").get<long long>(), 0) << e.dump();
    const auto pid = e.at("pid").get<long long>();
    EXPECT_TRUE(process_names.count(pid)) << "pid " << pid << " has no process_name";
    by_node[process_names[pid]].push_back(
        {e.at("name").get<std::string>(), e.at("ts").get<long long>(), e.at("dur").get<long long>()});
  }
  return by_node;
}

/// Checks that each of `workers` workers' spans account for its `iterations` iterations: in
/// time order, wait_pull, compute, push, once per iteration, none overlapping the next.
inline void expect_worker_iterations(const std::map<std::string, std::vector<TraceSpan>>& by_node,
                                     int workers, int iterations) {
  for (int w = 0; w < workers; ++w) {
    const std::string node = "worker:" + std::to_string(w);
    auto it = by_node.find(node);
    if (it == by_node.end()) {
      ADD_FAILURE() << node << " has no spans";
      continue;
    }
    std::vector<TraceSpan> spans = it->second;
    std::stable_sort(spans.begin(), spans.end(),
                     [](const TraceSpan& a, const TraceSpan& b) {
                       // A span of no length (a push in simulation, where sends take no time)
                       // comes before a longer one starting with it: it ended first.
                       return a.ts != b.ts ? a.ts < b.ts : a.dur < b.dur;
                     });
    ASSERT_EQ(spans.size(), static_cast<std::size_t>(3 * iterations)) << node;
    const char* cycle[] = {"wait_pull", "compute", "push"};
    for (std::size_t i = 0; i < spans.size(); ++i) {
      EXPECT_EQ(spans[i].name, cycle[i % 3]) << node << " span " << i;
      // Rounded to whole microseconds each: an end may pass the next start by one.
      if (i + 1 < spans.size()) {
        EXPECT_LE(spans[i].ts + spans[i].dur, spans[i + 1].ts + 1) << node << " span " << i;
      }
    }
  }
}

}  // namespace pstwin::testing_support

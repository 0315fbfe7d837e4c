// A stop that came once a launched run had completed, after its scheduler had returned (while its
// outputs were written): said in the summary and as an event, never left unsaid. A trial's SIGHUP
// just after completion once left a completed run's reason empty.
#include "runtime/output/late_stop.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// The events of type `type` in DIR/events.jsonl, in file order.
std::vector<json> events_of(const std::string& dir, const std::string& type) {
  std::ifstream in(dir + "/events.jsonl");
  std::vector<json> found;
  for (std::string line; std::getline(in, line);)
    if (auto e = json::parse(line); e["type"] == type) found.push_back(e);
  return found;
}

json completed_summary(const std::string& stop_reason, const std::string& reason) {
  return json{{"completed", true}, {"diverged", false}, {"stop_reason", stop_reason}, {"iterations", 40},
              {"final_clock", 40}, {"reason", reason}};
}

TEST(LateStop, AStopAfterTheSchedulerReturnedIsSaidInTheReasonAndAsAnEvent) {
  const ScratchDir scratch("late_stop");
  const std::string dir = scratch.path().string();
  RunRecorder recorder(dir, std::nullopt);
  json summary = completed_summary("iterations", "");
  note_stop_after_completion(summary, recorder, 2.5, "stopped by SIGHUP");
  EXPECT_EQ(summary["reason"],
            "the job had completed (all 40 clocks done) when it was stopped by SIGHUP: the signal came after completion");
  EXPECT_TRUE(summary["completed"].get<bool>());
  const auto events = events_of(dir, "stopped_after_completion");
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ(events[0]["reason"], "stopped by SIGHUP");
  EXPECT_EQ(events[0]["clock"], 40);
  EXPECT_EQ(events[0]["time_s"], 2.5);
}

TEST(LateStop, AStoppingRulesReasonIsKeptAndTheNoteFollowsIt) {
  const ScratchDir scratch("late_stop");
  RunRecorder recorder(scratch.path().string(), std::nullopt);
  json summary = completed_summary("target_metric", "test accuracy 0.81 reached the target 0.8");
  note_stop_after_completion(summary, recorder, 1.0, "stopped by SIGINT");
  EXPECT_EQ(summary["reason"],
            "test accuracy 0.81 reached the target 0.8; the job had completed (its target_metric rule had ended "
            "training) when it was stopped by SIGINT: the signal came after completion");
}

TEST(LateStop, NothingChangesWhenTheSchedulerNotedItOrTheRunDidNotComplete) {
  const ScratchDir scratch("late_stop");
  const std::string dir = scratch.path().string();
  RunRecorder recorder(dir, std::nullopt);
  recorder.event(1.0, "stopped_after_completion", {{"reason", "stopped by SIGHUP"}, {"clock", 40}});
  json noted = completed_summary("iterations", "the scheduler's own note");
  note_stop_after_completion(noted, recorder, 2.0, "stopped by SIGHUP");
  EXPECT_EQ(noted["reason"], "the scheduler's own note");
  RunRecorder other(dir + "/other", std::nullopt);
  json stopped{{"completed", false}, {"reason", "the job was stopped by SIGHUP at clock 3 of 40"}};
  note_stop_after_completion(stopped, other, 2.0, "stopped by SIGHUP");
  EXPECT_EQ(stopped["reason"], "the job was stopped by SIGHUP at clock 3 of 40");
  json diverged = completed_summary("diverged", "training diverged");
  diverged["diverged"] = true;
  note_stop_after_completion(diverged, other, 2.0, "stopped by SIGHUP");
  EXPECT_EQ(diverged["reason"], "training diverged");
  other.flush();
  EXPECT_TRUE(events_of(dir + "/other", "stopped_after_completion").empty());
}

}  // namespace
}  // namespace pstwin

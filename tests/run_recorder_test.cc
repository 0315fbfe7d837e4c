// RunRecorder's time-to-target in both metric directions, the "metric" of summary.json, and what
// its files hold while it runs (all a killed run leaves).
#include "runtime/output/run_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "runtime/output/summary.h"

namespace pstwin {
namespace {

std::string temp_dir(const std::string& tag) {
  const auto dir = std::filesystem::path(::testing::TempDir()) /
                   ("pstwin_recorder_" + tag + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir.string();
}

void feed(RunRecorder& r, std::initializer_list<double> metrics) {
  double t = 1.0;
  for (double m : metrics) {
    EvalRow row;
    row.time_s = t++;
    row.test_metric = m;
    r.eval(row);
  }
}

TEST(RunRecorder, TimeToTargetIsReachedFromBelowForAccuracyAndFromAboveForRmse) {
  const std::string dir = temp_dir("target");
  RunRecorder accuracy(dir + "/a", 0.8);  // default goal: accuracy, higher is better
  feed(accuracy, {0.5, 0.79, 0.81, 0.7});
  EXPECT_EQ(accuracy.time_to_target_s(), 3.0);
  EXPECT_EQ(accuracy.metric_goal().name, "accuracy");

  RunRecorder rmse(dir + "/r", 0.88, MetricGoal{"rmse", false});
  feed(rmse, {1.04, 0.9, 0.88, 0.87});
  EXPECT_EQ(rmse.time_to_target_s(), 3.0);  // <= for a lower-is-better metric

  RunRecorder never(dir + "/n", 0.8, MetricGoal{"rmse", false});
  feed(never, {1.0, 0.9});
  EXPECT_FALSE(never.time_to_target_s().has_value());

  Scenario s;
  s.name = "x";
  ConsistencyVariant v;
  v.name = "bsp";
  RunFacts facts;
  EXPECT_EQ(make_summary(s, v, rmse, facts)["metric"], "rmse");
  RunRecorder none(dir + "/s", std::nullopt, MetricGoal{"", true});
  EXPECT_TRUE(make_summary(s, v, none, facts)["metric"].is_null());
  std::filesystem::remove_all(dir);
}

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(RunRecorder, TheHeaderAndTheFirstEvaluationWithItsEventsAreInTheFilesAtOnce) {
  // A stopped simulate kills its variant's process: what the files hold before the recorder is
  // destroyed is all the run leaves (an empty metrics.csv, before the fix).
  const std::string dir = temp_dir("live");
  RunRecorder r(dir, std::nullopt);
  const std::string header =
      "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max\n";
  EXPECT_EQ(contents(dir + "/metrics.csv"), header);
  r.event(0.5, "straggler_start", {{"worker", 1}});
  EvalRow row;
  row.time_s = 1.5;
  row.clock = 10;
  row.train_loss = 0.25;
  row.test_loss = 0.5;
  row.test_metric = 0.75;
  r.eval(row);
  EXPECT_EQ(contents(dir + "/metrics.csv"), header + "1.5,10,0,0.25,0.5,0.75,0,0\n");
  EXPECT_EQ(contents(dir + "/events.jsonl"), R"({"time_s":0.5,"type":"straggler_start","worker":1})" "\n");
  std::filesystem::remove_all(dir);
}

TEST(RunRecorder, AStoppedRunsProgressIsTheShareOfClocksItsWorkersPushed) {
  // 2 workers x 1000 clocks: 300 pushes are 15%, whatever was last evaluated (clock 100, 10%).
  EXPECT_DOUBLE_EQ(clocks_share(300, 2, 1000, 100), 0.15);
  // A resumed job pushes only the clocks after its checkpoint: its evaluated clock counts.
  EXPECT_DOUBLE_EQ(clocks_share(300, 2, 1000, 400), 0.4);
  // A restarted worker pushes some clocks twice: never past 1.
  EXPECT_DOUBLE_EQ(clocks_share(2500, 2, 1000, 0), 1.0);
  EXPECT_DOUBLE_EQ(clocks_share(10, 0, 1000, 0), 0.0);

  // The recorder counts the workers' "push" spans, one per clock, and only those.
  const std::string dir = temp_dir("push_count");
  RunRecorder recorder(dir, std::nullopt);
  std::uint64_t told = 0;
  recorder.on_push = [&](std::uint64_t clocks_done, double) { told = clocks_done; };
  for (int clock = 0; clock < 3; ++clock)
    for (std::uint32_t worker : {3u, 4u}) {
      recorder.span(worker, "compute", clock, clock + 0.5);
      recorder.span(worker, "push", clock + 0.5, clock + 0.6);
    }
  recorder.span(1, "apply_push", 0.7, 0.8);
  EXPECT_EQ(recorder.worker_clocks_done(), 6u);
  EXPECT_EQ(told, 6u);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pstwin

// RunRecorder's time-to-target in both metric directions, and the "metric" of summary.json.
#include "runtime/output/run_recorder.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
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

}  // namespace
}  // namespace pstwin

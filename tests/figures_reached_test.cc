// The figures of a run cut short, read back from its metrics.csv (a stopped simulate or sweep
// variant's summary): known rows written by hand, in both metric directions.
#include "runtime/output/figures_reached.h"

#include <gtest/gtest.h>

#include <string>

#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

std::string metrics_file(const ScratchDir& dir, const std::string& rows) {
  return dir.write("metrics.csv", kMetricsCsvHeader + rows);
}

TEST(FiguresReached, TheLastRowsFiguresAndTheFirstRowAtTheTarget) {
  const ScratchDir dir("figures");
  const std::string path = metrics_file(dir,
      "0.5,0,0,2.3,2.3,0.1,0,0\n"
      "1.25,10,80,0.9,0.95,0.81,0.5,2\n"
      "2,20,160,0.7,0.75,0.79,0.25,1\n"
      "2.5,30,240,,0.6,0.85,0,0\n");
  json s;
  add_figures_reached(s, path, 0.8, MetricGoal{"accuracy", true});
  EXPECT_EQ(s["metric"], "accuracy");
  EXPECT_EQ(s["final_test_metric"], 0.85);
  EXPECT_EQ(s["final_test_loss"], 0.6);
  EXPECT_TRUE(s["final_train_loss"].is_null()) << "an empty field: not finite";
  EXPECT_EQ(s["final_clock"], 30);
  EXPECT_EQ(s["updates"], 240);
  EXPECT_EQ(s["sim_time_s"], 2.5);
  EXPECT_EQ(s["target_metric"], 0.8);
  EXPECT_EQ(s["time_to_target_s"], 1.25) << "the first row at 0.8 or above, not the last";
  // The windows' staleness means weighted by the gradients each applied (80 each after the first
  // row's 0): (0.5 x 80 + 0.25 x 80 + 0 x 80) / 240 = 0.25; the largest window max, 2. A trial's
  // stopped run that had applied thousands of gradients showed no staleness at all.
  EXPECT_DOUBLE_EQ(s["staleness_mean"].get<double>(), 0.25);
  EXPECT_EQ(s["staleness_max"], 2);
}

TEST(FiguresReached, AnRmseReachesItsTargetFromAbove) {
  const ScratchDir dir("figures");
  const std::string path = metrics_file(dir, "1,5,10,1.2,1.2,1.1,0,0\n2,10,20,0.9,0.9,0.95,0,0\n3,15,30,0.8,0.8,0.9,0,0\n");
  json s;
  add_figures_reached(s, path, 0.95, MetricGoal{"rmse", false});
  EXPECT_EQ(s["time_to_target_s"], 2.0);
  add_figures_reached(s, path, 0.5, MetricGoal{"rmse", false});
  EXPECT_TRUE(s["time_to_target_s"].is_null()) << "never reached";
  EXPECT_EQ(s["final_test_metric"], 0.9);
}

TEST(FiguresReached, ReadingStopsAtARowThatDoesNotParse) {
  const ScratchDir dir("figures");
  const std::string path = metrics_file(dir, "1,5,10,1.2,1.2,0.5,0,0\n2,10,2x,0.9,0.9,0.9,0,0\n3,15,30,0.8,0.8,0.95,0,0\n");
  json s;
  add_figures_reached(s, path, std::nullopt, MetricGoal{"accuracy", true});
  EXPECT_EQ(s["final_clock"], 5);
  EXPECT_EQ(s["final_test_metric"], 0.5);
  EXPECT_TRUE(s["time_to_target_s"].is_null()) << "no target";
  EXPECT_TRUE(s["target_metric"].is_null());
}

TEST(FiguresReached, NoRowsGiveNullFiguresAndClockZero) {
  const ScratchDir dir("figures");
  for (const std::string& path : {metrics_file(dir, ""), dir.file("missing.csv")}) {
    json s;
    add_figures_reached(s, path, 0.8, MetricGoal{"", true});
    EXPECT_TRUE(s["metric"].is_null()) << path;
    EXPECT_TRUE(s["final_test_metric"].is_null()) << path;
    EXPECT_TRUE(s["time_to_target_s"].is_null()) << path;
    EXPECT_EQ(s["final_clock"], 0) << path;
    EXPECT_EQ(s["updates"], 0) << path;
    EXPECT_EQ(s["staleness_mean"], 0.0) << path;
    EXPECT_EQ(s["staleness_max"], 0) << path;
  }
}

}  // namespace
}  // namespace pstwin

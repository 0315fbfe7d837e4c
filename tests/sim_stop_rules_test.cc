// How long a simulated run lasts: stop_at_target and time_budget end it at the first evaluation
// that meets them (compared with the same run without them), and epochs fix the data it sees.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

struct Row {
  double time_s = 0.0;
  std::int64_t clock = 0;
  double test_metric = 0.0;
};

/// The rows of a variant's metrics.csv (time_s, clock and test_metric).
std::vector<Row> rows_of(const std::string& variant_dir) {
  std::istringstream lines(read_file(variant_dir + "/metrics.csv"));
  std::string line;
  std::getline(lines, line);  // header: time_s,clock,updates,train_loss,test_loss,test_metric,...
  std::vector<Row> rows;
  while (std::getline(lines, line)) {
    std::vector<std::string> f;
    std::istringstream cells(line);
    for (std::string c; std::getline(cells, c, ',');) f.push_back(c);
    rows.push_back(Row{std::stod(f.at(0)), std::stoll(f.at(1)), std::stod(f.at(5))});
  }
  return rows;
}

/// The toy scenario with BSP alone, its data in `dir` named by absolute paths (so that copies
/// of it may be written into sub-folders).
json bsp_toy(const std::string& dir) {
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s["data"]["train"] = dir + "/train.svm";
  s["data"]["test"] = dir + "/test.svm";
  return s;
}

/// simulate() into a new sub-folder `name` of `dir`.
std::string simulate_in(const std::string& dir, const std::string& name, const json& s) {
  std::filesystem::create_directories(dir + "/" + name);
  return simulate(dir + "/" + name, s);
}

TEST(SimStopRules, StopAtTargetEndsAtTheFirstEvaluationAtOrPastTheTarget) {
  const std::string dir = fresh_dir();
  json s = bsp_toy(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}, {{"mode", "asp"}}});
  const std::string full_out = simulate(dir, s);
  std::map<std::string, std::vector<Row>> full;
  for (const char* v : {"bsp", "asp"}) {
    full[v] = rows_of(full_out + "/" + v);
    ASSERT_GE(full[v].size(), 4u) << v;
  }
  // A target both runs reach early: the lower metric of their third evaluations.
  const double target = std::min(full["bsp"][2].test_metric, full["asp"][2].test_metric);
  s["training"]["target_metric"] = target;
  s["training"]["stop_at_target"] = true;
  const std::string out = simulate_in(dir, "stop", s);
  for (const char* v : {"bsp", "asp"}) {
    const std::vector<Row>& rows = full[v];
    std::size_t first = 0;
    while (rows[first].test_metric < target) ++first;
    ASSERT_LT(first + 1, rows.size()) << v;
    const json summary = read_json(out + "/" + v + "/summary.json");
    EXPECT_EQ(summary["stop_reason"], "target_metric") << summary.dump(2);
    EXPECT_TRUE(summary["completed"].get<bool>());
    // The summary's result is that evaluation's: nothing evaluated after it.
    EXPECT_EQ(summary["final_clock"].get<std::int64_t>(), rows[first].clock) << v;
    EXPECT_DOUBLE_EQ(summary["final_test_metric"].get<double>(), rows[first].test_metric) << v;
    EXPECT_DOUBLE_EQ(summary["time_to_target_s"].get<double>(), rows[first].time_s) << v;
    EXPECT_LT(summary["sim_time_s"].get<double>(), rows.back().time_s) << v;
    EXPECT_EQ(rows_of(out + "/" + v).size(), first + 1) << v;
    EXPECT_EQ(events_of(out + "/" + v, "stopped").size(), 1u) << v;
  }
}

TEST(SimStopRules, TimeBudgetEndsAtTheFirstEvaluationPastIt) {
  const std::string dir = fresh_dir();
  json s = bsp_toy(dir);
  const std::string full_out = simulate(dir, s);
  const std::vector<Row> full = rows_of(full_out + "/bsp");
  ASSERT_GE(full.size(), 4u);
  EXPECT_EQ(read_json(full_out + "/bsp/summary.json")["stop_reason"], "iterations");

  std::ostringstream budget;
  budget.precision(17);
  budget << full[2].time_s << "s";
  s["training"]["time_budget"] = budget.str();
  const std::string out = simulate_in(dir, "budget", s);
  const json summary = read_json(out + "/bsp/summary.json");
  EXPECT_EQ(summary["stop_reason"], "time_budget") << summary.dump(2);
  EXPECT_EQ(summary["final_clock"].get<std::int64_t>(), full[2].clock);
  EXPECT_EQ(rows_of(out + "/bsp").size(), 3u);
}

TEST(SimStopRules, EpochsGiveTheSameDataForFourAndEightWorkers) {
  const std::string dir = fresh_dir();
  json s = bsp_toy(dir);
  s["training"].erase("iterations");
  s["training"]["epochs"] = 1;
  // 2000 rows in batches of 32: ceil(2000 / 128) = 16 clocks of 4 workers (2048 examples),
  // ceil(2000 / 256) = 8 clocks of 8 workers (2048 examples).
  for (const auto& [workers, clocks] : {std::pair{4, 16}, std::pair{8, 8}}) {
    s["cluster"]["workers"] = workers;
    const std::string out = simulate_in(dir, "w" + std::to_string(workers), s);
    const json summary = read_json(out + "/bsp/summary.json");
    EXPECT_EQ(summary["iterations"].get<int>(), clocks) << workers << " workers";
    EXPECT_EQ(summary["final_clock"].get<int>(), clocks) << workers << " workers";
    EXPECT_EQ(summary["stop_reason"], "epochs");
    EXPECT_EQ(clocks * workers * 32, 2048);
  }
}

}  // namespace
}  // namespace pstwin

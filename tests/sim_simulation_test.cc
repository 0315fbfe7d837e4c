// Whole simulated runs on toy data: determinism, consistency guarantees as observed in the
// outputs, convergence, and divergence handling.
#include <gtest/gtest.h>

#include <cmath>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(Simulation, SameSeedGivesIdenticalMetricsAndParameters) {
  const std::string dir = fresh_dir();
  const auto scenario = toy_scenario(dir);
  std::filesystem::create_directories(dir + "/a");
  std::filesystem::create_directories(dir + "/b");
  std::filesystem::copy(dir + "/train.svm", dir + "/a/train.svm");
  std::filesystem::copy(dir + "/test.svm", dir + "/a/test.svm");
  std::filesystem::copy(dir + "/train.svm", dir + "/b/train.svm");
  std::filesystem::copy(dir + "/test.svm", dir + "/b/test.svm");
  const auto a = simulate(dir + "/a", scenario);
  const auto b = simulate(dir + "/b", scenario, "--jobs 1");
  for (const char* variant : {"bsp", "asp", "ssp2"}) {
    const std::string ma = read_file(a + "/" + variant + "/metrics.csv");
    ASSERT_FALSE(ma.empty()) << variant;
    EXPECT_EQ(ma, read_file(b + "/" + variant + "/metrics.csv")) << variant;
    EXPECT_EQ(read_json(a + "/" + variant + "/summary.json")["params_sha256"],
              read_json(b + "/" + variant + "/summary.json")["params_sha256"])
        << variant;
    EXPECT_EQ(read_file(a + "/" + variant + "/events.jsonl"),
              read_file(b + "/" + variant + "/events.jsonl"))
        << variant;
  }
}

TEST(Simulation, DifferentSeedChangesTheRun) {
  const std::string dir = fresh_dir();
  auto scenario = toy_scenario(dir);
  scenario["consistency"] = nlohmann::json::parse(R"([{"mode": "asp"}])");
  const auto a = simulate(dir, scenario);
  const auto sha_a = read_json(a + "/asp/summary.json")["params_sha256"];
  scenario["seed"] = 4;
  const auto b = simulate(dir, scenario);
  EXPECT_NE(sha_a, read_json(b + "/asp/summary.json")["params_sha256"]);
}

TEST(Simulation, StalenessObeysEachConsistencyModel) {
  const std::string dir = fresh_dir();
  const auto out = simulate(dir, toy_scenario(dir));
  const auto bsp = read_json(out + "/bsp/summary.json");
  const auto ssp = read_json(out + "/ssp2/summary.json");
  const auto asp = read_json(out + "/asp/summary.json");
  // BSP applies each clock's gradients together, all computed on that clock's parameters.
  EXPECT_EQ(bsp["staleness_max"], 0);
  // SSP(s): a gradient is at most s clocks older than the shard's clock when applied.
  EXPECT_LE(ssp["staleness_max"].get<int>(), 2);
  EXPECT_GT(ssp["staleness_mean"].get<double>(), 0.0);
  // ASP never blocks, so with stragglers the fast workers run ahead: staleness shows up.
  EXPECT_GT(asp["staleness_mean"].get<double>(), 0.0);
  // Every variant applies every gradient: 4 workers x 60 iterations.
  for (const auto* s : {&bsp, &ssp, &asp}) EXPECT_EQ((*s)["updates"], 240);
}

TEST(Simulation, BspWaitsForStragglersAndSspDoesNot) {
  const std::string dir = fresh_dir();
  const auto out = simulate(dir, toy_scenario(dir));
  const double bsp = read_json(out + "/bsp/summary.json")["sim_time_s"];
  const double ssp = read_json(out + "/ssp2/summary.json")["sim_time_s"];
  const double asp = read_json(out + "/asp/summary.json")["sim_time_s"];
  EXPECT_LT(ssp, bsp);
  EXPECT_LE(asp, ssp + 1e-9);
}

TEST(Simulation, BackupWorkersCutTheBarrierShort) {
  const std::string dir = fresh_dir();
  auto scenario = toy_scenario(dir);
  scenario["consistency"] =
      nlohmann::json::parse(R"([{"mode": "bsp"}, {"mode": "bsp", "backup_workers": 1}])");
  const auto out = simulate(dir, scenario);
  const auto plain = read_json(out + "/bsp/summary.json");
  const auto backup = read_json(out + "/bsp-b1/summary.json");
  // Each clock applies the first 3 of 4 gradients; the 4th is dropped and logged.
  EXPECT_EQ(backup["updates"], 3 * 60);
  EXPECT_EQ(backup["staleness_max"], 0);
  EXPECT_LT(backup["sim_time_s"].get<double>(), plain["sim_time_s"].get<double>());
  EXPECT_NE(read_file(out + "/bsp-b1/events.jsonl").find("gradient_dropped"), std::string::npos);
}

TEST(Simulation, LearnsTheToyProblem) {
  const std::string dir = fresh_dir();
  const auto out = simulate(dir, toy_scenario(dir));
  for (const char* variant : {"bsp", "asp", "ssp2"}) {
    const auto s = read_json(out + "/" + variant + "/summary.json");
    EXPECT_GE(s["final_test_metric"].get<double>(), 0.85) << variant;
    EXPECT_FALSE(s["time_to_target_s"].is_null()) << variant;
    EXPECT_TRUE(s["completed"].get<bool>());
    EXPECT_FALSE(s["diverged"].get<bool>());
  }
  // One row per evaluation: clocks 0, 10, ..., 60.
  const std::string csv = read_file(out + "/bsp/metrics.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 1 + 7);
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max");
}

TEST(Simulation, DivergingTrainingStopsWithAClearReason) {
  const std::string dir = fresh_dir();
  auto scenario = toy_scenario(dir);
  scenario["training"]["learning_rate"] = 1e38;
  const auto out = simulate(dir, scenario);
  for (const char* variant : {"bsp", "asp", "ssp2"}) {
    const auto s = read_json(out + "/" + variant + "/summary.json");
    EXPECT_TRUE(s["diverged"].get<bool>()) << variant;
    EXPECT_NE(s["reason"].get<std::string>().find("diverged"), std::string::npos);
    const std::string csv = read_file(out + "/" + variant + "/metrics.csv");
    EXPECT_EQ(csv.find("nan"), std::string::npos) << csv;
    EXPECT_EQ(csv.find("inf"), std::string::npos) << csv;
    EXPECT_NE(read_file(out + "/" + variant + "/events.jsonl").find("\"diverged\""),
              std::string::npos);
  }
  const std::string table = read_file(out + "/comparison.csv");
  EXPECT_NE(table.find("DIVERGED"), std::string::npos);
}

TEST(Simulation, DivergenceSeenOnlyAtTheFinalEvaluationIsReported) {
  // eval_every does not divide iterations: the only evaluation after training is the final one.
  const std::string dir = fresh_dir();
  auto scenario = toy_scenario(dir);
  scenario["training"]["iterations"] = 2;
  scenario["training"]["eval_every"] = 20;
  scenario["training"]["learning_rate"] = 1e38;
  scenario["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  const auto out = simulate(dir, scenario);
  const auto s = read_json(out + "/bsp/summary.json");
  EXPECT_TRUE(s["diverged"].get<bool>()) << s.dump(2);
  EXPECT_NE(s["reason"].get<std::string>().find("final clock 2"), std::string::npos) << s["reason"];
}

}  // namespace
}  // namespace pstwin

// What the outputs of a stopped run say: every summary names its scenario, metric and target
// (a trial's figures of a run whose variants were all stopped were titled with the folder's name,
// and sweep.csv rows of runs never started had no metric or target), comparison.csv calls the
// last evaluation's figures "last", not "final", and the table claims no metric "at stop" when no
// variant ever started.
#include <gtest/gtest.h>

#include <sstream>

#include "cli/comparison.h"
#include "cli/stopped_summary.h"
#include "runtime/output/summary.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using json = nlohmann::json;

/// toy_scenario's variant `index` (bsp, asp, ssp2), as simulate runs it.
Scenario toy_run(const std::string& dir, std::size_t index) {
  write_json(dir + "/toy.json", toy_scenario(dir));
  return scenario_for_variant(load_scenario(dir + "/toy.json"), index);
}

TEST(StoppedOutputs, AVariantNeverStartedNamesItsScenarioMetricAndTarget) {
  const std::string dir = fresh_dir();
  cli::VariantStatus never;  // exit_code -1: never started
  never.name = "asp";
  never.stopped = true;
  const json s = cli::stopped_variant_summary(toy_run(dir, 1), never, dir + "/asp", "stopped by SIGINT", "SIGINT");
  EXPECT_EQ(s["scenario"], "toy");
  EXPECT_EQ(s["variant"], "asp");
  EXPECT_EQ(s["metric"], "accuracy");
  EXPECT_EQ(s["target_metric"], 0.8);
  EXPECT_EQ(s["workers"], 4);
  EXPECT_EQ(s["servers"], 2);
  EXPECT_EQ(s["started"], false);
  // A launch's summary of a job whose scheduler wrote none says the same of its run.
  const json launched = unfinished_summary(toy_run(dir, 2), "zmq", "the scheduler was killed");
  EXPECT_EQ(launched["scenario"], "toy");
  EXPECT_EQ(launched["variant"], "ssp2");
  EXPECT_EQ(launched["metric"], "accuracy");
  EXPECT_EQ(launched["target_metric"], 0.8);
}

TEST(StoppedOutputs, ComparisonCsvCallsTheLastEvaluationsFiguresLast) {
  const std::string dir = fresh_dir();
  const json completed = {{"variant", "bsp"},           {"completed", true},   {"final_test_metric", 0.84},
                          {"final_test_loss", 0.41},     {"stop_reason", "iterations"}};
  const json stopped = {{"variant", "asp"},           {"completed", false},  {"final_test_metric", 0.62},
                        {"final_test_loss", 0.7},       {"stop_reason", "SIGINT"}, {"progress", 0.4}};
  cli::write_comparison_csv(dir + "/comparison.csv", {completed, stopped});
  const std::string csv = read_file(dir + "/comparison.csv");
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "variant,mode,time_to_target_s,last_test_metric,last_test_loss,updates,staleness_mean,staleness_max,"
            "sim_time_s,wall_time_s,time_lost_s,bytes_sent,bytes_to_servers,params_sha256,stop_reason,status");
  EXPECT_NE(csv.find("\nbsp,,,0.84,0.41,"), std::string::npos) << csv;
  EXPECT_NE(csv.find("\nasp,,,0.62,0.7,"), std::string::npos) << csv;
  EXPECT_EQ(csv.find("final"), std::string::npos) << csv;
}

std::string table_header(const std::vector<json>& summaries) {
  std::ostringstream out;
  cli::print_comparison_table(out, summaries);
  return out.str().substr(0, out.str().find('\n'));
}

TEST(StoppedOutputs, TheMetricColumnClaimsNoValueAtAStopWhenNoVariantStarted) {
  const json before = {{"variant", "bsp"},        {"metric", "accuracy"}, {"completed", false},
                       {"stop_reason", "SIGINT"}, {"started", false}};
  json other = before;
  other["variant"] = "asp";
  const std::string header = table_header({before, other});
  EXPECT_NE(header.find("test accuracy"), std::string::npos) << header;
  EXPECT_EQ(header.find("at stop"), std::string::npos) << header;
  EXPECT_EQ(header.find("final"), std::string::npos) << header;
  EXPECT_EQ(header.find("last"), std::string::npos) << header;
  // One stopped after it started: its value is the one at the stop.
  json cut = before;
  cut.erase("started");
  cut["progress"] = 0.3;
  cut["final_test_metric"] = 0.7;
  EXPECT_NE(table_header({cut, other}).find("test accuracy at stop"), std::string::npos);
}

}  // namespace
}  // namespace pstwin

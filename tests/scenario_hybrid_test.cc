// "sync": "hybrid" on a consistency entry: what it is parsed to, its default names, and the
// scenarios it refuses, each at the JSON pointer of the entry's "sync".
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/scenario/scenario.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::error_message;
using testing_support::error_pointer;

/// 8 workers on 2 hosts of 4, synthetic model; plain BSP and hybrid BSP, SSP, ASP.
json hosts_scenario() {
  return json::parse(R"({
    "name": "hybrid", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6,
              "bytes_per_iteration": 1e6},
    "training": {"iterations": 3},
    "consistency": [{"mode": "bsp"}, {"mode": "bsp", "sync": "hybrid"},
                    {"mode": "ssp", "staleness": 2, "sync": "hybrid"},
                    {"mode": "asp", "sync": "ps", "name": "asp-plain"}],
    "cluster": {"workers": 8, "servers": 2, "workers_per_host": 4, "intra_host": "nvlink4",
                "worker": {"device": "h100", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}
  })");
}

TEST(ScenarioHybrid, SyncIsReadPerEntryAndNamesTheFolder) {
  const Scenario s = parse_scenario(hosts_scenario());
  ASSERT_EQ(s.consistency.size(), 4u);
  EXPECT_EQ(s.consistency[0].config.sync, SyncMode::kPs);  // the default: today's behaviour
  EXPECT_EQ(s.consistency[0].name, "bsp");
  EXPECT_EQ(s.consistency[1].config.sync, SyncMode::kHybrid);
  EXPECT_EQ(s.consistency[1].name, "bsp-hybrid");
  EXPECT_EQ(s.consistency[2].config.sync, SyncMode::kHybrid);
  EXPECT_EQ(s.consistency[2].name, "ssp2-hybrid");
  EXPECT_EQ(s.consistency[3].config.sync, SyncMode::kPs);
}

TEST(ScenarioHybrid, UnknownSyncIsRefused) {
  json doc = hosts_scenario();
  doc["consistency"][1]["sync"] = "allreduce";
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("hybrid"), std::string::npos) << error_message(doc);
}

TEST(ScenarioHybrid, OneWorkerPerHostIsAnErrorNotAPlainRun) {
  json doc = hosts_scenario();
  doc["cluster"].erase("workers_per_host");
  doc["cluster"].erase("intra_host");
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("workers_per_host is 1"), std::string::npos) << error_message(doc);
}

TEST(ScenarioHybrid, SparseModelIsRefused) {
  json doc = hosts_scenario();
  doc["model"] = {{"type", "mf"}, {"rank", 4}};
  doc["data"] = {{"format", "ratings"}, {"file", "ratings.csv"}};
  doc["training"] = {{"iterations", 3}, {"batch_size", 8}, {"learning_rate", 0.1}};
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("dense model"), std::string::npos) << error_message(doc);
}

TEST(ScenarioHybrid, BackupWorkersAreRefused) {
  json doc = hosts_scenario();
  doc["consistency"][1]["backup_workers"] = 1;
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("backup_workers"), std::string::npos) << error_message(doc);
}

TEST(ScenarioHybrid, FailuresAndFaultToleranceAreRefused) {
  json doc = hosts_scenario();
  doc["failures"] = json::parse(R"([{"node": "worker:1", "at": "1s"}])");
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("fault_tolerance or failures"), std::string::npos)
      << error_message(doc);
  doc.erase("failures");
  doc["fault_tolerance"] = {{"replication", 2}};
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  // Plain PS runs keep failures: only the hybrid entries are refused.
  doc["consistency"] = json::parse(R"([{"mode": "bsp"}])");
  EXPECT_EQ(error_pointer(doc), "<valid>");
}

// The in-host adds are priced as steps (Env::account): with an overhead or stragglers they would
// be charged as iterations, so both are refused for hybrid entries, and kept for plain ones.
TEST(ScenarioHybrid, DeviceOverheadAndStragglersAreRefused) {
  json doc = hosts_scenario();
  doc["cluster"]["worker"]["device"] = {{"preset", "h100"}, {"overhead", "2ms"}};
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("worker 0's is 0.002 s"), std::string::npos) << error_message(doc);
  doc = hosts_scenario();
  doc["stragglers"] = json::parse(R"([{"type": "slow", "workers": [1], "factor": 2}])");
  EXPECT_EQ(error_pointer(doc), "/consistency/1/sync");
  EXPECT_NE(error_message(doc).find("stragglers"), std::string::npos) << error_message(doc);
  doc["consistency"] = json::parse(R"([{"mode": "bsp"}])");
  EXPECT_EQ(error_pointer(doc), "<valid>");
}

TEST(ScenarioHybrid, AVariantsErrorPointsIntoTheVariant) {
  json doc = hosts_scenario();
  doc.erase("consistency");
  doc["variants"] = json::parse(R"([
    {"name": "ps", "consistency": {"mode": "bsp"}},
    {"name": "hybrid", "consistency": {"mode": "bsp", "sync": "hybrid"},
     "set": {"/cluster/workers_per_host": 1, "/cluster/intra_host": null}}])");
  EXPECT_EQ(error_pointer(doc), "/variants/1/consistency/sync");
  doc["variants"][1].erase("set");
  const Scenario s = parse_scenario(doc);
  EXPECT_EQ(scenario_for_variant(s, 1).consistency.at(0).config.sync, SyncMode::kHybrid);
}

}  // namespace
}  // namespace pstwin

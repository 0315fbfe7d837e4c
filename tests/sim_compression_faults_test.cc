// Error feedback across a worker failure (README, "Compression"): a worker that fails and
// restarts comes back with empty residuals, rejoins, and the job still trains to the accuracy
// the fault-free compressed run reaches.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

TEST(SimCompressionFaults, ARestartedWorkerWithErrorFeedbackRejoinsAndTrainsOn) {
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s.erase("stragglers");
  s["compression"] = json::parse(R"({"push": {"format": "topk", "ratio": 0.2}})");
  std::filesystem::create_directories(dir + "/clean");
  s["data"]["train"] = dir + "/train.svm";
  s["data"]["test"] = dir + "/test.svm";
  const json clean = read_json(simulate(dir + "/clean", s) + "/bsp/summary.json");
  const json failing = with_fault_tolerance(
      s, 1, "5ms", "20ms", json::array({{{"node", "worker:1"}, {"at", "30ms"}, {"recover_at", "60ms"}}}));
  std::filesystem::create_directories(dir + "/back");
  const std::string back = simulate(dir + "/back", failing);
  const json summary = read_json(back + "/bsp/summary.json");
  ASSERT_TRUE(summary["completed"].get<bool>()) << summary.dump(2);
  ASSERT_EQ(events_of(back + "/bsp", "worker_rejoined").size(), 1u);
  EXPECT_GE(summary["final_test_metric"].get<double>(), clean["final_test_metric"].get<double>() - 0.02);
}

}  // namespace
}  // namespace pstwin

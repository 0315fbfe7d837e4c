// Stragglers in launched runs: a worker is held for the extra time its slowdown adds, on the
// same schedule as the simulation, and events.jsonl says so.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

/// (worker, iteration, type, factor) of every straggler start and end in a variant's events.
using StragglerLine = std::tuple<int, int, std::string, double>;
std::set<StragglerLine> straggler_lines(const std::string& variant_dir) {
  std::set<StragglerLine> lines;
  for (const char* type : {"straggler_start", "straggler_end"})
    for (const auto& e : events_of(variant_dir, type))
      lines.emplace(e["worker"].get<int>(), e["iteration"].get<int>(), type, e.value("factor", 0.0));
  return lines;
}

TEST(LaunchStragglers, ASlowWorkerComputesAboutThreeTimesAsLongAsItsPeer) {
  const std::string dir = fresh_dir();
  // An MLP whose gradient takes milliseconds, so that the measured compute is well above the
  // noise of waking threads; BSP, so both workers compute at the same moments (sharing the
  // machine alike) and a free core is not the slow worker's alone.
  json s = toy_scenario(dir);
  s["model"] = {{"type", "mlp"}, {"hidden", {512, 512}}, {"l2", 1e-4}};
  s["training"] = {{"iterations", 40}, {"batch_size", 256}, {"learning_rate", 0.05}, {"eval_every", 40}};
  s["consistency"] = json::parse(R"([{"mode": "bsp"}])");
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  s["stragglers"] = json::parse(R"([{"type": "slow", "workers": [1], "factor": 3}])");
  write_json(dir + "/s.json", s);
  for (const std::string transport : {"zmq", "inproc"}) {
    const auto r = run_pstwin("launch " + dir + "/s.json --transport " + transport + " --out " + dir + "/" + transport);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const std::string run = dir + "/" + transport + "/bsp";
    const json compute = read_json(run + "/summary.json")["worker_compute_s"];
    ASSERT_EQ(compute.size(), 2u) << transport;
    const double peer = compute[0].get<double>(), slow = compute[1].get<double>();
    ASSERT_GT(peer, 0.0) << transport;
    // 3x in principle (2x of it the hold). A wide band: on a loaded machine the two workers'
    // threads can sit on unevenly busy cores for seconds at a time (seen: 2.0x to 3.7x with a
    // load of 7 on 2 cores). Without the hold the ratio is about 1.
    EXPECT_GT(slow / peer, 1.6) << transport << ": " << slow << " s against " << peer << " s";
    EXPECT_LT(slow / peer, 6.0) << transport << ": " << slow << " s against " << peer << " s";
    const auto starts = events_of(run, "straggler_start");
    ASSERT_EQ(starts.size(), 1u) << transport;
    EXPECT_EQ(starts[0]["worker"], 1);
    EXPECT_EQ(starts[0]["kind"], "slow");
    EXPECT_EQ(starts[0]["factor"], 3.0);
    EXPECT_EQ(starts[0]["iteration"], 0);
  }
}

TEST(LaunchStragglers, LaunchedAndSimulatedRunsSlowTheSameIterationsByTheSameFactors) {
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);  // transient stragglers: probability 0.2, factor 5
  s["stragglers"].push_back({{"type", "transient"}, {"probability", 0.1}, {"factor", 2},
                             {"iterations", 3}, {"workers", {2}}});
  s["consistency"] = json::parse(R"([{"mode": "bsp"}, {"mode": "asp"}])");
  write_json(dir + "/s.json", s);
  auto r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + dir + "/sim");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/zmq");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + dir + "/inproc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto simulated = straggler_lines(dir + "/sim/bsp");
  // 4 workers x 60 iterations at 0.2: about 48 episodes; every worker has some.
  EXPECT_GT(simulated.size(), 20u);
  for (const char* v : {"bsp", "asp"}) {
    EXPECT_EQ(straggler_lines(dir + "/sim/" + v), simulated) << v;  // timing plays no part
    EXPECT_EQ(straggler_lines(dir + "/zmq/" + v), simulated) << v;
    EXPECT_EQ(straggler_lines(dir + "/inproc/" + v), simulated) << v;
  }
}

}  // namespace
}  // namespace pstwin

// trace.json from pstwin simulate and pstwin launch: the Trace Event Format that Perfetto opens,
// with every worker's iterations in it.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"
#include "tests/trace_checks.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// The toy scenario, BSP only, short: 4 workers, 2 servers, 12 iterations.
nlohmann::json short_bsp(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  s["training"]["iterations"] = 12;
  s["training"]["eval_every"] = 6;
  return s;
}

TEST(Trace, SimulateWritesEveryWorkersIterations) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_bsp(dir));
  const auto r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto trace = read_json(dir + "/out/bsp/trace.json");
  EXPECT_EQ(trace["otherData"]["clock"], "simulated");
  const auto by_node = check_trace_format(trace);
  expect_worker_iterations(by_node, 4, 12);
  // Under BSP each server applies each worker's push of each clock once: 4 x 12.
  for (const char* server : {"server:0", "server:1"}) {
    int applied = 0;
    for (const auto& s : by_node.at(server)) applied += s.name == "apply_push";
    EXPECT_EQ(applied, 48) << server;
  }
  // The scheduler evaluates at clocks 0, 6 and 12.
  ASSERT_TRUE(by_node.count("scheduler"));
  EXPECT_EQ(by_node.at("scheduler").size(), 3u);
}

TEST(Trace, LaunchGathersEveryNodesSpansOnOneClock) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_bsp(dir));
  const auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto trace = read_json(dir + "/out/bsp/trace.json");
  EXPECT_EQ(trace["otherData"]["clock"], "wall");
  const auto by_node = check_trace_format(trace);
  expect_worker_iterations(by_node, 4, 12);
  // One clock, the job's: it starts at the end of the rendezvous, so every node's spans lie
  // within the run's sim_time_s, the job clock's reading at its end (a node's clock may lag the
  // scheduler's by the address book's delay).
  const double time_s = read_json(dir + "/out/bsp/summary.json")["sim_time_s"].get<double>();
  for (const auto& [node, spans] : by_node)
    for (const auto& s : spans) EXPECT_LE(s.ts + s.dur, time_s * 1e6 + 1000) << node << " " << s.name;
  // Under BSP no worker computes clock c+1 before every worker pushed clock c, so each worker's
  // k-th compute starts after every worker's (k-1)-th push started, up to the lag of one node's
  // clock behind another's (a busy machine's scheduling delays included).
  const long long lag_us = static_cast<long long>(20'000 * time_scale());
  std::vector<std::vector<long long>> computes(4), pushes(4);
  for (int w = 0; w < 4; ++w)
    for (const auto& s : by_node.at("worker:" + std::to_string(w))) {
      if (s.name == "compute") computes[w].push_back(s.ts);
      if (s.name == "push") pushes[w].push_back(s.ts);
    }
  for (int k = 1; k < 12; ++k)
    for (int a = 0; a < 4; ++a)
      for (int b = 0; b < 4; ++b)
        EXPECT_GE(computes[a][k] + lag_us, pushes[b][k - 1]) << "worker " << a << " clock " << k;
}

}  // namespace
}  // namespace pstwin

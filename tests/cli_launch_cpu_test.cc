// A launched job says how much CPU each node spent (DESIGN.md, "Validation against real runs"):
// a "node_cpu" event per node in events.jsonl, its role's thread and its whole process.
#include <gtest/gtest.h>

#include <map>
#include <thread>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
using nlohmann::json;

TEST(LaunchCpu, EveryNodeReportsItsCpuWithinWhatItsWallTimeAllows) {
  const std::string dir = fresh_dir();
  // An MLP whose gradient takes milliseconds, so that a worker's CPU is well above the clocks'
  // resolution. Toy data: 20 features, 2 classes.
  json s = toy_scenario(dir);
  s["model"] = {{"type", "mlp"}, {"hidden", {512, 512}}, {"l2", 1e-4}};
  s["training"] = {{"iterations", 20}, {"batch_size", 128}, {"learning_rate", 0.05}, {"eval_every", 10}};
  s["consistency"] = json::parse(R"([{"mode": "bsp"}])");
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  s["stragglers"] = json::array();
  write_json(dir + "/s.json", s);
  const auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/zmq");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string run = dir + "/zmq/bsp";
  const double job_wall_s = read_json(run + "/summary.json")["wall_time_s"].get<double>();
  std::map<std::string, json> by_node;
  for (const auto& e : events_of(run, "node_cpu")) by_node[e["node"].get<std::string>()] = e;
  ASSERT_EQ(by_node.size(), 4u) << "one per node: scheduler, server:0, worker:0, worker:1";
  const double cores = std::max(1u, std::thread::hardware_concurrency());
  for (const auto& [node, e] : by_node) {
    const double role = e["role_thread_s"], process = e["process_s"], wall = e["wall_s"];
    EXPECT_GT(role, 0.0) << node;
    EXPECT_GE(process, role) << node;
    // No process uses more CPU than every core of the machine for as long as it ran, and each
    // measured only its part of the job.
    EXPECT_LE(process, wall * cores) << node;
    EXPECT_LE(wall, job_wall_s) << node;
  }
  // What the kernels charge a worker, by hand, at least: each of its 20 gradients has a forward
  // pass of 2 x 128 x (20 x 512 + 512 x 512 + 512 x 2) flops and a backward pass (weight
  // gradients) of as many again; at 200 Gflop/s, more than one core of any CPU does in FP32
  // (2 FMA units x 16 lanes x 2 flops x 3 GHz), they take at least this much of its thread.
  const double flops = 20 * 2 * (2.0 * 128 * (20 * 512 + 512 * 512 + 512 * 2));
  for (const char* worker : {"worker:0", "worker:1"})
    EXPECT_GE(by_node[worker]["role_thread_s"].get<double>(), flops / 200e9) << worker;
}

TEST(LaunchCpu, InProcessNodesReportNone) {
  // Nodes sharing one process cannot tell their CPU apart: no event rather than a wrong one.
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);
  s["consistency"] = json::parse(R"([{"mode": "bsp"}])");
  s["training"]["iterations"] = 10;
  write_json(dir + "/s.json", s);
  const auto r = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + dir + "/inproc");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(events_of(dir + "/inproc/bsp", "node_cpu").empty());
}

}  // namespace
}  // namespace pstwin

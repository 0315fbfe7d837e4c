// Failures in real jobs: processes killed (SIGKILL) and restarted by `pstwin launch` over
// ZeroMQ (and UCX), and resuming from checkpoints.
#include <gtest/gtest.h>

#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// The toy logistic job, BSP, plain SGD, long enough (3,000 clocks, a few seconds over ZeroMQ
/// here) for failures injected at a few tenths of a second to land mid-run.
json long_bsp(const std::string& dir) {
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s.erase("stragglers");
  s["training"]["iterations"] = 3000;
  s["training"]["eval_every"] = 500;
  return s;
}

/// Fault tolerance with real-world timing: heartbeats every 50 ms, dead after 1 s of silence
/// (generous: 11 processes share 2 cores here), both times time_scale() under sanitizers.
json tolerant(json s, int replication, json failures = json::array()) {
  return with_fault_tolerance(std::move(s), replication, scaled_duration(0.05), scaled_duration(1.0),
                              std::move(failures));
}


/// Writes `scenario` to dir/NAME.json and launches it over ZeroMQ into dir/NAME.
CommandResult launch(const std::string& dir, const std::string& name, const json& scenario,
                     const std::string& extra = "") {
  write_json(dir + "/" + name + ".json", scenario);
  return run_pstwin("launch " + dir + "/" + name + ".json --out " + dir + "/" + name + " " + extra);
}

TEST(LaunchFaults, KilledPrimaryServerFailsOverWithTheParametersOfTheCleanRun) {
  const std::string dir = fresh_dir();
  const json base = long_bsp(dir);
  const std::string clean = simulate(dir, base);
  const auto r = launch(dir, "killed", tolerant(base, 2, json::array({{{"node", "server:0"}, {"at", "0.3s"}}})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/killed/bsp/summary.json");
  EXPECT_EQ(s["params_sha256"], sha_of(clean, "bsp"));
  EXPECT_EQ(s["updates"], 12000);  // 4 workers x 3,000 clocks, each applied once
  ASSERT_EQ(events_of(dir + "/killed/bsp", "node_failed").size(), 1u);
  const auto dead = events_of(dir + "/killed/bsp", "node_dead");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0]["node"], "server:0");
  EXPECT_EQ(events_of(dir + "/killed/bsp", "promoted").size(), 1u);
  EXPECT_GT(s["failures"].get<int>(), 0);
  EXPECT_GT(s["time_lost_s"].get<double>(), 0.0);
}

TEST(LaunchFaults, KilledWorkerLeavesTheBarrierWithinTheDetectionTimeout) {
  const std::string dir = fresh_dir();
  const auto r = launch(dir, "run", tolerant(long_bsp(dir), 1, json::array({{{"node", "worker:2"}, {"at", "0.3s"}}})));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/run/bsp/summary.json");
  EXPECT_TRUE(s["completed"].get<bool>());
  const auto failed = events_of(dir + "/run/bsp", "node_failed");
  const auto dead = events_of(dir + "/run/bsp", "node_dead");
  ASSERT_EQ(failed.size(), 1u);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0]["node"], "worker:2");
  // The barrier waited for worker 2 only until it was declared dead: the timeout, one heartbeat
  // interval, and some slack for a loaded machine and the two clocks' offset.
  EXPECT_LT(dead[0]["time_s"].get<double>() - failed[0]["time_s"].get<double>(),
            (1.0 + 0.05 + 0.5) * time_scale());
  EXPECT_LT(s["updates"].get<int>(), 12000);
  EXPECT_GE(s["updates"].get<int>(), 9000);
}

TEST(LaunchFaults, KilledServerOverUcxFailsOverWithTheParametersOfTheCleanRun) {
  // Pushes and replication travel over UCX here: a worker pushing to the killed server sees its
  // UCX endpoint fail (not hang), and the job fails over as over ZeroMQ.
  const std::string dir = fresh_dir();
  const json base = long_bsp(dir);
  const std::string clean = simulate(dir, base);
  const auto r = launch(dir, "killed", tolerant(base, 2, json::array({{{"node", "server:0"}, {"at", "0.3s"}}})),
                        "--transport ucx --insecure");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/killed/bsp/summary.json");
  EXPECT_EQ(s["environment"], "ucx");
  EXPECT_EQ(s["params_sha256"], sha_of(clean, "bsp"));
  EXPECT_EQ(s["updates"], 12000);
  const auto dead = events_of(dir + "/killed/bsp", "node_dead");
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0]["node"], "server:0");
}

TEST(LaunchFaults, KilledWorkerOverUcxLeavesTheBarrierWithinTheDetectionTimeout) {
  const std::string dir = fresh_dir();
  const auto r = launch(dir, "run", tolerant(long_bsp(dir), 1, json::array({{{"node", "worker:2"}, {"at", "0.3s"}}})),
                        "--transport ucx --insecure");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/run/bsp/summary.json");
  EXPECT_TRUE(s["completed"].get<bool>());
  const auto failed = events_of(dir + "/run/bsp", "node_failed");
  const auto dead = events_of(dir + "/run/bsp", "node_dead");
  ASSERT_EQ(failed.size(), 1u);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0]["node"], "worker:2");
  EXPECT_LT(dead[0]["time_s"].get<double>() - failed[0]["time_s"].get<double>(),
            (1.0 + 0.05 + 0.5) * time_scale());
  EXPECT_LT(s["updates"].get<int>(), 12000);
  EXPECT_GE(s["updates"].get<int>(), 9000);
}

TEST(LaunchFaults, RestartedWorkerRejoinsTheRunningJob) {
  const std::string dir = fresh_dir();
  json s = tolerant(long_bsp(dir), 1,
                    json::array({{{"node", "worker:1"}, {"at", "0.2s"}, {"recover_at", "0.4s"}}}));
  const auto r = launch(dir, "run", s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(read_json(dir + "/run/bsp/summary.json")["completed"].get<bool>());
  EXPECT_EQ(events_of(dir + "/run/bsp", "node_restarted").size(), 1u);
  EXPECT_EQ(events_of(dir + "/run/bsp", "node_rejoined").size(), 1u);
}

/// The events servers and workers wrote to stderr ("pstwin event: {...}") of type `type`.
std::vector<json> node_events(const std::string& output, const std::string& type) {
  std::vector<json> found;
  std::istringstream lines(output);
  const std::string tag = "pstwin event: ";
  for (std::string line; std::getline(lines, line);) {
    const auto at = line.find(tag);
    if (at == std::string::npos) continue;
    const json e = json::parse(line.substr(at + tag.size()));
    if (e["type"] == type) found.push_back(e);
  }
  return found;
}

TEST(LaunchFaults, ARestartedWorkerReportsInTheJobsClockAndNoneOfItsGradientsIsLate) {
  const std::string dir = fresh_dir();
  // Killed at 0.2 s, declared dead about 1 s later, restarted at 1.5 s: the others run ahead
  // meanwhile. 8,000 clocks keep the job going well past the restart on a loaded machine.
  json s = tolerant(long_bsp(dir), 1,
                    json::array({{{"node", "worker:1"}, {"at", "0.2s"}, {"recover_at", "1.5s"}}}));
  s["training"]["iterations"] = 8000;
  s["training"]["eval_every"] = 2000;
  const auto r = launch(dir, "run", s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const json summary = read_json(dir + "/run/bsp/summary.json");
  ASSERT_TRUE(summary["completed"].get<bool>());
  const auto restarted = events_of(dir + "/run/bsp", "node_restarted");
  const auto taken_back = events_of(dir + "/run/bsp", "node_rejoined");  // the scheduler's
  const auto rejoined = node_events(r.output, "worker_rejoined");         // the worker's own
  ASSERT_EQ(restarted.size(), 1u);
  ASSERT_EQ(taken_back.size(), 1u);
  ASSERT_EQ(rejoined.size(), 1u) << r.output;
  EXPECT_EQ(rejoined[0]["worker"], 1);
  // One clock: the restarted process reports after it was started, close to when the scheduler
  // took it back (a few messages later, which a sanitizer slows as it slows everything), and
  // before the job ended; not in seconds since its own start.
  const double t = rejoined[0]["time_s"].get<double>();
  EXPECT_GT(t, restarted[0]["time_s"].get<double>());
  EXPECT_NEAR(t, taken_back[0]["time_s"].get<double>(), 0.5 * time_scale());
  EXPECT_LT(t, summary["sim_time_s"].get<double>());
  // Each range waited for it from the moment it asked the range's clock: nothing dropped.
  EXPECT_TRUE(node_events(r.output, "gradient_dropped").empty()) << r.output.substr(0, 4000);
}

TEST(LaunchFaults, ReplicationOneAndAKilledServerStopTheJobNamingTheLostKeys) {
  const std::string dir = fresh_dir();
  const auto r = launch(dir, "run", tolerant(long_bsp(dir), 1, json::array({{{"node", "server:1"}, {"at", "0.3s"}}})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/run/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_NE(s["reason"].get<std::string>().find("range 1 (keys [11, 21))"), std::string::npos)
      << s["reason"];
}

TEST(LaunchFaults, ResumeFromACheckpointEndsWithTheUninterruptedParameters) {
  const std::string dir = fresh_dir();
  json s = long_bsp(dir);
  s["training"]["optimizer"] = "momentum";  // optimizer state must survive the checkpoint too
  s["training"]["learning_rate"] = 0.1;
  s["fault_tolerance"] = {{"checkpoint_every_clocks", 500}};
  const auto r = launch(dir, "full", s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string ckpt = dir + "/full/bsp/checkpoints";
  ASSERT_TRUE(std::filesystem::exists(ckpt + "/clock-1500/COMPLETE"));
  // As if the job had died while writing clock 1500: only clocks up to 1000 are complete.
  for (int c = 1500; c <= 3000; c += 500)
    std::filesystem::remove(ckpt + "/clock-" + std::to_string(c) + "/COMPLETE");
  for (const std::string transport : {"zmq", "inproc"}) {
    const auto resumed = run_pstwin("launch " + dir + "/full.json --transport " + transport +
                                    " --resume " + dir + "/full --out " + dir + "/resumed-" + transport);
    ASSERT_EQ(resumed.exit_code, 0) << resumed.output;
    EXPECT_EQ(sha_of(dir + "/resumed-" + transport, "bsp"), sha_of(dir + "/full", "bsp")) << transport;
    // It really started at clock 1000: 4 workers x 2,000 clocks were applied.
    EXPECT_EQ(read_json(dir + "/resumed-" + transport + "/bsp/summary.json")["updates"], 8000) << transport;
  }
}

TEST(LaunchFaults, ResumeWithoutACheckpointOrWithFailuresInProcessIsRefusedClearly) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", long_bsp(dir));
  auto r = run_pstwin("launch " + dir + "/s.json --resume " + dir + "/nowhere --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("no checkpoint folder"), std::string::npos) << r.output;
  write_json(dir + "/f.json", tolerant(long_bsp(dir), 2, json::array({{{"node", "server:0"}, {"at", "1s"}}})));
  r = run_pstwin("launch " + dir + "/f.json --transport inproc --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.output.find("needs --transport zmq"), std::string::npos) << r.output;
}

TEST(LaunchFaults, AKilledSchedulerEndsTheJobAndSaysSo) {
  const std::string dir = fresh_dir();
  const auto r = launch(dir, "run", tolerant(long_bsp(dir), 2, json::array({{{"node", "scheduler"}, {"at", "0.3s"}}})));
  EXPECT_NE(r.exit_code, 0) << r.output;
  const json s = read_json(dir + "/run/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_NE(s["reason"].get<std::string>().find("scheduler was killed"), std::string::npos) << s["reason"];
}

}  // namespace
}  // namespace pstwin

// A model too large for this machine's memory: validate says what each node needs and warns,
// simulate and sweep refuse before any run starts, naming the numbers (cli/memory_fit.h). A
// trial's validate of a 398M-parameter MLP said nothing about memory.
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/memory_fit.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

cli::RunMemory run_of(const std::string& name, std::uint64_t job_bytes) {
  cli::RunMemory r;
  r.run = name;
  r.estimate.job_bytes = job_bytes;
  r.servers = 1;
  r.workers = 2;
  return r;
}

TEST(MemoryFit, ARunLargerThanTheMachineIsRefusedNamingIt) {
  const auto why = cli::memory_refusal({run_of("variant bsp", 100), run_of("variant asp", 3000)}, 1, 2048);
  EXPECT_EQ(why.rfind("variant asp needs at least 2.93 KiB for its model's floats (", 0), 0u) << why;
  EXPECT_NE(why.find("more than this machine's 2.00 KiB of memory"), std::string::npos) << why;
  EXPECT_EQ(cli::memory_refusal({run_of("variant bsp", 2048)}, 4, 2048), "");
  EXPECT_EQ(cli::memory_refusal({run_of("variant bsp", 1u << 30)}, 1, 0), "");  // unknown machine
}

TEST(MemoryFit, RunsAtOnceThatDoNotFitTogetherAreToldTheJobsThatDo) {
  // 1000 + 900 fit in 2048; with the 800 they do not: --jobs 2.
  const std::vector<cli::RunMemory> runs = {run_of("a", 800), run_of("b", 1000), run_of("c", 900)};
  EXPECT_EQ(cli::memory_refusal(runs, 3, 2048),
            "3 runs at once (--jobs 3) need at least 2.64 KiB for their models' floats, more than this machine's "
            "2.00 KiB of memory: give --jobs 2");
  EXPECT_EQ(cli::memory_refusal(runs, 2, 2048), "");
}

/// The toy data (20 features, 2 classes) under an MLP of two hidden layers of 262144: P = 21 x
/// 262144 + 262145 x 262144 + 262145 x 2 = 68725768194 parameters, 512 GiB for each worker's two
/// copies alone; 512 servers keep each server's messages within the wire's 1 GiB.
nlohmann::json huge_mlp(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["model"] = {{"type", "mlp"}, {"hidden", {262144, 262144}}};
  s["cluster"]["servers"] = 512;
  s["cluster"]["workers"] = 2;
  return s;
}

TEST(MemoryFit, ValidateReportsWhatEachNodeNeedsAndWarnsWhenTheMachineIsTooSmall) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  auto r = run_pstwin("validate " + dir + "/toy.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  // Logistic regression on 20 features: 21 parameters; sgd under BSP with 4 workers, 2 servers:
  // the fuller server ceil(21 / 2) = 11 x (2 + 4) x 4 = 264 bytes; a worker 2 x 21 x 4 = 168.
  EXPECT_NE(r.output.find("memory (variant bsp): 21 parameters of float32: each of 2 servers needs at least 264 "
                          "bytes"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("each of 4 workers 168 bytes, the scheduler 168 bytes"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("warning"), std::string::npos) << r.output;

  write_json(dir + "/huge.json", huge_mlp(dir));
  r = run_pstwin("validate " + dir + "/huge.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("memory (variant asp): 68725768194 parameters of float32"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pstwin validate: warning: variant bsp's nodes need at least "), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("simulate, sweep and a launch without --hostfile refuse it"), std::string::npos) << r.output;
}

// A trial's validate of a synthetic (timing-only) model said each node needs "0 bytes", which
// reads as a model of no size. 1000 virtual float32 parameters are 4000 bytes, 3.91 KiB.
TEST(MemoryFit, ValidateSaysASyntheticModelsParametersAreVirtual) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", nlohmann::json::parse(R"({
    "name": "timing", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 5}, "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}}})"));
  const auto r = run_pstwin("validate " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("memory (variant bsp): model synthetic holds no parameter values: its 1000 parameters of "
                          "float32 (3.91 KiB) are virtual, priced on the wire and in compute only; no node stores "
                          "them\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("0 bytes"), std::string::npos) << r.output;
}

TEST(MemoryFit, SimulateAndSweepRefuseARunThatCannotFitBeforeAnyStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/huge.json", huge_mlp(dir));
  auto r = run_pstwin("simulate " + dir + "/huge.json --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin simulate: variant bsp needs at least "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("68725768194 parameters), more than this machine's "), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  r = run_pstwin("sweep " + dir + "/huge.json --out " + dir + "/sweep --grid /training/learning_rate=0.1,0.2");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin sweep: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/bsp needs at least "), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/sweep"));
}

// Without --hostfile every node runs on this machine (in one process under inproc): a trial's
// inproc launch of such a model only warned, then aborted on an allocation with no summary.
TEST(MemoryFit, ALaunchOnThisMachineIsRefusedBeforeAnyNodeStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/huge.json", huge_mlp(dir));
  for (const std::string transport : {"inproc", "zmq"}) {
    const auto r = run_pstwin("launch " + dir + "/huge.json --insecure --transport " + transport + " --out " + dir +
                              "/" + transport);
    EXPECT_EQ(r.exit_code, 2) << transport << ": " << r.output;
    EXPECT_NE(r.output.find("pstwin launch: variant bsp needs at least "), std::string::npos) << r.output;
    EXPECT_NE(r.output.find("or spread the nodes over machines with --hostfile"), std::string::npos) << r.output;
    EXPECT_FALSE(std::filesystem::exists(dir + "/" + transport + "/bsp/summary.json")) << transport;
  }
}

}  // namespace
}  // namespace pstwin

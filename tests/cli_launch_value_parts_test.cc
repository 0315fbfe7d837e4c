// Parity when values travel in several ZeroMQ parts (wire version 7, net/zmq_parts.h): a BSP job
// whose every push and pull reply is over 1 MiB ends with the simulation's parameters over
// ZeroMQ, with CURVE and --insecure (neither with a frame checksum: CURVE's tag covers every part,
// and the nodes are of one machine, net/pair_checksum.h), and no message refused on the way.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(LaunchValueParts, BspParityWithPushesAndRepliesInSeveralParts) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["model"]["type"] = "mlp";
  // 20 features, 20,000 hidden units, 2 classes: 460K parameters on one server, so each push and
  // pull reply carries 1.84 MB of values: two parts.
  s["model"]["hidden"] = {20000};
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  s["training"]["iterations"] = 3;
  s["training"]["eval_every"] = 3;
  s["training"]["learning_rate"] = 0.05;
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  write_json(dir + "/s.json", s);
  const std::string scenario = dir + "/s.json";
  auto r = run_pstwin("simulate " + scenario + " --quiet --out " + dir + "/sim");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string expected = sha_of(dir + "/sim", "bsp");
  for (const std::string flags : {"", " --insecure"}) {
    const std::string out = dir + "/zmq" + (flags.empty() ? "-curve" : "-insecure");
    r = run_pstwin("launch " + scenario + flags + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(sha_of(out, "bsp"), expected) << flags;
    const auto summary = read_json(out + "/bsp/summary.json");
    EXPECT_EQ(summary["rejected_messages"], 0) << flags;
    // 3 iterations x 2 workers pushes (and small pull requests).
    EXPECT_GT(summary["bytes_to_servers"].get<double>() / (3 * 2), 1024.0 * 1024.0)
        << "pushes too small to travel in several parts";
  }
}

}  // namespace
}  // namespace pstwin

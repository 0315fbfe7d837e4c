// Counts after servers join a running simulated job: every gradient is counted once in
// `updates` and in the staleness histogram, although the blocks that move change holders
// between two snapshots (the new holder reports what the old one applied since the last one).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

TEST(SimJoinCounts, UpdatesAndTheStalenessHistogramCountEveryGradientOnceAfterJoins) {
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);  // 4 workers, 21 keys
  s["consistency"] = json::array({{{"mode", "bsp"}}, {{"mode", "asp"}}});
  s.erase("stragglers");
  s["training"]["iterations"] = 400;
  s["training"]["eval_every"] = 100;
  s["cluster"]["servers"] = 4;
  // One key per block: 21 blocks, the first of which moves to server 2 at the first join.
  s["partition"] = {{"scheme", "consistent_hash"}, {"virtual_nodes", 1}, {"block_keys", 1}};
  s["fault_tolerance"] = {{"heartbeat_interval", "10ms"}, {"heartbeat_timeout", "50ms"}};
  s["failures"] = json::array({{{"join", "server"}, {"at", "0.05s"}}, {{"join", "server"}, {"at", "0.1s"}}});
  const std::string out = simulate(dir, s);
  for (const char* variant : {"bsp", "asp"}) {
    const json summary = read_json(out + "/" + variant + "/summary.json");
    bool first_block_moved = false;
    for (const json& e : events_of(out + "/" + variant, "range_moved")) first_block_moved |= e["range"] == 0;
    ASSERT_TRUE(first_block_moved) << variant;  // the case under test: updates are counted on block 0
    EXPECT_EQ(summary["updates"], 1600) << variant;  // 4 workers x 400 clocks
    std::uint64_t histogram = 0;
    for (const json& n : summary["staleness_histogram"]) histogram += n.get<std::uint64_t>();
    EXPECT_EQ(histogram, 21u * 1600u) << variant;  // every block counts every gradient
  }
}

// A join set for after the run's end never happens: events.jsonl says so, naming the server.
TEST(SimJoinCounts, AJoinAfterTheRunsEndIsReportedAsNotHappened) {
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s["cluster"]["servers"] = 3;
  s["partition"] = "consistent_hash";
  s["fault_tolerance"] = json::object();
  s["failures"] = json::array({{{"join", "server"}, {"at", "1000s"}}});
  const std::string out = simulate(dir, s);
  const auto missed = events_of(out + "/bsp", "join_not_happened");
  ASSERT_EQ(missed.size(), 1u);
  EXPECT_EQ(missed[0]["node"], "server:2");
  EXPECT_TRUE(events_of(out + "/bsp", "server_joined").empty());
}

}  // namespace
}  // namespace pstwin

// Key placement: the consistent-hash ring's balance and movement, replica placement, the
// balanced scheme, the summary's per-server imbalance, and the "partition" section's errors.
#include "runtime/key_placement.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <set>

#include "runtime/hash_ring.h"
#include "runtime/output/server_load_summary.h"
#include "runtime/roles/membership.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

std::vector<std::uint32_t> first_servers(std::uint32_t n) {
  std::vector<std::uint32_t> s(n);
  std::iota(s.begin(), s.end(), 0u);
  return s;
}

TEST(HashRing, PositionIsSha256sFirstEightBytes) {
  // Computed apart, with Python's hashlib:
  //   hex(int.from_bytes(hashlib.sha256(b"block/0").digest()[:8], "big"))
  EXPECT_EQ(ring_position("block/0"), 0x30e605f63be4da39ull) << std::hex << ring_position("block/0");
}

TEST(HashRing, FiveServersOfAHundredVirtualNodesHoldAtMostOnePointThreeTimesTheMean) {
  const HashRing ring(first_servers(5), 100);
  const std::uint64_t blocks = 100000;
  std::vector<double> share(5, 0.0);
  for (std::uint64_t b = 0; b < blocks; ++b) share[ring.owner(b)] += 1.0;
  const double mean = static_cast<double>(blocks) / 5;
  for (std::uint32_t s = 0; s < 5; ++s) EXPECT_LE(share[s], 1.3 * mean) << "server " << s;
  EXPECT_LE(imbalance(share), 1.3);
}

TEST(HashRing, RemovingOneOfFiveServersMovesAboutAFifthOfTheKeysAndOnlyItsOwn) {
  const HashRing five(first_servers(5), 100);
  const HashRing four({0, 1, 2, 4}, 100);  // server 3 is gone
  const std::uint64_t blocks = 100000;
  std::uint64_t moved = 0;
  for (std::uint64_t b = 0; b < blocks; ++b) {
    const std::uint32_t before = five.owner(b), after = four.owner(b);
    if (before != after) {
      ++moved;
      EXPECT_EQ(before, 3u) << "block " << b << " moved though its server stayed";
    }
  }
  // The ideal share is 1/5; 100 virtual nodes keep a server's share within about 10% of it, so
  // we allow 0.2 +- 0.05.
  EXPECT_NEAR(static_cast<double>(moved) / blocks, 0.2, 0.05);
}

TEST(HashRing, AddingAServerMovesOnlyTheKeysItNowOwns) {
  const HashRing four(first_servers(4), 100);
  const HashRing five(first_servers(5), 100);
  std::uint64_t moved = 0;
  for (std::uint64_t b = 0; b < 20000; ++b)
    if (four.owner(b) != five.owner(b)) {
      ++moved;
      EXPECT_EQ(five.owner(b), 4u);
    }
  EXPECT_NEAR(static_cast<double>(moved) / 20000, 0.2, 0.05);
}

TEST(HashRing, ReplicasAreOnDistinctServersNextOnTheRing) {
  const HashRing ring(first_servers(5), 100);
  for (std::uint64_t b = 0; b < 2000; ++b) {
    const auto owners = ring.owners(b, 3);
    ASSERT_EQ(owners.size(), 3u);
    EXPECT_EQ(std::set<std::uint32_t>(owners.begin(), owners.end()).size(), 3u) << "block " << b;
    EXPECT_EQ(owners.front(), ring.owner(b));
  }
  EXPECT_EQ(ring.owners(7, 9).size(), 5u);  // no more than the servers there are
}

TEST(HashRing, RefusesBadRings) {
  EXPECT_THROW(HashRing(first_servers(3), 0), std::invalid_argument);
  EXPECT_THROW(HashRing({}, 10), std::invalid_argument);
  EXPECT_THROW(HashRing({1, 2, 1}, 10), std::invalid_argument);
}

TEST(KeyPlacement, RangeSchemeIsTheFormerOneRangePerServer) {
  const PartitionSpec range;
  EXPECT_EQ(key_ranges(10, 3, range), range_partition(10, 3));
  const auto holders = range_holders(10, 3, 2, range);
  const Membership m = initial_membership(3, 3, 1, 2, 1);
  ASSERT_EQ(holders.size(), 3u);
  for (std::uint32_t r = 0; r < 3; ++r)
    for (std::size_t k = 0; k < 2; ++k) EXPECT_EQ(holders[r][k] + 1, m.replicas[r][k]);
}

TEST(KeyPlacement, BlocksAreContiguousWithAShortLastOne) {
  PartitionSpec p;
  p.scheme = PartitionScheme::kConsistentHash;
  p.block_keys = 4;
  const auto ranges = key_ranges(10, 3, p);
  ASSERT_EQ(ranges.size(), 3u);
  EXPECT_EQ(ranges[0], (KeyRange{0, 4}));
  EXPECT_EQ(ranges[2], (KeyRange{8, 10}));
  const auto holders = range_holders(10, 3, 2, p);
  for (const auto& h : holders) EXPECT_NE(h[0], h[1]);
  p.block_keys = 0;
  EXPECT_THROW(key_ranges(10, 3, p), std::invalid_argument);
}

TEST(KeyPlacement, BalancedPlacesHeaviestBlocksFirstOnTheLightestServer) {
  // Weights 10, 1, 1, 6, 5 over 2 servers, heaviest first: block 0 (10) -> s0; block 3 (6) ->
  // s1; block 4 (5) -> s1 (11); block 1 (1) -> s0 (11); block 2 (1): a tie, the lower index s0.
  EXPECT_EQ(balanced_owners({10, 1, 1, 6, 5}, 2), (std::vector<std::uint32_t>{0, 0, 0, 1, 1}));
  EXPECT_EQ(block_weights(5, 2, {3, 1, 0, 0, 7}), (std::vector<double>{4, 0, 7}));
  EXPECT_EQ(block_weights(5, 2, {}), (std::vector<double>{2, 2, 1}));
}

TEST(ServerLoadSummary, ImbalanceIsMaxOverMeanAndMissingServersCountZero) {
  EXPECT_DOUBLE_EQ(imbalance({1, 1, 1}), 1.0);
  EXPECT_DOUBLE_EQ(imbalance({3, 0, 0}), 3.0);
  EXPECT_DOUBLE_EQ(imbalance({0, 0}), 0.0);
  const std::vector<nlohmann::json> events{
      {{"server", 0}, {"requests", 30}, {"bytes_in", 300}, {"bytes_out", 60}, {"busy_s", 0.5}},
      {{"server", 2}, {"requests", 10}, {"bytes_in", 100}, {"bytes_out", 60}, {"busy_s", 0.5}}};
  const auto s = server_load_summary(events, 3);
  EXPECT_EQ(s["per_server"][1]["requests"], 0);
  EXPECT_DOUBLE_EQ(s["imbalance"]["requests"].get<double>(), 30.0 / (40.0 / 3));
  EXPECT_DOUBLE_EQ(s["imbalance"]["bytes_out"].get<double>(), 60.0 / 40.0);
}

nlohmann::json base_scenario() {
  return nlohmann::json::parse(R"({
    "name": "p", "seed": 1, "model": {"type": "synthetic", "parameters": 1000,
    "flops_per_iteration": 1e6}, "training": {"iterations": 2, "eval_every": 1},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 2,
      "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
      "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}})");
}

TEST(PartitionSection, ReadsTheSchemesAndRefusesBadSettingsAtTheirPointer) {
  auto s = base_scenario();
  EXPECT_EQ(parse_scenario(s).partition.scheme, PartitionScheme::kRange);
  s["partition"] = "consistent_hash";
  EXPECT_EQ(parse_scenario(s).partition.scheme, PartitionScheme::kConsistentHash);
  s["partition"] = {{"scheme", "consistent_hash"}, {"virtual_nodes", 7}, {"block_keys", 16}};
  const auto p = parse_scenario(s).partition;
  EXPECT_EQ(p.virtual_nodes, 7u);
  EXPECT_EQ(p.block_keys, 16u);

  s["partition"]["virtual_nodes"] = 0;
  EXPECT_EQ(error_pointer(s), "/partition/virtual_nodes");
  s["partition"]["virtual_nodes"] = 7;
  s["partition"]["block_keys"] = 0;
  EXPECT_EQ(error_pointer(s), "/partition/block_keys");
  s["partition"] = {{"scheme", "balanced"}, {"virtual_nodes", 7}};
  EXPECT_EQ(error_pointer(s), "/partition/virtual_nodes");
  s["partition"] = {{"scheme", "range"}, {"block_keys", 7}};
  EXPECT_EQ(error_pointer(s), "/partition/block_keys");
  s["partition"] = "modulo";
  EXPECT_EQ(error_pointer(s), "/partition");
  s["partition"] = {{"scheme", "range"}, {"ring", 1}};
  EXPECT_EQ(error_pointer(s), "/partition/ring");
}

TEST(KeyPlacement, JoiningServersStartOffTheRingAndRingHoldersAddThem) {
  PartitionSpec p;
  p.scheme = PartitionScheme::kConsistentHash;
  p.block_keys = 1;
  p.virtual_nodes = 50;
  p.joining_servers = 1;
  const auto before = range_holders(400, 4, 1, p);
  const auto after = ring_holders(400, {0, 1, 2, 3}, 1, p);
  EXPECT_EQ(before, ring_holders(400, {0, 1, 2}, 1, p));
  std::size_t moved = 0;
  for (std::size_t r = 0; r < before.size(); ++r) {
    EXPECT_NE(before[r][0], 3u);
    if (before[r] != after[r]) {
      ++moved;
      EXPECT_EQ(after[r][0], 3u) << "block " << r << " moved to a server that was there before";
    }
  }
  EXPECT_GT(moved, 0u);
  p.joining_servers = 4;
  EXPECT_THROW(range_holders(400, 4, 1, p), std::invalid_argument);
}

TEST(PartitionSection, JoinsAreRefusedAtTheirPointerWhenTheyCannotWork) {
  auto s = base_scenario();
  s["cluster"]["servers"] = 3;
  s["partition"] = {{"scheme", "consistent_hash"}, {"block_keys", 8}};
  s["failures"] = nlohmann::json::array({{{"join", "server"}, {"at", "1s"}}});
  const Scenario ok = parse_scenario(s);
  EXPECT_EQ(ok.failures[0].kind, FailureSpec::Kind::kJoin);
  EXPECT_EQ(ok.failures[0].target.text(), "server:2");  // the last server joins
  EXPECT_TRUE(ok.fault_tolerance.enabled);

  s["failures"][0]["join"] = "worker";
  EXPECT_EQ(error_pointer(s), "/failures/0/join");
  s["failures"][0]["join"] = "server";
  s["failures"][0]["at"] = "-1s";
  EXPECT_EQ(error_pointer(s), "/failures/0/at");
  s["failures"][0]["at"] = "1s";
  s["failures"][0]["recover_at"] = "2s";
  EXPECT_EQ(error_pointer(s), "/failures/0/recover_at");
  s["failures"][0].erase("recover_at");
  s["partition"] = "range";
  EXPECT_EQ(error_pointer(s), "/failures/0/join");
  s["partition"] = "consistent_hash";
  s["failures"].push_back({{"node", "server:2"}, {"at", "3s"}});
  EXPECT_EQ(error_pointer(s), "/failures/1");
  s["failures"][1] = {{"join", "server"}, {"at", "2s"}};
  s["failures"].push_back({{"join", "server"}, {"at", "3s"}});
  EXPECT_EQ(error_pointer(s), "/failures/2");  // three joins, three servers
  s["failures"].erase(2);
  s["fault_tolerance"] = {{"replication", 2}};
  EXPECT_EQ(error_pointer(s), "/fault_tolerance/replication");  // one server at the start
  s.erase("fault_tolerance");
  s["cluster"]["servers"] = 1;
  s["failures"].erase(1);
  EXPECT_NE(testing_support::error_message(s).find("1 server joins a cluster of 1"), std::string::npos)
      << testing_support::error_message(s);
}

}  // namespace
}  // namespace pstwin

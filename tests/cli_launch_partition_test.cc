// Partitions end to end: a consistent-hash or balanced BSP run ends with the range partition's
// parameters (simulated, in process and over ZeroMQ), the servers' request counts add up to what
// the workers sent, and on skewed ratings the balanced partition evens the servers' load.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>

#include "runtime/hash_ring.h"

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// toy_scenario (logistic regression, 4 workers) as BSP alone on 3 servers, 20 clocks.
nlohmann::json bsp_toy(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 20;
  s["cluster"]["servers"] = 3;
  s.erase("stragglers");
  return s;
}

double requests_sum(const nlohmann::json& summary) {
  double sum = 0;
  for (const auto& s : summary["server_load"]["per_server"]) sum += s["requests"].get<double>();
  return sum;
}

TEST(LaunchPartition, HashAndBalancedBspEndWithTheRangePartitionsParametersAndCountEveryRequest) {
  const std::string dir = fresh_dir();
  auto s = bsp_toy(dir);
  std::string sha;
  for (const auto& partition : {nlohmann::json("range"),
                                nlohmann::json{{"scheme", "consistent_hash"}, {"virtual_nodes", 50}, {"block_keys", 4}},
                                nlohmann::json{{"scheme", "balanced"}, {"block_keys", 3}}}) {
    SCOPED_TRACE(partition.dump());
    s["partition"] = partition;
    const std::string out = dir + "/" + std::to_string(std::hash<std::string>{}(partition.dump()));
    write_json(out + ".json", s);
    const auto r = run_pstwin("simulate " + out + ".json --quiet --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto summary = read_json(out + "/bsp/summary.json");
    if (sha.empty()) sha = summary["params_sha256"];
    // Each key's sum of gradients and update are the same whichever server holds it.
    EXPECT_EQ(summary["params_sha256"], sha);
    EXPECT_EQ(summary["server_load"]["per_server"].size(), 3u);
    if (partition == "range") {
      // A dense worker pulls every range once, then pushes it each clock (the pull rides on
      // the push): 4 workers x 3 ranges x (1 + 20 clocks).
      EXPECT_EQ(requests_sum(summary), 4 * 3 * 21);
      EXPECT_DOUBLE_EQ(summary["server_load"]["imbalance"]["requests"].get<double>(), 1.0);
      EXPECT_GT(summary["server_load"]["per_server"][0]["busy_s"].get<double>(), 0.0);
    } else {
      // 21 keys (20 features and the bias) in blocks: every block is a key range.
      const double blocks = std::ceil(21.0 / partition["block_keys"].get<double>());
      EXPECT_EQ(requests_sum(summary), 4 * blocks * 21);
    }
    EXPECT_EQ(summary["partition"], partition.is_string() ? partition : partition["scheme"]);
  }
}

TEST(LaunchPartition, ConsistentHashBspParityAcrossEnvironments) {
  const std::string dir = fresh_dir();
  auto s = bsp_toy(dir);
  // Long enough that the servers' final reports, which ZeroMQ nodes do not count, stay under
  // the 1% that expect_parity allows between the two byte counts.
  s["training"]["iterations"] = 30;
  s["partition"] = {{"scheme", "consistent_hash"}, {"virtual_nodes", 20}, {"block_keys", 5}};
  expect_parity(dir, s);
}

TEST(LaunchPartition, AServerJoiningMidRunTakesOnlyItsBlocksAndBspParametersStayTheSame) {
  const std::string dir = fresh_dir();
  auto s = bsp_toy(dir);
  s["training"]["iterations"] = 40;
  s["partition"] = {{"scheme", "consistent_hash"}, {"virtual_nodes", 20}, {"block_keys", 1}};
  s["fault_tolerance"] = nlohmann::json::object();  // heartbeats in both runs, as a join needs
  write_json(dir + "/fixed.json", s);
  auto r = run_pstwin("simulate " + dir + "/fixed.json --quiet --out " + dir + "/fixed");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto fixed = read_json(dir + "/fixed/bsp/summary.json");

  // A fourth server joins half-way through.
  s["cluster"]["servers"] = 4;
  const double half = fixed["sim_time_s"].get<double>() / 2;
  s["failures"] = nlohmann::json::array({{{"join", "server"}, {"at", std::to_string(half) + "s"}}});
  write_json(dir + "/join.json", s);
  r = run_pstwin("simulate " + dir + "/join.json --quiet --out " + dir + "/join");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto joined = read_json(dir + "/join/bsp/summary.json");
  EXPECT_EQ(joined["params_sha256"], fixed["params_sha256"]);
  EXPECT_EQ(joined["updates"], fixed["updates"]);  // no push applied twice or lost

  const auto join = events_of(dir + "/join/bsp", "server_joined");
  ASSERT_EQ(join.size(), 1u);
  EXPECT_EQ(join[0]["node"], "server:3");
  // Exactly the blocks the ring with server 3 gives it (21 keys, one per block).
  const HashRing three({0, 1, 2}, 20), four({0, 1, 2, 3}, 20);
  std::uint64_t own = 0;
  for (std::uint64_t b = 0; b < 21; ++b) {
    if (four.owner(b) == 3) ++own;
    else EXPECT_EQ(four.owner(b), three.owner(b));
  }
  EXPECT_EQ(join[0]["keys_moving"], own);
  EXPECT_DOUBLE_EQ(join[0]["share_moving"].get<double>(), own / 21.0);
  const auto moved = events_of(dir + "/join/bsp", "range_moved");
  EXPECT_EQ(moved.size(), own);
  for (const auto& m : moved) EXPECT_EQ(m["server"], "server:3");
  EXPECT_GT(joined["server_load"]["per_server"][3]["requests"].get<double>(), 0);
  EXPECT_TRUE(events_of(dir + "/join/bsp", "node_lost").empty());
}

/// Ratings where a few items take most of the ratings: item i drawn as 200 * x^3 for uniform x,
/// 40 users, 3,000 ratings, from a fixed LCG.
void write_skewed_ratings(const std::string& path) {
  std::ofstream out(path);
  out << "userId,movieId,rating,timestamp\n";
  unsigned state = 5;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
  };
  for (int j = 0; j < 3000; ++j) {
    const int u = static_cast<int>(next() * 40);
    const double x = next();
    const int i = static_cast<int>(200 * x * x * x);
    out << u + 1 << "," << i + 1 << "," << 1 + (u + i) % 5 << "," << j << "\n";
  }
}

/// Matrix factorisation on write_skewed_ratings's file in `dir`: 2 workers, 4 servers, BSP.
nlohmann::json skewed_mf(const std::string& dir) {
  write_skewed_ratings(dir + "/ratings.csv");
  return nlohmann::json::parse(R"({
    "name": "mf-skew", "seed": 2,
    "data": {"format": "ratings", "file": "ratings.csv", "partition": "shuffled"},
    "model": {"type": "mf", "rank": 16, "l2": 0.02},
    "training": {"iterations": 20, "batch_size": 64, "learning_rate": 4, "eval_every": 10},
    "consistency": [{"mode": "bsp"}],
    "cluster": {
      "workers": 2, "servers": 4,
      "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
      "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}
    }
  })");
}

TEST(LaunchPartition, BalancedBspParityAcrossEnvironments) {
  // Servers read no data: the access counts that place the blocks reach them in the address
  // book, and they must place every block where the scheduler and the workers do.
  const std::string dir = fresh_dir();
  auto s = skewed_mf(dir);
  s["training"]["iterations"] = 30;
  s["partition"] = {{"scheme", "balanced"}, {"block_keys", 10}};
  expect_parity(dir, s);
}

TEST(LaunchPartition, BalancedEvensTheServersBytesOnSkewedRatings) {
  const std::string dir = fresh_dir();
  auto s = skewed_mf(dir);
  std::map<std::string, double> bytes_imbalance;
  for (const char* scheme : {"range", "balanced"}) {
    s["partition"] = scheme == std::string("range") ? nlohmann::json("range")
                                                    : nlohmann::json{{"scheme", "balanced"}, {"block_keys", 10}};
    const std::string out = dir + "/" + scheme;
    write_json(out + ".json", s);
    const auto r = run_pstwin("simulate " + out + ".json --quiet --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    bytes_imbalance[scheme] = read_json(out + "/bsp/summary.json")["server_load"]["imbalance"]["bytes_in"];
  }
  // 240 keys: under range the first server holds every user and the 20 hottest items (about
  // 2.2 x the mean bytes, measured); balanced spreads the blocks by their ratings (about 1.25).
  EXPECT_GT(bytes_imbalance["range"], 1.8);
  EXPECT_LT(bytes_imbalance["balanced"], 1.4);
}

}  // namespace
}  // namespace pstwin

// Hybrid synchronisation ("sync": "hybrid"): the workers of a host sum their gradients inside the
// host and one leader per host pushes. Its parameters against plain BSP with the same global
// batch, the push traffic to the servers, and parity across simulate, inproc and ZeroMQ.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// The toy logistic regression (4 workers, 2 servers) as plain BSP and hybrid BSP, with
/// `per_host` workers per host; without stragglers and device overhead, which hybrid refuses.
nlohmann::json toy_hosts(const std::string& dir, int per_host) {
  auto s = toy_scenario(dir);
  s.erase("stragglers");
  s["cluster"]["worker"]["device"] = "cpu";
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}, {"mode": "bsp", "sync": "hybrid"}])");
  s["cluster"]["workers_per_host"] = per_host;
  s["cluster"]["intra_host"] = "nvlink4";
  return s;
}

double relative_gap(double a, double b) { return std::fabs(a - b) / std::fabs(b); }

// One host holds every worker: its in-host sum is the servers' sum of plain BSP, term by term in
// worker order from zero with the same axpy and scale 1/W, and the server adds it once at scale 1.
TEST(HybridSync, OneHostIsBitExactToPlainBsp) {
  const std::string dir = fresh_dir();
  const std::string out = simulate(dir, toy_hosts(dir, 4));
  EXPECT_EQ(sha_of(out, "bsp-hybrid"), sha_of(out, "bsp"));
  EXPECT_EQ(sha_of(out, "bsp").size(), 64u);
}

// Two hosts of two: the same gradients, summed as (g0 + g1) + (g2 + g3) instead of
// ((g0 + g1) + g2) + g3, so equal up to float32 rounding of the sums (scales 1/2 * 1/2 and 1/4
// are exact). 60 SGD steps keep the losses within 1e-5 of each other.
TEST(HybridSync, SeveralHostsMatchPlainBspUpToRounding) {
  const std::string dir = fresh_dir();
  const std::string out = simulate(dir, toy_hosts(dir, 2));
  const auto plain = read_json(out + "/bsp/summary.json");
  const auto hybrid = read_json(out + "/bsp-hybrid/summary.json");
  ASSERT_TRUE(hybrid["completed"].get<bool>());
  EXPECT_EQ(hybrid["final_clock"], plain["final_clock"]);
  for (const char* key : {"final_train_loss", "final_test_loss"})
    EXPECT_LT(relative_gap(hybrid[key].get<double>(), plain[key].get<double>()), 1e-5) << key;
  EXPECT_EQ(hybrid["final_test_metric"], plain["final_test_metric"]);
  // A BSP clock applies one gradient per host: 2 instead of 4, per range 0.
  EXPECT_EQ(hybrid["updates"].get<int>() * 2, plain["updates"].get<int>());
}

// Only the leaders talk to the servers, with the same messages a worker sends, so the bytes the
// servers receive drop by exactly the number of workers per host.
TEST(HybridSync, BytesToServersDropByWorkersPerHost) {
  const std::string dir = fresh_dir();
  auto s = synthetic_scenario(1e6, 1e9);
  s["cluster"]["workers"] = 8;
  s["cluster"]["workers_per_host"] = 4;
  s["cluster"]["intra_host"] = "nvlink4";
  s["consistency"] = nlohmann::json::parse(
      R"([{"mode": "bsp"}, {"mode": "bsp", "sync": "hybrid"}, {"mode": "asp", "sync": "hybrid"},
          {"mode": "ssp", "staleness": 1, "sync": "hybrid"}])");
  const std::string out = simulate(dir, s);
  const auto plain = read_json(out + "/bsp/summary.json");
  const double plain_bytes = plain["bytes_to_servers"].get<double>();
  // 8 workers x 10 pushes of 2 ranges of 500,000 float32 values, plus the first pulls.
  EXPECT_GT(plain_bytes, 8 * 10 * 4e6);
  EXPECT_LT(plain_bytes, 8 * 10 * 4.01e6);
  for (const char* v : {"bsp-hybrid", "asp-hybrid", "ssp1-hybrid"}) {
    const auto hybrid = read_json(out + "/" + v + "/summary.json");
    EXPECT_TRUE(hybrid["completed"].get<bool>()) << v;
    EXPECT_EQ(hybrid["bytes_to_servers"].get<double>() * 4, plain_bytes) << v;
    // Two hosts push each clock, where eight workers did.
    EXPECT_EQ(hybrid["updates"].get<int>() * 4, plain["updates"].get<int>()) << v;
  }
}

// The in-host sums go through Env like every other message, in a fixed order, so a hybrid BSP run
// ends with the same parameters simulated, in process and over ZeroMQ.
TEST(HybridSync, BspParityAcrossEnvironments) {
  const std::string dir = fresh_dir();
  auto s = toy_hosts(dir, 2);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp", "sync": "hybrid"}])");
  expect_parity(dir, s, "bsp-hybrid");
}

}  // namespace
}  // namespace pstwin

// Parity for the sparse model: a BSP matrix-factorisation run ends with the same parameters
// simulated, in-process and over ZeroMQ, as the dense models do (tests/cli_launch_test.cc).
#include <gtest/gtest.h>

#include <fstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// A ratings CSV of a rank-2 taste model plus noise: 60 users, 80 items, 3,000 ratings, columns
/// in a non-MovieLens order, from a fixed LCG so the file is reproducible.
void write_toy_ratings(const std::string& path) {
  std::ofstream out(path);
  out << "rating,movieId,timestamp,userId\n";
  unsigned state = 11;
  auto next = [&] {
    state = state * 1664525u + 1013904223u;
    return static_cast<double>(state >> 8) / static_cast<double>(1u << 24);
  };
  for (int j = 0; j < 3000; ++j) {
    const int u = static_cast<int>(next() * 60), i = static_cast<int>(next() * 80);
    const double taste = ((u % 3) - 1) * ((i % 3) - 1) + 0.5 * ((u % 2) - 0.5) * ((i % 4) - 1.5);
    const double r = std::min(5.0, std::max(0.5, 3.5 + taste + 0.4 * (next() - 0.5)));
    out << r << "," << 1000 + i * 7 << "," << j << "," << u * 3 + 1 << "\n";
  }
}

TEST(LaunchMf, BspParityOfTheSparseModelAcrossEnvironments) {
  const std::string dir = fresh_dir();
  write_toy_ratings(dir + "/ratings.csv");
  auto s = nlohmann::json::parse(R"({
    "name": "mf-parity", "seed": 5,
    "data": {"format": "ratings", "file": "ratings.csv", "partition": "shuffled"},
    "model": {"type": "mf", "rank": 4, "l2": 0.02},
    "training": {"iterations": 60, "batch_size": 32, "learning_rate": 4, "eval_every": 20},
    "consistency": [{"mode": "bsp"}],
    "cluster": {
      "workers": 3, "servers": 2,
      "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}},
      "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "50us"}}
    }
  })");
  expect_parity(dir, s);
  const auto sim = read_json(dir + "/sim/bsp/summary.json");
  EXPECT_EQ(sim["metric"], "rmse");
  // Training moved the RMSE below the mean predictor's (the toy ratings spread about 0.8).
  EXPECT_LT(sim["final_test_metric"].get<double>(), 0.75);
}

}  // namespace
}  // namespace pstwin

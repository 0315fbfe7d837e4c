// Link utilisation in simulation: link_load.csv and summary.json's busiest_links name the link
// a known scenario saturates.
#include <gtest/gtest.h>

#include <sstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(LinkLoad, TheOneServersNicIsTheBusiestLinkOfAStar) {
  // 4 workers push 4 MB each per clock to one server over 10 Gbit/s NICs: the server's NIC
  // carries 4x what each worker's does and is saturated while the pushes (and the pull replies)
  // cross it; computing takes 0.1 ms per clock, so the server's NIC is the bottleneck.
  auto s = synthetic_scenario(1e6, 1e9);
  s["cluster"]["servers"] = 1;
  const std::string dir = fresh_dir();
  const std::string out = simulate(dir, s);
  const auto summary = read_json(out + "/bsp/summary.json");
  const auto& busiest = summary.at("busiest_links");
  ASSERT_EQ(busiest.size(), 5u) << summary.dump(2);
  // The server's two directions first (pushes in, pull replies out), then workers' links.
  for (int i = 0; i < 2; ++i) {
    const std::string link = busiest[i]["link"];
    EXPECT_TRUE(link == "link-server-0_DOWN" || link == "link-server-0_UP") << link;
    EXPECT_GT(busiest[i]["peak_utilisation"].get<double>(), 0.99) << link;
    EXPECT_LE(busiest[i]["peak_utilisation"].get<double>(), 1.0 + 1e-9) << link;
    // 10 clocks x 4 workers x 4 MB each way, plus SimGrid's modelled acks (5% of the reverse
    // direction) and its per-step reading (sim/link_load.h): measured 1.09x (DOWN).
    EXPECT_GE(busiest[i]["bytes"].get<double>(), 10 * 4 * 4e6) << link;
    EXPECT_LE(busiest[i]["bytes"].get<double>(), 10 * 4 * 4e6 * 1.12) << link;
  }
  const double server_mean = busiest[0]["mean_utilisation"].get<double>();
  for (std::size_t i = 2; i < busiest.size(); ++i) {
    EXPECT_EQ(busiest[i]["link"].get<std::string>().rfind("link-worker-", 0), 0u) << busiest[i].dump();
    EXPECT_NEAR(busiest[i]["mean_utilisation"].get<double>(), server_mean / 4, server_mean * 0.05);
  }
  // link_load.csv: a header, then rows whose utilisation lies in [0, 1].
  std::istringstream csv(read_file(out + "/bsp/link_load.csv"));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "link,bandwidth_Bps,start_s,end_s,utilisation");
  int rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    const double u = std::stod(line.substr(line.rfind(',') + 1));
    EXPECT_GE(u, 0.0) << line;
    EXPECT_LE(u, 1.0 + 1e-9) << line;
  }
  EXPECT_GT(rows, 0);
}

}  // namespace
}  // namespace pstwin

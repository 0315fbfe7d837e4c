// Link utilisation in simulation: link_load.csv and summary.json's busiest_links name the link
// a known scenario saturates.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
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

TEST(LinkLoad, HybridMachinesRankTheServerNicsAboveTheBusierNvlinks) {
  // Two machines of 4 workers each (NVLink 4 inside, 10 Gbit/s NICs), hybrid sync: the workers
  // of a machine reduce over NVLink, which carries more bytes than any NIC but at a small share
  // of its 900 GB/s; the servers' NICs, each crossed by both machines' pushes and pulls, are the
  // most used. Ranked by bytes (as before), the NVLink links came first and hid them.
  auto s = synthetic_scenario(1e6, 1e9);
  s["cluster"]["workers"] = 8;
  s["cluster"]["workers_per_host"] = 4;
  s["cluster"]["intra_host"] = "nvlink4";
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp", "sync": "hybrid", "name": "hybrid"}])");
  const std::string out = simulate(fresh_dir(), s);
  const auto summary = read_json(out + "/hybrid/summary.json");
  const auto& busiest = summary.at("busiest_links");
  ASSERT_EQ(busiest.size(), 5u) << summary.dump(2);
  for (std::size_t i = 0; i < busiest.size(); ++i) {
    // Every link of this platform says what it is: the meter takes it from the platform.
    EXPECT_EQ(busiest[i].value("kind", ""), "nic") << busiest.dump(2);
    if (i > 0) {
      EXPECT_GE(busiest[i - 1]["mean_utilisation"].get<double>(), busiest[i]["mean_utilisation"].get<double>())
          << busiest.dump(2);
    }
  }
  EXPECT_EQ(busiest[0]["link"].get<std::string>().rfind("link-server-", 0), 0u) << busiest.dump(2);
  // An NVLink link carried more bytes than the most utilised NIC (bytes from link_load.csv:
  // utilisation x window x bandwidth), so ranking by bytes would have put it first.
  std::istringstream csv(read_file(out + "/hybrid/link_load.csv"));
  std::string line;
  std::getline(csv, line);  // header: link,bandwidth_Bps,start_s,end_s,utilisation
  std::map<std::string, double> bytes;
  while (std::getline(csv, line)) {
    std::istringstream fields(line);
    std::string link, bandwidth, start, end, utilisation;
    std::getline(fields, link, ',');
    std::getline(fields, bandwidth, ',');
    std::getline(fields, start, ',');
    std::getline(fields, end, ',');
    std::getline(fields, utilisation, ',');
    bytes[link] += std::stod(utilisation) * (std::stod(end) - std::stod(start)) * std::stod(bandwidth);
  }
  double nvlink_max = 0;
  for (const auto& [link, b] : bytes)
    if (link.rfind("link-worker-", 0) == 0) nvlink_max = std::max(nvlink_max, b);
  EXPECT_GT(nvlink_max, 1.2 * busiest[0]["bytes"].get<double>()) << busiest.dump(2);
}

}  // namespace
}  // namespace pstwin

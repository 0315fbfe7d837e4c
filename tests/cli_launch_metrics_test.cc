// The scheduler of a launched job serves live metrics in Prometheus's text format, and a bad
// --metrics-address is refused before anything starts.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <future>
#include <optional>
#include <sstream>
#include <thread>

#include <httplib.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// The value of the sample named exactly `sample` (with its labels) in a Prometheus text page.
std::optional<double> sample_value(const std::string& page, const std::string& sample) {
  std::istringstream in(page);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(sample + " ", 0) == 0) return std::stod(line.substr(sample.size() + 1));
  return std::nullopt;
}

/// GET `url` ("http://127.0.0.1:PORT/metrics") on loopback; the body, or nullopt when it fails.
std::optional<std::string> fetch(const std::string& url) {
  const std::string prefix = "http://";
  const auto path_at = url.find('/', prefix.size());
  httplib::Client client(url.substr(0, path_at));
  client.set_connection_timeout(2);
  client.set_read_timeout(2);
  auto res = client.Get(url.substr(path_at));
  if (!res || res->status != 200) return std::nullopt;
  EXPECT_EQ(res->get_header_value("Content-Type").rfind("text/plain; version=0.0.4", 0), 0u);
  return res->body;
}

TEST(LaunchMetrics, TheSchedulerServesCountersThatGrowDuringTheJob) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  // Long enough to be watched (a few seconds on loopback), short enough for a test.
  s["training"]["iterations"] = 6000;
  s["training"]["eval_every"] = 1000;
  write_json(dir + "/s.json", s);
  auto job = std::async(std::launch::async, [&] {
    return run_pstwin("launch " + dir + "/s.json --out " + dir + "/out --metrics-address 127.0.0.1:0");
  });
  const std::string url_file = dir + "/out/bsp/metrics.url";
  std::string url;
  for (int i = 0; i < 600 * time_scale() && url.empty(); ++i) {
    if (std::filesystem::exists(url_file)) url = read_file(url_file);
    if (url.empty()) std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  while (!url.empty() && std::isspace(static_cast<unsigned char>(url.back()))) url.pop_back();
  ASSERT_EQ(url.rfind("http://127.0.0.1:", 0), 0u) << "no metrics URL in " << url_file;
  // The first page once a worker has computed; then pages until its clock has moved on.
  const std::string clock = "pstwin_worker_clock{node=\"worker:0\"}";
  std::optional<double> first, later;
  std::string page;
  for (int i = 0; i < 400 && !(first && later && *later > *first); ++i) {
    if (auto body = fetch(url)) {
      page = *body;
      const auto v = sample_value(page, clock);
      if (v && *v > 0) (first ? later : first) = v;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(first && later) << page;
  EXPECT_GT(*later, *first) << page;
  // Every kind of sample the README lists is on the page, counters typed as counters.
  for (const char* line : {"# TYPE pstwin_worker_pushes_total counter", "# TYPE pstwin_worker_clock gauge",
                           "# TYPE pstwin_server_pulls_served_total counter", "# TYPE pstwin_staleness_sum counter",
                           "# TYPE pstwin_heartbeat_age_seconds gauge", "# TYPE pstwin_node_bytes_sent_total counter"})
    EXPECT_NE(page.find(line), std::string::npos) << line;
  EXPECT_TRUE(sample_value(page, "pstwin_server_pushes_applied_total{node=\"server:1\"}")) << page;
  const auto r = job.get();
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("live metrics at http://127.0.0.1:"), std::string::npos) << r.output;
}

TEST(LaunchMetrics, ABadAddressIsRefusedNamingTheFlag) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  for (const char* bad : {"localhost", "127.0.0.1:70000", ":9464", "::1:9464"}) {
    const auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/out --metrics-address '" + bad + "'");
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_NE(r.output.find("--metrics-address: metrics address '" + std::string(bad) + "'"), std::string::npos)
        << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/bsp/summary.json"));
}

}  // namespace
}  // namespace pstwin

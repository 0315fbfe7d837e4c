// --metrics-address (or PSTWIN_METRICS_ADDRESS) is checked before anything starts: exit status
// 2, naming where the value came from and what is wrong with it; where it would do nothing
// (--transport inproc, a node that is not the scheduler) the user is told.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(CliMetricsAddress, AnAddressThisMachineCannotServeIsRefusedBeforeTheJobStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  const std::pair<const char*, const char*> cases[] = {
      {"no-such-host.invalid:9464", "cannot resolve host no-such-host.invalid"},
      {"192.0.2.1:9464", "no interface of this machine has address 192.0.2.1"},  // TEST-NET-1
      {" 127.0.0.1:0", "it contains white space"},
      {"[::1]", "no port"},
  };
  for (const auto& [address, why] : cases) {
    const auto r = run_pstwin("launch " + dir + "/s.json --out " + dir + "/out --metrics-address '" + address + "'");
    EXPECT_EQ(r.exit_code, 2) << address << ": " << r.output;
    EXPECT_NE(r.output.find("pstwin launch: --metrics-address: metrics address '" + std::string(address) + "': " + why),
              std::string::npos)
        << r.output;
    EXPECT_EQ(r.output.find("launch: bsp"), std::string::npos) << "a variant started: " << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/bsp"));
}

TEST(CliMetricsAddress, InProcessJobsServeNoMetricsSoTheFlagIsRefused) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  const auto r = run_pstwin("launch " + dir + "/s.json --transport inproc --metrics-address 127.0.0.1:0 --out " +
                            dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("--metrics-address needs --transport zmq"), std::string::npos) << r.output;
}

TEST(CliMetricsAddress, ANodesErrorsNameTheEnvironmentVariableTheValueCameFrom) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  write_json(dir + "/s.json", s);
  const std::string node = "node " + dir + "/s.json --insecure --out " + dir + "/out --scheduler 'tcp://127.0.0.1:*'";
  auto r = run_pstwin_env("PSTWIN_METRICS_ADDRESS=192.0.2.1:9464", node + " --role scheduler");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_METRICS_ADDRESS: metrics address '192.0.2.1:9464': no interface"),
            std::string::npos)
      << r.output;
  // The flag wins over the variable, and is named when it is the one at fault.
  r = run_pstwin_env("PSTWIN_METRICS_ADDRESS=127.0.0.1:0", node + " --role scheduler --metrics-address '[::1]'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: --metrics-address: metrics address '[::1]': no port"), std::string::npos)
      << r.output;
  r = run_pstwin_env("PSTWIN_STALL_TIMEOUT=-1", node + " --role scheduler");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_STALL_TIMEOUT must be a positive"), std::string::npos) << r.output;
  r = run_pstwin_env("PSTWIN_ROLE=wroker", node);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_ROLE must be scheduler, server or worker, not 'wroker'"),
            std::string::npos)
      << r.output;
  // A worker serves no metrics: an address set for it says so (and the worker goes on; here it
  // finds no scheduler within the connect timeout).
  r = run_pstwin_env("PSTWIN_METRICS_ADDRESS=127.0.0.1:0",
                     "node " + dir + "/s.json --insecure --role worker --scheduler tcp://127.0.0.1:1 --connect-timeout 0.2");
  EXPECT_NE(r.output.find("pstwin node (worker): PSTWIN_METRICS_ADDRESS is ignored: only the scheduler serves "
                          "live metrics"),
            std::string::npos)
      << r.output;
}

// A trial's worker refused PSTWIN_METRICS_ADDRESS='[::1]' (no port) although workers ignore the
// variable: a value a node never uses must not fail it. It is still said to be ignored.
TEST(CliMetricsAddress, ANodeThatServesNoMetricsIgnoresTheAddressWithoutCheckingIt) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  for (const char* role : {"worker", "server"}) {
    const auto r = run_pstwin_env("PSTWIN_METRICS_ADDRESS='[::1]'", "node " + dir + "/s.json --variant bsp --insecure --role " +
                                                                         role +
                                                                         " --scheduler tcp://127.0.0.1:1 "
                                                                         "--connect-timeout 0.2");
    EXPECT_EQ(r.output.find("no port"), std::string::npos) << role << ": " << r.output;
    EXPECT_NE(r.output.find(std::string("pstwin node (") + role + "): PSTWIN_METRICS_ADDRESS is ignored"),
              std::string::npos)
        << role << ": " << r.output;
    // It went on to dial the scheduler, which is not there.
    EXPECT_NE(r.output.find("127.0.0.1:1"), std::string::npos) << role << ": " << r.output;
  }
}

// The scheduler, which serves them, takes a bracketed IPv6 address as it takes an IPv4 one.
TEST(CliMetricsAddress, TheSchedulerTakesABracketedIpv6Address) {
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback here";
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  write_json(dir + "/s.json", s);
  // Past the address check, it waits for nodes that never come, until its connect timeout.
  const auto r = run_pstwin("node " + dir + "/s.json --insecure --role scheduler --out " + dir +
                            "/out --scheduler 'tcp://127.0.0.1:*' --connect-timeout 0.3 --metrics-address '[::1]:0'");
  EXPECT_EQ(r.output.find("metrics address"), std::string::npos) << r.output;
  EXPECT_NE(r.exit_code, 2) << r.output;
}

}  // namespace
}  // namespace pstwin

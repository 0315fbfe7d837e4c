// Where a node listens (--bind, and the scheduler's --scheduler) is checked as the node starts:
// what is not a host, or an address this machine cannot listen at, is refused (exit status 2)
// naming the flag, before the output folder is taken; and the scheduler listens where --bind says.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

// 203.0.113.0/24 is TEST-NET-3 (RFC 5737): no machine of ours has it.
constexpr const char* kElsewhere = "203.0.113.7";

std::string scheduler_args(const std::string& dir) {
  return "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --connect-timeout 1 --out " + dir +
         "/out " + dir + "/s.json";
}

TEST(NodeBind, WhatIsNotAHostIsRefusedNamingTheFlag) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"127.0.0.1:99999", "--bind '127.0.0.1:99999': a port ('99999') does not belong there: give the host alone"},
      {"'[::1]:5570'", "--bind '[::1]:5570': a port ('5570') does not belong there"},
      {"tcp://127.0.0.1:5570", "--bind 'tcp://127.0.0.1:5570': an endpoint, not a host"},
      {"'[127.0.0.1]'", "--bind '[127.0.0.1]': [127.0.0.1] is not an IPv6 address"},
      {"''", "--bind '': empty"}};
  for (const auto& [bind, said] : cases)
    for (const std::string role : {"scheduler", "worker"}) {
      const std::string node = role == "scheduler" ? scheduler_args(dir)
                                                   : "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " +
                                                         dir + "/s.json";
      const auto r = run_pstwin(node + " --bind " + bind);
      EXPECT_EQ(r.exit_code, 2) << role << " " << bind << ": " << r.output;
      EXPECT_NE(r.output.find("pstwin node: " + said), std::string::npos) << r.output;
    }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << "refused before the output folder is taken";
  // From the environment, the variable is named.
  const auto env = run_pstwin_env("PSTWIN_BIND=localhost:80", scheduler_args(dir));
  EXPECT_EQ(env.exit_code, 2) << env.output;
  EXPECT_NE(env.output.find("pstwin node: PSTWIN_BIND 'localhost:80': a port ('80') does not belong there"),
            std::string::npos)
      << env.output;
}

TEST(NodeBind, AnAddressOfAnotherMachineIsRefusedAsTheNodeStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string not_here = std::string(kElsewhere) + " is not an address of this machine";
  // The scheduler honours --bind (it listened at --scheduler's address, ignoring it)...
  auto r = run_pstwin(scheduler_args(dir) + " --bind " + kElsewhere);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: --bind " + std::string(kElsewhere) + ": cannot listen at tcp://" +
                          kElsewhere + ":*: " + not_here),
            std::string::npos)
      << r.output;
  // ... and without it listens at --scheduler's host, checked as early.
  r = run_pstwin("node --role scheduler --scheduler tcp://" + std::string(kElsewhere) +
                 ":5570 --insecure --connect-timeout 1 --out " + dir + "/out " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: --scheduler tcp://" + std::string(kElsewhere) +
                          ":5570 (the scheduler listens there; --bind chooses another address): cannot listen at"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(not_here), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << "refused before the output folder is taken";
  // A worker too, before it tries to register.
  r = run_pstwin_env("PSTWIN_BIND=" + std::string(kElsewhere),
                     "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: PSTWIN_BIND " + std::string(kElsewhere) + ": cannot listen at"),
            std::string::npos)
      << r.output;
}

TEST(NodeBind, TheSchedulerListensWhereBindSays) {
  // --scheduler on IPv6 loopback, --bind on IPv4 loopback: the endpoint it publishes is IPv4's.
  if (!has_ipv6_loopback()) GTEST_SKIP() << "no IPv6 loopback (::1) on this machine";
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin("node --role scheduler --scheduler 'tcp://[::1]:*' --bind 127.0.0.1 --insecure "
                            "--connect-timeout 0.5 --quiet --endpoint-file " + dir + "/ep --out " + dir + "/out " +
                            dir + "/s.json");
  std::string endpoint;
  std::ifstream(dir + "/ep") >> endpoint;
  EXPECT_EQ(endpoint.rfind("tcp://127.0.0.1:", 0), 0u) << endpoint << "\n" << r.output;
}

TEST(NodeBind, LaunchRefusesAPortInUseAndASchedulerHostThatIsNoHost) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  // With a hostfile, as the flag needs one (without, that is said first: FlagOrder).
  std::ofstream(dir + "/hosts") << "localhost slots=4\n";
  const std::string hosts = " --hostfile " + dir + "/hosts";
  auto r = run_pstwin("launch " + dir + "/s.json --insecure --scheduler-host head-node:5570 --out " + dir + "/out" +
                      hosts);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: --scheduler-host 'head-node:5570': a port ('5570') does not belong there"),
            std::string::npos)
      << r.output;
  r = run_pstwin("launch " + dir + "/s.json --insecure --scheduler-host '*' --out " + dir + "/out" + hosts);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: --scheduler-host '*': * names no machine to dial"), std::string::npos)
      << r.output;
  // A scheduler of another job holds the port.
  r = run_script(
      "cd " + dir + "\n"
      "$PSTWIN node --role scheduler --scheduler 'tcp://127.0.0.1:*' --insecure --connect-timeout 20 --quiet "
      "--endpoint-file ep --out a s.json >/dev/null 2>&1 &\n"
      "first=$!\n"
      "for i in $(seq 1 1000); do [ -s ep ] && break; sleep 0.01; done\n"
      "port=$(sed 's/.*://' ep)\n"
      "$PSTWIN launch s.json --insecure --port $port --out out\n"
      "echo \"launch exit status $?\"\n"
      "kill $first; wait $first\n"
      "[ -e out ] && echo 'out was made'\n");
  EXPECT_NE(r.output.find("launch exit status 2\n"), std::string::npos) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("pstwin launch: --port [0-9]+: cannot listen at "
                                                     "tcp://127.0.0.1:[0-9]+: address already in use")))
      << r.output;
  EXPECT_EQ(r.output.find("out was made"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin

// Every flag that names a host or an address is checked as the command starts, the same way,
// naming the flag (or the PSTWIN_ variable that gave it): an empty value, a name that does not
// resolve, a flag that means nothing in this run. A trial's `launch --scheduler-host bad.invalid`
// started every node, which then failed to dial it; without --hostfile the flag was ignored.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

struct Case {
  std::string args, says;
};

/// Runs each case (arguments after "pstwin") and expects exit status 2 and the line it says.
void expect_refused(const std::vector<Case>& cases, const std::string& env = "") {
  for (const Case& c : cases) {
    const auto r = run_pstwin_env(env, c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("launch: bsp ("), std::string::npos) << "no job started\n" << r.output;
  }
}

TEST(AddressFlags, LaunchRefusesASchedulerHostItCannotUseBeforeAnyNodeStarts) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  std::ofstream(dir + "/hosts") << "localhost slots=4\n";
  const std::string launch = "launch " + dir + "/s.json --insecure --out " + dir + "/out ";
  const std::string hosts = "--hostfile " + dir + "/hosts ";
  expect_refused({
      {launch + hosts + "--scheduler-host bad.invalid",
       "pstwin launch: --scheduler-host 'bad.invalid': cannot resolve host bad.invalid ("},
      {launch + hosts + "--scheduler-host ''", "pstwin launch: --scheduler-host '': empty"},
      {launch + hosts + "--scheduler-host '*'", "pstwin launch: --scheduler-host '*': * names no machine to dial"},
      {launch + hosts + "--scheduler-host 127.0.0.1:5570",
       "pstwin launch: --scheduler-host '127.0.0.1:5570': a port ('5570') does not belong there"},
      // Without --hostfile every node is local: the flag would be ignored.
      {launch + "--scheduler-host 127.0.0.1", "pstwin launch: --scheduler-host needs --hostfile"},
      {launch + "--ssh-command ssh", "pstwin launch: --ssh-command needs --hostfile"},
      {launch + hosts + "--ssh-command ''", "pstwin launch: --ssh-command '': empty"},
      {launch + "--metrics-address ''", "pstwin launch: --metrics-address: metrics address '': empty"},
      {launch + "--transport inproc --port 5570", "pstwin launch: --port needs --transport zmq or ucx"},
  });
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(AddressFlags, NodeRefusesAnAdvertisedHostOrASchedulerItCannotDial) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string worker = "node --role worker --insecure --connect-timeout 60 ";
  const std::string at = "--scheduler tcp://127.0.0.1:9 ";
  expect_refused({
      {worker + at + "--advertise '' " + dir + "/s.json", "pstwin node: --advertise '': empty"},
      {worker + at + "--advertise bad.invalid " + dir + "/s.json",
       "pstwin node: --advertise 'bad.invalid': cannot resolve host bad.invalid ("},
      {worker + at + "--advertise '*' " + dir + "/s.json", "pstwin node: --advertise '*': * names no machine to dial"},
      {worker + at + "--advertise tcp://127.0.0.1:1 " + dir + "/s.json",
       "pstwin node: --advertise 'tcp://127.0.0.1:1': an endpoint, not a host"},
      {worker + "--scheduler tcp://bad.invalid:5570 " + dir + "/s.json",
       "pstwin node: --scheduler 'tcp://bad.invalid:5570': cannot resolve host bad.invalid ("},
      {worker + "--scheduler 'tcp://127.0.0.1:*' " + dir + "/s.json",
       "pstwin node: --scheduler 'tcp://127.0.0.1:*': a port of * cannot be dialled"},
      {worker + "--scheduler '' " + dir + "/s.json", "pstwin node: --scheduler '': empty"},
      {worker + "--scheduler tcp://::1:9 " + dir + "/s.json",
       "pstwin node: --scheduler 'tcp://::1:9': put IPv6 literals in brackets, as in tcp://[::1]:9"},
  });
  // From the environment, the variable is named (empty: refused as every empty value variable is).
  expect_refused({{worker + at + dir + "/s.json", "pstwin node: PSTWIN_ADVERTISE is set but empty"}}, "PSTWIN_ADVERTISE=");
  // An IPv6 address alone reads one way with or without brackets: both are taken.
  for (const char* v6 : {"::1", "'[::1]'"}) {
    const auto r = run_pstwin("node --role worker --insecure --connect-timeout 0.5 --scheduler 'tcp://[::1]:9' "
                              "--advertise " + std::string(v6) + " " + dir + "/s.json");
    EXPECT_NE(r.output.find("cannot reach the scheduler"), std::string::npos) << v6 << "\n" << r.output;
  }
}

}  // namespace
}  // namespace pstwin

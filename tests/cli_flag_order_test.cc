// Flags that do not go together are said as such before any name is resolved or address tried. A
// trial's `launch --scheduler-host bad.invalid` without --hostfile read "cannot resolve" (true, but
// the flag was the mistake), and a node's --rejoin without --index read the scheduler's
// "cannot resolve" first.
#include <gtest/gtest.h>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

void expect_said_first(const std::string& args, const std::string& says) {
  const auto r = run_pstwin(args);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
  EXPECT_NE(r.output.find(says), std::string::npos) << args << "\n" << r.output;
  EXPECT_EQ(r.output.find("cannot resolve"), std::string::npos) << args << "\n" << r.output;
}

TEST(FlagOrder, LaunchSaysAFlagNeedsAnotherBeforeResolvingIt) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string launch = "launch " + dir + "/s.json --out " + dir + "/out ";
  expect_said_first(launch + "--insecure --scheduler-host bad.invalid",
                    "pstwin launch: --scheduler-host needs --hostfile");
  expect_said_first(launch + "--transport inproc --metrics-address bad.invalid:1",
                    "pstwin launch: --metrics-address needs --transport zmq or ucx");
  expect_said_first(launch + "--transport ucx --metrics-address bad.invalid:1",
                    "pstwin launch: --transport ucx needs --insecure");
  expect_said_first(launch + "--resume '' --insecure", "pstwin launch: --resume is empty: give a path");
}

TEST(FlagOrder, NodeSaysAFlagNeedsAnotherBeforeDiallingTheScheduler) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string worker = "node --role worker --scheduler tcp://bad.invalid:9 --insecure " + dir + "/s.json ";
  expect_said_first(worker + "--rejoin", "pstwin node: --rejoin needs --index");
  expect_said_first(worker + "--join --index 0", "pstwin node: --join needs --role server");
  expect_said_first(worker + "--index 7", "pstwin node: --index 7 does not name a worker of this scenario");
  expect_said_first(worker + "--advertise bad.invalid --rejoin", "pstwin node: --rejoin needs --index");
}

}  // namespace
}  // namespace pstwin

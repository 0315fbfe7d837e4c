// Where failures come from, as launch and validate say it: a variant's "set" pointer rather
// than /failures; a join after training.time_budget is flagged; the partition and join fields
// name exactly the values they accept.
#include <gtest/gtest.h>

#include "cli/launch_failures.h"
#include "runtime/scenario/scenario.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// The toy scenario with two variants: "plain", and "grow", where a server joins at 0.1 s.
json growing(const std::string& dir) {
  json s = toy_scenario(dir);
  s.erase("consistency");
  s["partition"] = "consistent_hash";
  s["variants"] = json::array(
      {{{"name", "plain"}, {"consistency", {{"mode", "bsp"}}}},
       {{"name", "grow"},
        {"consistency", {{"mode", "bsp"}}},
        {"set", {{"/failures", json::array({{{"join", "server"}, {"at", "0.1s"}}})}, {"/fault_tolerance", json::object()}}}}});
  return s;
}

TEST(CliVariantFailures, LaunchAndValidateNameTheVariantsPointer) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", growing(dir));
  auto r = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: variant grow's failures (/variants/1/set/~1failures): injection needs "
                          "--transport zmq"),
            std::string::npos)
      << r.output;
  r = run_pstwin("validate " + dir + "/s.json --set /training/time_budget=0.05s");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("note: /variants/1/set/~1failures (variant grow): launch injects these only with "
                          "--transport zmq or ucx on local processes"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("warning: /variants/1/set/~1failures (variant grow): server:1 joins at 0.1 s, not before "
                          "training.time_budget (0.05 s): the run ends first"),
            std::string::npos)
      << r.output;
}

TEST(CliVariantFailures, PartitionAndJoinErrorsOfferWhatTheyAccept) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  auto r = run_pstwin("validate " + dir + "/s.json --set /partition=5");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/partition: expected a scheme name (\"range\", \"consistent_hash\" or \"balanced\") or an "
                          "object"),
            std::string::npos)
      << r.output;
  r = run_pstwin("validate " + dir + "/s.json --set '/failures=[{\"join\": \"node\", \"at\": \"1s\"}]'");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/failures/0/join: expected one of \"server\", got"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("worker\", got"), std::string::npos) << r.output;  // "worker" is not offered
}

// A real run with heartbeats on a machine busier than its cores is warned about a tight timeout.
TEST(CliVariantFailures, ALoadedMachineWithATightHeartbeatTimeoutIsWarnedAbout) {
  Scenario run;
  run.fault_tolerance.enabled = true;
  run.fault_tolerance.heartbeat_timeout_s = 0.1;
  EXPECT_EQ(cli::loaded_machine_warning(run, "bsp", 5.0, 2),
            "launch: warning: variant bsp: this machine is loaded (load average 5 on 2 cores) and "
            "heartbeat_timeout is 0.1 s: starved nodes may miss heartbeats and be declared dead although "
            "they live; give it room (--set /fault_tolerance/heartbeat_timeout=2s)\n");
  EXPECT_EQ(cli::loaded_machine_warning(run, "bsp", 1.5, 2), "");  // not over its cores
  run.fault_tolerance.heartbeat_timeout_s = 1.0;
  EXPECT_EQ(cli::loaded_machine_warning(run, "bsp", 5.0, 2), "");  // room enough
  run.fault_tolerance.heartbeat_timeout_s = 0.1;
  run.fault_tolerance.enabled = false;
  EXPECT_EQ(cli::loaded_machine_warning(run, "bsp", 5.0, 2), "");  // no heartbeats
}

}  // namespace
}  // namespace pstwin

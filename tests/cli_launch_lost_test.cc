// Jobs that cannot go on: `pstwin launch` stops them as soon as a node they need ends
// abnormally, naming it, and a scheduler stopped from outside (the launcher, a user's Ctrl-C)
// still writes what it has: metrics rows and events so far, a summary that says why.
#include <gtest/gtest.h>

#include <fstream>
#include <regex>
#include <string>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// Launches dir/s.json into dir/out with `flags`, kills the launcher's first child of `role`
/// ("worker", "scheduler") with SIGKILL `wait_s` seconds after the job started, and waits for
/// launch. Prints "killed ROLE:N", then "launch exit status S", then "left running: PID" for
/// each of the job's processes still alive 0.2 s later.
CommandResult launch_and_kill(const std::string& dir, const std::string& role, const std::string& flags,
                              double wait_s) {
  return run_script(
      "cd " + dir + "\n"
      "$PSTWIN launch s.json --out out " + flags + " &\n"
      "launcher=$!\n"
      "for i in $(seq 1 3000); do [ -s out/bsp/address_book.json ] && break; sleep 0.01; done\n"
      "sleep " + std::to_string(wait_s) + "\n"
      + find_launched_node(role, "victim") +
      "echo \"killed " + role + ":$(echo \"$args\" | sed -n 's/.*--index \\([0-9]*\\).*/\\1/p')\"\n"
      "kill -9 $victim\n"
      "wait $launcher\n"
      "echo \"launch exit status $?\"\n"
      "sleep 0.2\n"
      "for d in /proc/[0-9]*; do\n"
      "  case \"$(tr '\\0' ' ' < $d/cmdline 2>/dev/null)\" in *\"$PWD/out/bsp\"*|*'--variant bsp'*s.json) echo \"left running: ${d#/proc/}\";; esac\n"
      "done\n");
}

/// launch_and_kill of a worker one second into the job, with short timeouts.
CommandResult launch_and_kill_a_worker(const std::string& dir, const std::string& flags) {
  return launch_and_kill(dir, "worker",
                         "--connect-timeout " + std::to_string(2.0 * time_scale()) + " --stall-timeout 20 " + flags,
                         1.0 * time_scale());
}

/// What a job stopped because `worker` ("worker:1") was killed must leave behind.
void expect_lost_job_outputs(const std::string& out, const std::string& worker) {
  const json s = read_json(out + "/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  const std::string reason = s["reason"];
  EXPECT_EQ(reason.rfind(worker + " was killed by signal 9 (SIGKILL), and the job has no fault tolerance", 0), 0u)
      << reason;
  EXPECT_NE(reason.find("stopped by SIGTERM at clock"), std::string::npos) << reason;
  // The rows so far: the scheduler wrote them although it was stopped.
  std::istringstream rows(read_file(out + "/bsp/metrics.csv"));
  int lines = 0;
  for (std::string line; std::getline(rows, line);) ++lines;
  EXPECT_GE(lines, 2) << "a header and at least one row";
  EXPECT_EQ(events_of(out + "/bsp", "job_stopped").size(), 1u);
  const auto lost = events_of(out + "/bsp", "job_lost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]["node"], worker);
  EXPECT_EQ(lost[0]["exit_status"], 137);
  EXPECT_EQ(lost[0]["signal"], 9);
}

TEST(LaunchLost, KilledWorkerWithoutFaultToleranceEndsTheJobAtOnceWithItsOutputs) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = launch_and_kill_a_worker(dir, "");
  std::smatch killed;
  ASSERT_TRUE(std::regex_search(r.output, killed, std::regex("killed (worker:[0-9]+)"))) << r.output;
  EXPECT_NE(r.output.find("launch exit status 1\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: " + killed[1].str() + " was killed by signal 9 (SIGKILL)"),
            std::string::npos)
      << r.output;
  expect_lost_job_outputs(dir + "/out", killed[1]);
}

TEST(LaunchLost, KilledWorkerOverUcxWithoutFaultToleranceEndsTheJobAtOnceWithItsOutputs) {
  // Over shared memory a dead peer goes unnoticed by the others (no fault tolerance asked): only
  // the launcher can end the job.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = launch_and_kill_a_worker(dir, "--transport ucx --insecure");
  std::smatch killed;
  ASSERT_TRUE(std::regex_search(r.output, killed, std::regex("killed (worker:[0-9]+)"))) << r.output;
  EXPECT_NE(r.output.find("launch exit status 1\n"), std::string::npos) << r.output;
  expect_lost_job_outputs(dir + "/out", killed[1]);
}

TEST(LaunchLost, AKilledSchedulerStopsItsNodesAtOnce) {
  // With a connect timeout of 10 minutes, a launcher that waited for its nodes' own timeouts
  // (1.5 x connect + 5 s) would run into ctest's timeout: the job must end as soon as the
  // scheduler is gone, with no node left running.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = launch_and_kill(dir, "scheduler", "--insecure --connect-timeout 600 --stall-timeout 600", 0.0);
  EXPECT_NE(r.output.find("launch exit status 1\n"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("left running"), std::string::npos) << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind("the scheduler was killed by signal 9 (SIGKILL)", 0), 0u) << s["reason"];
}

TEST(LaunchLost, UcxThatCannotStartFailsAtOnceNamingTheNode) {
  // Every server and worker exits as it starts; the scheduler (ZeroMQ only) would wait out its
  // connect timeout (30 s) for their registrations, and the launcher longer still.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin_env("UCX_TLS=bogus", "launch " + dir + "/s.json --out " + dir +
                                                     "/out --transport ucx --insecure --connect-timeout 30");
  EXPECT_EQ(r.exit_code, 3) << r.output;  // the transport's fault, not the variant's
  EXPECT_NE(r.output.find("UCX: cannot initialise"), std::string::npos) << r.output;  // the node's own words
  std::smatch node;
  ASSERT_TRUE(std::regex_search(r.output, node,
                                std::regex("pstwin launch: ((server|worker):[0-9]+) exited with status 3: its "
                                           "transport cannot work on this machine")))
      << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind(node[1].str() + " exited with status 3: its transport cannot work", 0),
            0u)
      << s["reason"];
  const auto lost = events_of(dir + "/out/bsp", "job_lost");
  ASSERT_EQ(lost.size(), 1u);
  EXPECT_EQ(lost[0]["node"], node[1].str());
}

TEST(LaunchLost, SchedulerStoppedByCtrlCWritesASummarySayingSo) {
  // `pstwin node --role scheduler` run by hand, interrupted while it waits for its nodes.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_script(
      "cd " + dir + "\n"
      "$PSTWIN node --role scheduler --scheduler 'tcp://127.0.0.1:*' --insecure --out out "
      "--endpoint-file endpoint s.json &\n"
      "scheduler=$!\n"
      "for i in $(seq 1 1000); do [ -s endpoint ] && break; sleep 0.01; done\n"
      "kill -INT $scheduler\n"
      "wait $scheduler\n"
      "echo \"node exit status $?\"\n");
  EXPECT_NE(r.output.find("node exit status 130\n"), std::string::npos) << r.output;  // 128 + SIGINT
  const json s = read_json(dir + "/out/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"], "the scheduler was stopped by SIGINT before the job started");
  EXPECT_EQ(s["stop_reason"], "SIGINT");
  // No clock ran: the tables read "before it started", not "at 0%" with figures of zero.
  EXPECT_FALSE(s.value("started", true)) << s.dump(2);
  EXPECT_FALSE(s.contains("progress")) << s.dump(2);
  // Nor any figure: a trial's table showed 0 updates and 0 s beside the other variants' "-".
  for (const char* figure : {"updates", "final_clock", "sim_time_s", "staleness_mean", "final_test_metric"})
    EXPECT_FALSE(s.contains(figure)) << figure << " in " << s.dump(2);
  EXPECT_EQ(s["scenario"], "endless") << "the summary names its scenario, as every summary does";
  const auto stopped = events_of(dir + "/out", "job_stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["reason"], "stopped by SIGINT");
}

// `kill -9` of launch itself: it can write nothing, and its nodes get the death signal they asked
// for (SIGTERM, PR_SET_PDEATHSIG). A trial's scheduler then wrote stop_reason "SIGTERM", a signal
// the user never sent; it must say that its launcher died.
TEST(LaunchLost, SigkillOfTheLauncherIsRecordedAsTheLauncherDyingNotAsSigterm) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_script(
      start_launch_script(dir) +
      "kill -9 $launcher\n"
      "wait $launcher\n"
      "echo \"launch exit status $?\"\n"
      // The orphaned scheduler writes its summary as it ends.
      "for i in $(seq 1 " + std::to_string(static_cast<int>(3000 * time_scale())) + "); do\n"
      "  [ -s out/bsp/summary.json ] && break; sleep 0.01\n"
      "done\n");
  EXPECT_NE(r.output.find("launch exit status 137\n"), std::string::npos) << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>()) << s.dump(1);
  EXPECT_EQ(s.value("stop_reason", ""), "launcher_died") << s.dump(1);
  const std::string reason = s["reason"];
  EXPECT_EQ(reason.rfind("the job was stopped because its launcher died at clock ", 0), 0u) << reason;
  EXPECT_EQ(reason.find("SIGTERM"), std::string::npos) << reason;
  const auto stopped = events_of(dir + "/out/bsp", "job_stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["reason"], "stopped because its launcher died");
}

}  // namespace
}  // namespace pstwin

// Jobs that end at once rather than wait out a timeout: an in-process job stopped by a signal
// writes what it has, as a ZeroMQ job's scheduler does (cli/stop_signals.h), and a node whose
// UCX starts but reaches no peer fails as the job starts, naming UCX's reason. A launch stopped
// in one of several variants still summarises every variant, as simulate does.
#include <gtest/gtest.h>

#include <iterator>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// Launches endless_job() in process into dir/out, sends the launcher `signal` ("INT", "TERM")
/// `wait_s` seconds after the job started (its metrics.csv is made as it starts), and prints
/// "launch exit status S". A launcher still running 10 s after the signal is killed: a stop
/// that does not work fails its test rather than hangs it.
CommandResult stop_inproc_job(const std::string& dir, const std::string& signal, double wait_s) {
  write_json(dir + "/s.json", endless_job());
  return run_script(
      "cd " + dir + "\n"
      "$PSTWIN launch s.json --transport inproc --out out &\n"
      "launcher=$!\n"
      "for i in $(seq 1 3000); do [ -e out/bsp/metrics.csv ] && break; sleep 0.01; done\n"
      "sleep " + std::to_string(wait_s) + "\n"
      "kill -" + signal + " $launcher\n"
      "for i in $(seq 1 1000); do kill -0 $launcher 2>/dev/null || break; sleep 0.01; done\n"
      "kill -9 $launcher 2>/dev/null\n"
      "wait $launcher\n"
      "echo \"launch exit status $?\"\n");
}

int lines_of(const std::string& path) {
  std::istringstream in(read_file(path));
  int lines = 0;
  for (std::string line; std::getline(in, line);) ++lines;
  return lines;
}

TEST(LaunchStop, AnInProcessJobStoppedBySigintWritesWhatItHasAndSaysWhy) {
  const std::string dir = fresh_dir();
  const auto r = stop_inproc_job(dir, "INT", 0.5 * time_scale());  // rows by then
  EXPECT_NE(r.output.find("launch exit status 130\n"), std::string::npos) << r.output;  // 128 + SIGINT
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s.value("stop_reason", ""), "SIGINT");
  const std::string reason = s["reason"];
  EXPECT_EQ(reason.rfind("the job was stopped by SIGINT at clock ", 0), 0u) << reason;
  EXPECT_NE(reason.find("before it completed"), std::string::npos) << reason;
  EXPECT_NE(r.output.find("pstwin launch: bsp: " + reason), std::string::npos) << r.output;
  EXPECT_GE(lines_of(dir + "/out/bsp/metrics.csv"), 2) << "the header and the rows so far";
  const auto stopped = events_of(dir + "/out/bsp", "job_stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["reason"], "stopped by SIGINT");
}

/// The "push" spans of trace.json in `variant_dir`: one per clock a worker finished.
long pushes_in_trace(const std::string& variant_dir) {
  const json trace = read_json(variant_dir + "/trace.json");
  long n = 0;
  for (const auto& e : trace["traceEvents"])
    if (e.value("name", "") == "push" && e.value("ph", "") == "X") ++n;
  return n;
}

TEST(LaunchStop, AStoppedJobsProgressIsTheClocksItsWorkersFinishedNotItsLastEvaluation) {
  // A trial's launch stopped 20 clocks in read "stopped (SIGINT) at 0%", its first evaluation
  // not yet made, while simulate showed the clocks done. The job here evaluates only at its end.
  for (const std::string transport : {"inproc", "zmq"}) {
    const std::string dir = fresh_dir("-" + transport);
    json s = endless_job();
    s["training"]["iterations"] = 400000;
    s["training"]["eval_every"] = 400000;
    write_json(dir + "/s.json", s);
    const auto r = run_script(
        "cd " + dir + "\n"
        "$PSTWIN launch s.json --transport " + transport + " --insecure --out out >out.txt 2>&1 &\n"
        "launcher=$!\n"
        "for i in $(seq 1 3000); do [ -e out/bsp/metrics.csv ] && break; sleep 0.01; done\n"
        "sleep " + std::to_string(1.5 * time_scale()) + "\n"
        "kill -INT $launcher\n"
        "for i in $(seq 1 1000); do kill -0 $launcher 2>/dev/null || break; sleep 0.01; done\n"
        "kill -9 $launcher 2>/dev/null\n"
        "wait $launcher\n"
        "echo \"launch exit status $?\"\n");
    EXPECT_NE(r.output.find("launch exit status 130\n"), std::string::npos) << transport << r.output;
    const json summary = read_json(dir + "/out/bsp/summary.json");
    // No evaluation before the stop; over ZeroMQ the scheduler evaluates the parameters its
    // server held at the stop (cli_launch_stopped_figures_test.cc), in process it cannot.
    if (transport == "inproc")
      EXPECT_EQ(summary["final_clock"], 0) << transport << ": no evaluation before the stop";
    else
      EXPECT_GT(summary["final_clock"].get<long>(), 0) << transport << ": evaluated at the stop";
    const double progress = summary.value("progress", 0.0);
    EXPECT_GT(progress, 0.0) << transport << summary.dump(1);
    EXPECT_LT(progress, 1.0) << transport;
    // Each worker's push ends one of its clocks: the trace's pushes over 2 workers x 400000,
    // when the trace kept every span (it keeps a bounded number per node).
    const long pushes = pushes_in_trace(dir + "/out/bsp");
    EXPECT_GT(pushes, 0) << transport;
    const double traced = static_cast<double>(pushes) / (2.0 * 400000.0);
    if (read_json(dir + "/out/bsp/trace.json")["otherData"]["spans_dropped"] == 0)
      EXPECT_NEAR(progress, traced, 1e-12) << transport;
    else
      EXPECT_GE(progress, traced) << transport;
  }
}

TEST(LaunchStop, ASecondSigintStillLeavesASummaryAndTheTableAndSaysSoOnce) {
  // A trial's second Ctrl-C, about 2 s after the first while the job was still ending, ended the
  // launcher and its scheduler alike: no summary, no comparison, and "stopped again" said twice.
  // The scheduler is held still here (SIGSTOP) so that the first signal cannot end the job.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_script(
      start_launch_script(dir, "err.txt") + find_launched_node("scheduler", "scheduler") +
      "kill -STOP $scheduler\n"
      "kill -INT $launcher\n"
      "sleep 3\n"
      "kill -INT $launcher\n"
      "for i in $(seq 1 " + std::to_string(static_cast<int>(1000 * time_scale())) + "); do\n"
      "  kill -0 $launcher 2>/dev/null || break; sleep 0.01\n"
      "done\n"
      "kill -9 $launcher $scheduler 2>/dev/null\n"
      "wait $launcher\n"
      "echo \"launch exit status $?\"\n");
  const std::string said = read_file(dir + "/err.txt");
  EXPECT_NE(r.output.find("launch exit status 130\n"), std::string::npos) << r.output << said;
  const std::regex again("stopped again");
  EXPECT_EQ(std::distance(std::sregex_iterator(said.begin(), said.end(), again), std::sregex_iterator()), 1) << said;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s.value("stop_reason", ""), "SIGINT") << s.dump(1);
  EXPECT_NE(read_file(dir + "/out/comparison.csv").find("\nbsp,"), std::string::npos) << said;
  EXPECT_NE(read_file(dir + "/out.txt").find("stopped (SIGINT)"), std::string::npos) << "the table";
}

TEST(LaunchStop, AnInProcessJobStoppedBySigtermSaysSo) {
  const std::string dir = fresh_dir();
  const auto r = stop_inproc_job(dir, "TERM", 0.0);
  EXPECT_NE(r.output.find("launch exit status 143\n"), std::string::npos) << r.output;  // 128 + SIGTERM
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind("the job was stopped by SIGTERM at clock ", 0), 0u) << s["reason"];
}

TEST(LaunchStop, UcxThatReachesNoPeerFailsAsTheJobStartsNamingTheNodeAndUcxsReason) {
  // UCX_TLS=self starts, but reaches only its own process: every server and worker fails as it
  // gets the address book, instead of dropping every message until the stall timeout (here
  // 10 s, so that a job that waits for it fails this test rather than hangs it).
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin_env("UCX_TLS=self", "launch " + dir + "/s.json --out " + dir +
                                                    "/out --transport ucx --insecure --connect-timeout 30 "
                                                    "--stall-timeout 10");
  EXPECT_EQ(r.exit_code, 3) << r.output;  // the transport's fault, not the variant's
  std::smatch said;
  ASSERT_TRUE(std::regex_search(r.output, said,
                                std::regex("node [0-9]+: UCX cannot reach node [0-9]+ at tcp://[^ ]+: Destination is "
                                           "unreachable \\(UCX_TLS=self; ")))
      << r.output;
  std::smatch node;
  ASSERT_TRUE(std::regex_search(r.output, node,
                                std::regex("pstwin launch: ((server|worker):[0-9]+) exited with status 3: its transport "
                                           "cannot work on this machine.*stopping the job")))
      << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind(node[1].str() + " exited with status 3", 0), 0u) << s["reason"];
}

json three_variants(json s) {
  s["consistency"] = json::parse(R"([{"mode": "bsp"}, {"mode": "asp"}, {"mode": "ssp", "staleness": 2}])");
  return s;
}

/// Launches `scenario` (written to dir/s.json) over UCX under UCX_TLS=self into dir/out.
CommandResult launch_unreachable_ucx(const std::string& dir, const json& scenario) {
  write_json(dir + "/s.json", scenario);
  return run_pstwin_env("UCX_TLS=self", "launch " + dir + "/s.json --out " + dir +
                                            "/out --transport ucx --insecure --connect-timeout 30 --stall-timeout 10");
}

/// What launch_unreachable_ucx of three_variants must leave: bsp failed, asp and ssp2 not run.
void expect_stopped_after_the_first_variant(const std::string& dir, const CommandResult& r) {
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("pstwin launch: stopping: --transport ucx cannot carry a job on this machine (variant "
                          "bsp's nodes said why above), and every variant would fail the same way; not run: asp ssp2\n"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("launch: bsp (ucx"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("launch: asp (ucx"), std::string::npos) << "asp must not run: " << r.output;
  EXPECT_EQ(r.output.find("launch: ssp2 (ucx"), std::string::npos) << "ssp2 must not run: " << r.output;
  EXPECT_FALSE(read_json(dir + "/out/bsp/summary.json")["completed"].get<bool>());
  for (const std::string v : {"asp", "ssp2"}) {
    const json s = read_json(dir + "/out/" + v + "/summary.json");
    EXPECT_FALSE(s["completed"].get<bool>());
    EXPECT_EQ(s["reason"], "not run: variant bsp's job found that --transport ucx cannot work on this machine, so "
                           "launch stopped there");
  }
}

TEST(LaunchStop, UcxThatReachesNoPeerStopsLaunchAfterTheFirstVariantSayingWhichDidNotRun) {
  // Every variant would fail the same way (43 s for a trial's three, one after another).
  const std::string dir = fresh_dir();
  expect_stopped_after_the_first_variant(dir, launch_unreachable_ucx(dir, three_variants(endless_job())));
}

TEST(LaunchStop, UcxThatReachesNoPeerStopsAFaultTolerantJobAtOnceToo) {
  // With failures to inject, the launcher supervises the job and fault tolerance would fail the
  // nodes over, one after another, although no node can reach any other.
  const std::string dir = fresh_dir();
  json base = three_variants(endless_job());
  base["cluster"]["servers"] = 2;
  const json s = with_fault_tolerance(base, 2, scaled_duration(0.05), scaled_duration(1.0),
                                      json::array({{{"node", "worker:1"}, {"at", "60s"}}}));
  expect_stopped_after_the_first_variant(dir, launch_unreachable_ucx(dir, s));
}

/// Launches three_variants(endless_job()) over `transport` into dir/out, sends SIGINT to the
/// launcher alone once the first variant's job has evaluated (a row in its metrics.csv), and
/// prints "launch exit status S" and then how many of its nodes are still running.
CommandResult stop_the_first_of_three(const std::string& dir, const std::string& transport) {
  write_json(dir + "/s.json", three_variants(endless_job()));
  return run_script(
      "cd " + dir + "\n"
      "$PSTWIN launch s.json --transport " + transport + (transport == "zmq" ? " --insecure" : "") +
      " --out out >out.txt 2>&1 &\n"
      "launcher=$!\n"
      "rows() { [ -e out/bsp/metrics.csv ] && wc -l < out/bsp/metrics.csv || echo 0; }\n"
      "for i in $(seq 1 3000); do [ $(rows) -ge 2 ] && break; sleep 0.01; done\n"
      "kill -INT $launcher\n"
      "for i in $(seq 1 2000); do kill -0 $launcher 2>/dev/null || break; sleep 0.01; done\n"
      "kill -9 $launcher 2>/dev/null\n"
      "wait $launcher\n"
      "echo \"launch exit status $?\"\n"
      "ps -eo args | grep -c '^[^ ]*pstwin node .*" + dir + "/s.json'\n");
}

/// What simulate leaves when stopped in its first variant, launch must leave too: the first
/// variant's summary says it was stopped, each later one that it was not started, and the
/// comparison covers all three.
void expect_stopped_in_the_first_of_three(const std::string& dir, const CommandResult& r) {
  const std::string said = read_file(dir + "/out.txt");
  EXPECT_EQ(r.output, "launch exit status 130\n0\n") << "exit status, nodes left\n" << said;
  const json bsp = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(bsp["completed"].get<bool>());
  EXPECT_NE(bsp["reason"].get<std::string>().find("stopped by SIGINT"), std::string::npos) << bsp["reason"];
  // Stopped, and by which signal: a trial's stop_reason read "failed", its row FAILED.
  EXPECT_EQ(bsp.value("stop_reason", ""), "SIGINT") << bsp.dump(1);
  EXPECT_NE(said.find("stopped (SIGINT) at "), std::string::npos) << said;
  for (const std::string v : {"asp", "ssp2"}) {
    const json s = read_json(dir + "/out/" + v + "/summary.json");
    EXPECT_FALSE(s["completed"].get<bool>()) << v;
    EXPECT_EQ(s["reason"], "the job was stopped by SIGINT before it started") << v;
    EXPECT_EQ(s.value("stop_reason", ""), "SIGINT") << v;
    EXPECT_EQ(said.find("launch: " + v + " ("), std::string::npos) << v << " must not run:\n" << said;
  }
  EXPECT_NE(said.find("stopped (SIGINT) before it started"), std::string::npos) << said;
  EXPECT_EQ(said.find("FAILED"), std::string::npos) << said;
  EXPECT_EQ(said.find("final test"), std::string::npos) << "no run completed:\n" << said;
  const std::string csv = read_file(dir + "/out/comparison.csv");
  for (const std::string v : {"\nbsp,", "\nasp,", "\nssp2,"}) {
    EXPECT_NE(csv.find(v), std::string::npos) << v << " missing from comparison.csv:\n" << csv;
    const std::string row = csv.substr(csv.find(v) + 1, csv.find('\n', csv.find(v) + 1) - csv.find(v));
    EXPECT_EQ(row.substr(row.rfind(',')), ",stopped\n") << row;
  }
  EXPECT_NE(said.find("\nssp2 "), std::string::npos) << "the printed table's last row:\n" << said;
  EXPECT_NE(said.find("pstwin launch: stopped by SIGINT: 0 of 3 variants finished; their outputs and the "
                      "others' summaries are in out\n"),
            std::string::npos)
      << said;
}

TEST(LaunchStop, StoppedInTheFirstOfThreeVariantsOverZeroMqLaunchSummarisesAllThree) {
  // A trial's launch wrote no comparison and no summary for the variants after the stopped one.
  const std::string dir = fresh_dir();
  expect_stopped_in_the_first_of_three(dir, stop_the_first_of_three(dir, "zmq"));
}

TEST(LaunchStop, StoppedInTheFirstOfThreeVariantsInProcessLaunchSummarisesAllThree) {
  const std::string dir = fresh_dir();
  expect_stopped_in_the_first_of_three(dir, stop_the_first_of_three(dir, "inproc"));
}

}  // namespace
}  // namespace pstwin

// simulate and sweep stopped by a signal (a trial's Ctrl-C was ignored): they stop their variant
// processes at once, leave none behind, write what finished and a summary that says why for
// what did not, and exit with 128 + the signal. Only the parent gets the signal, as with
// `kill -INT PID`; a command still running 10 s after it is killed, so that a stop that does
// not work fails its test rather than hangs it.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// endless_job() with a second variant, "short", of 20 clocks: it finishes at once.
json short_and_endless() {
  json s = endless_job();
  s.erase("consistency");
  s["consistency"] = {{"mode", "bsp"}};
  s["variants"] = json::array({{{"name", "short"}, {"set", {{"/training/iterations", 20}}}}, {{"name", "endless"}}});
  return s;
}

/// Runs `command` (pstwin's arguments) in `dir` in the background, sends it SIG`signal` once
/// `ready` (a file under dir) exists, and prints "exit status S", then the number of pstwin
/// processes still running on `dir`. With `whole_group`, the command runs in a process group of
/// its own and the signal goes to all of it, children included, as a terminal's Ctrl-C or a
/// batch system's SIGTERM does.
CommandResult stop_when_ready(const std::string& dir, const std::string& command, const std::string& ready,
                              const std::string& signal, bool whole_group = false) {
  return run_script(
      "cd " + dir + "\n" +
      (whole_group ? "setsid " : "") + "$PSTWIN " + command + " >out.txt 2>&1 &\n"
      "p=$!\n"
      "for i in $(seq 1 3000); do [ -e " + ready + " ] && break; sleep 0.01; done\n"
      "sleep 0.3\n"
      "kill -" + signal + (whole_group ? " -- -$p\n" : " $p\n") +
      "for i in $(seq 1 1000); do kill -0 $p 2>/dev/null || break; sleep 0.01; done\n"
      "kill -9 $p 2>/dev/null\n"
      "wait $p\n"
      "echo \"exit status $?\"\n"
      "sleep 0.2\n"
      "ps -eo args | grep -c '^[^ ]*pstwin .*" + dir + "/s.json'\n");
}

TEST(SimulateInterrupt, SigintStopsTheVariantsAndWritesWhatFinished) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_and_endless());
  const auto r = stop_when_ready(dir, "simulate " + dir + "/s.json --jobs 2 --out " + dir + "/out",
                                 "out/short/summary.json", "INT");
  EXPECT_EQ(r.output, "exit status 130\n0\n") << "exit status, processes left\n" << read_file(dir + "/out.txt");
  EXPECT_TRUE(read_json(dir + "/out/short/summary.json")["completed"].get<bool>());
  const json endless = read_json(dir + "/out/endless/summary.json");
  EXPECT_FALSE(endless["completed"].get<bool>());
  const std::string reason = endless["reason"];
  EXPECT_EQ(reason.rfind("the simulation was stopped by SIGINT at ", 0), 0u) << reason;
  EXPECT_NE(reason.find(", before it completed"), std::string::npos) << reason;
  const std::string said = read_file(dir + "/out.txt");
  EXPECT_NE(said.find("pstwin simulate: stopped by SIGINT: 1 of 2 variants finished"), std::string::npos) << said;
  // The comparison of both, as after any run.
  EXPECT_NE(read_file(dir + "/out/comparison.csv").find("\nendless,"), std::string::npos);
}

TEST(SimulateInterrupt, SigtermToTheWholeProcessGroupStopsTheVariantsRatherThanFailingThem) {
  // The children used to die of the SIGTERM themselves, before their parent stopped them, and
  // were reported as failed variants with no reason of the signal's.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_and_endless());
  const auto r = stop_when_ready(dir, "simulate " + dir + "/s.json --jobs 2 --out " + dir + "/out",
                                 "out/short/summary.json", "TERM", true);
  EXPECT_EQ(r.output, "exit status 143\n0\n") << "exit status, processes left\n" << read_file(dir + "/out.txt");
  EXPECT_TRUE(read_json(dir + "/out/short/summary.json")["completed"].get<bool>());
  const std::string reason = read_json(dir + "/out/endless/summary.json")["reason"];
  EXPECT_EQ(reason.rfind("the simulation was stopped by SIGTERM at ", 0), 0u) << reason;
  const std::string said = read_file(dir + "/out.txt");
  EXPECT_NE(said.find("pstwin simulate: stopped by SIGTERM: 1 of 2 variants finished"), std::string::npos) << said;
}

TEST(SimulateInterrupt, TheParentRunsNoThreadOfItsOwnWhileItsVariantsRun) {
  // Its children run on after fork() without exec: a thread alive at a fork can hold a lock the
  // child then waits for forever (AddressSanitizer's CI run lost 16 tests to one), so the
  // signals are taken in a handler (StopOnSignalsInHandler), not on a thread.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_and_endless());
  const auto r = run_script(
      "cd " + dir + "\n"
      "$PSTWIN simulate " + dir + "/s.json --jobs 2 --out " + dir + "/out >out.txt 2>&1 &\n"
      "p=$!\n"
      "for i in $(seq 1 3000); do [ -e out/short/summary.json ] && break; sleep 0.01; done\n"
      "ls /proc/$p/task | wc -l\n"
      "kill -INT $p\n"
      "wait $p\n");
  EXPECT_EQ(r.output, "1\n") << "threads of the simulate process\n" << read_file(dir + "/out.txt");
}

TEST(SimulateInterrupt, TheStoppedVariantsFilesHoldWholeRecordsOnly) {
  // A trial's stopped variant left metrics.csv empty and events.jsonl cut inside a record, at a
  // 16 KiB buffer's end, and plot_runs.py then failed for the whole folder. The signal comes once
  // both files passed 20000 bytes, so that a buffered writer would have been cut mid-file.
  const std::string dir = fresh_dir();
  json s = short_and_endless();
  s["training"]["eval_every"] = 10;
  s["stragglers"] = json::array({{{"type", "transient"}, {"probability", 0.3}, {"factor", 3}}});
  write_json(dir + "/s.json", s);
  const std::string endless = dir + "/out/endless";
  run_script(
      "cd " + dir + "\n"
      "$PSTWIN simulate s.json --jobs 2 --quiet --out out >out.txt 2>&1 &\n"
      "p=$!\n"
      "size() { stat -c %s \"$1\" 2>/dev/null || echo 0; }\n"
      "for i in $(seq 1 3000); do\n"
      "  [ -e out/short/summary.json ] && [ $(size out/endless/metrics.csv) -ge 20000 ] &&\n"
      "    [ $(size out/endless/events.jsonl) -ge 20000 ] && break\n"
      "  sleep 0.01\n"
      "done\n"
      "kill -INT $p\n"
      "for i in $(seq 1 1000); do kill -0 $p 2>/dev/null || break; sleep 0.01; done\n"
      "kill -9 $p 2>/dev/null\n"
      "wait $p\n");
  ASSERT_EQ(read_json(endless + "/summary.json")["reason"].get<std::string>().rfind(
                "the simulation was stopped by SIGINT at ", 0),
            0u)
      << read_file(dir + "/out.txt");

  const std::string metrics = read_file(endless + "/metrics.csv");
  ASSERT_FALSE(metrics.empty());
  EXPECT_EQ(metrics.back(), '\n') << "a cut last row";
  std::istringstream rows(metrics);
  std::string header;
  std::getline(rows, header);
  EXPECT_EQ(header, "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max");
  const auto columns = std::count(header.begin(), header.end(), ',') + 1;
  int n = 0;
  for (std::string row; std::getline(rows, row); ++n)
    ASSERT_EQ(std::count(row.begin(), row.end(), ',') + 1, columns) << "row " << n + 1 << ": " << row;
  EXPECT_GT(n, 100) << "the evaluations before the stop are kept";

  const std::string events = read_file(endless + "/events.jsonl");
  ASSERT_FALSE(events.empty());
  EXPECT_EQ(events.back(), '\n') << "a cut last event";
  std::istringstream lines(events);
  int e = 0;
  for (std::string line; std::getline(lines, line); ++e) {
    json event;
    ASSERT_NO_THROW(event = json::parse(line)) << "line " << e + 1 << ": " << line;
    EXPECT_TRUE(event.contains("type")) << line;
  }
  for (const auto& entry : std::filesystem::directory_iterator(endless))
    EXPECT_EQ(entry.path().filename().string().find(".tmp."), std::string::npos)
        << entry.path() << ": a half-written file";
}

/// metrics.csv's rows as (time_s, clock, test_metric), read here apart from pstwin's reader.
std::vector<std::array<double, 3>> metrics_rows(const std::string& path) {
  std::istringstream lines(read_file(path));
  std::string line;
  std::getline(lines, line);  // the header
  std::vector<std::array<double, 3>> rows;
  while (std::getline(lines, line)) {
    std::vector<std::string> f(1);
    for (const char c : line) {
      if (c == ',') f.emplace_back();
      else f.back().push_back(c);
    }
    rows.push_back({std::stod(f[0]), std::stod(f[1]), std::stod(f[5])});
  }
  return rows;
}

TEST(SimulateInterrupt, AStoppedVariantShowsAsStoppedWithTheFiguresItReached) {
  // A trial's variant stopped at 62%, past its target, read FAILED with every figure blank in the
  // table and in comparison.csv, and the header claimed final values. Its figures are those of
  // its last evaluation kept in metrics.csv, its time to target the first row at the target.
  const std::string dir = fresh_dir();
  json s = toy_scenario(dir);
  s["training"]["iterations"] = 10000000;
  s["training"]["eval_every"] = 5;
  s["training"]["target_metric"] = 0.6;
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  write_json(dir + "/s.json", s);
  const auto r = run_script(
      "cd " + dir + "\n"
      "$PSTWIN simulate s.json --quiet --out out >out.txt 2>&1 &\n"
      "p=$!\n"
      "rows() { [ -e out/bsp/metrics.csv ] && wc -l < out/bsp/metrics.csv || echo 0; }\n"
      "for i in $(seq 1 3000); do [ $(rows) -ge 6 ] && break; sleep 0.01; done\n"
      "kill -INT $p\n"
      "for i in $(seq 1 1000); do kill -0 $p 2>/dev/null || break; sleep 0.01; done\n"
      "kill -9 $p 2>/dev/null\n"
      "wait $p\n"
      "echo \"exit status $?\"\n");
  const std::string said = read_file(dir + "/out.txt");
  ASSERT_EQ(r.output, "exit status 130\n") << said;
  const auto rows = metrics_rows(dir + "/out/bsp/metrics.csv");
  ASSERT_GE(rows.size(), 5u) << said;
  const json summary = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(summary["completed"].get<bool>());
  EXPECT_EQ(summary.value("stop_reason", ""), "SIGINT");
  for (const char* key : {"final_clock", "final_test_metric", "sim_time_s", "time_to_target_s", "progress"})
    ASSERT_TRUE(summary.contains(key) && summary[key].is_number()) << key << " in " << summary.dump(1);
  EXPECT_EQ(summary["metric"], "accuracy");
  EXPECT_EQ(summary["final_clock"].get<double>(), rows.back()[1]);
  EXPECT_NEAR(summary["final_test_metric"].get<double>(), rows.back()[2], 1e-9);
  // The time it reached: its last evaluation's or later (README "Outputs").
  EXPECT_GE(summary["sim_time_s"].get<double>(), rows.back()[0] - 1e-9);
  const auto reached = std::find_if(rows.begin(), rows.end(), [](const auto& row) { return row[2] >= 0.6; });
  ASSERT_NE(reached, rows.end()) << "the toy data passes 0.6 within its first evaluations";
  EXPECT_NEAR(summary["time_to_target_s"].get<double>(), (*reached)[0], 1e-9);
  const double progress = summary["progress"].get<double>();
  EXPECT_GT(progress, 0.0);
  EXPECT_LT(progress, 1.0);

  // comparison.csv: the figures, and a status that is neither ok nor FAILED.
  const std::string csv = read_file(dir + "/out/comparison.csv");
  const std::string row = csv.substr(csv.find("\nbsp,") + 1);
  EXPECT_EQ(row.substr(row.rfind(',', row.size() - 2)), ",stopped\n") << csv;
  EXPECT_NE(row.find(",SIGINT,"), std::string::npos) << "stop_reason: " << csv;
  std::ostringstream metric;
  metric << std::setprecision(9) << summary["final_test_metric"].get<double>();
  EXPECT_NE(row.find("," + metric.str() + ","), std::string::npos) << csv;
  // The table: no "final" values, and the row says where it stopped.
  const int percent = static_cast<int>(progress * 100.0);
  EXPECT_NE(said.find("stopped (SIGINT) at " + std::to_string(percent) + "%"), std::string::npos) << said;
  EXPECT_NE(said.find("test accuracy at stop"), std::string::npos) << said;
  EXPECT_EQ(said.find("final test accuracy"), std::string::npos) << said;
  EXPECT_EQ(said.find("FAILED"), std::string::npos) << said;
}

TEST(SimulateInterrupt, AVariantNotStartedSaysSo) {
  const std::string dir = fresh_dir();
  json s = endless_job();
  s["consistency"] = json::array({{{"mode", "bsp"}}, {{"mode", "asp"}}});
  write_json(dir + "/s.json", s);
  const auto r = stop_when_ready(dir, "simulate " + dir + "/s.json --jobs 1 --out " + dir + "/out",
                                 "out/bsp", "TERM");
  EXPECT_EQ(r.output, "exit status 143\n0\n") << read_file(dir + "/out.txt");
  const json asp = read_json(dir + "/out/asp/summary.json");
  EXPECT_EQ(asp["reason"], "the simulation was stopped by SIGTERM before it started");
  EXPECT_EQ(asp.value("stop_reason", ""), "SIGTERM");
  EXPECT_NE(read_file(dir + "/out.txt").find("stopped (SIGTERM) before it started"), std::string::npos)
      << read_file(dir + "/out.txt");
}

TEST(SweepInterrupt, SigintStopsTheRunsWritesSweepCsvAndLeavesAStoppedRunToRunAgain) {
  const std::string dir = fresh_dir();
  json s = endless_job();
  write_json(dir + "/s.json", s);
  const auto r = stop_when_ready(
      dir, "sweep " + dir + "/s.json --jobs 2 --out " + dir + "/out --grid /training/iterations=20,10000000",
      "out/training.iterations=20_seed=1/bsp/summary.json", "INT");
  EXPECT_EQ(r.output, "exit status 130\n0\n") << read_file(dir + "/out.txt");
  const std::string csv = read_file(dir + "/out/sweep.csv");
  EXPECT_NE(csv.find("\n20,1,bsp,"), std::string::npos) << csv;
  EXPECT_NE(csv.find(",ok,training.iterations=20_seed=1/bsp\n"), std::string::npos) << csv;
  // Stopped, not failed: a status of its own (a trial's read FAILED).
  EXPECT_NE(csv.find(",stopped,training.iterations=10000000_seed=1/bsp\n"), std::string::npos) << csv;
  const json stopped = read_json(dir + "/out/training.iterations=10000000_seed=1/bsp/summary.json");
  EXPECT_FALSE(stopped["completed"].get<bool>());
  EXPECT_EQ(stopped.value("stop_reason", ""), "SIGINT");
  EXPECT_TRUE(stopped.contains("final_clock") && stopped.contains("progress")) << stopped.dump(1);
  EXPECT_EQ(stopped["reason"].get<std::string>().rfind("the simulation was stopped by SIGINT at ", 0), 0u);
  EXPECT_EQ(stopped["config"]["training"]["iterations"], 10000000) << "its settings, so a resumed sweep runs it again";
  EXPECT_NE(read_file(dir + "/out.txt").find("pstwin sweep: stopped by SIGINT: 1 of 2 runs to run finished"),
            std::string::npos)
      << read_file(dir + "/out.txt");
}

TEST(Hangup, ACommandThatTakesNoStopSignalsEndsOnSighupAsAnyProgramDoes) {
  // UCX, linked in, catches SIGHUP as its debug signal from before main: calibrate (which takes
  // no stop signals) ran on to exit 0, and a hangup early in simulate or launch was lost.
  const std::string dir = fresh_dir();
  const auto r = run_script("cd " + dir + "\n$PSTWIN calibrate --quick --out c.json >out.txt 2>&1 &\n"
                            "p=$!\n"
                            // Once main runs (its first line): before, the libraries are loading.
                            "for i in $(seq 1 3000); do grep -q memcpy out.txt && break; sleep 0.01; done\n"
                            "kill -HUP $p\nwait $p\necho \"exit status $?\"\n");
  // (bash also reports the job's "Hangup" on stderr)
  EXPECT_NE(r.output.find("exit status 129\n"), std::string::npos) << r.output << read_file(dir + "/out.txt");
}

TEST(SweepInterrupt, ARunNeverStartedGetsASummarySayingSoWithItsSettings) {
  // Only the runs that had started used to get one: the others' folders, which sweep.csv names,
  // did not exist, and plot_runs.py could not say why they were missing.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = stop_when_ready(
      dir, "sweep " + dir + "/s.json --jobs 1 --out " + dir + "/out --grid /training/iterations=10000000,20",
      "out/training.iterations=10000000_seed=1/bsp", "TERM");
  EXPECT_EQ(r.output, "exit status 143\n0\n") << read_file(dir + "/out.txt");
  const json never = read_json(dir + "/out/training.iterations=20_seed=1/bsp/summary.json");
  EXPECT_FALSE(never["completed"].get<bool>());
  EXPECT_EQ(never["reason"], "the simulation was stopped by SIGTERM before it started");
  EXPECT_EQ(never["config"]["training"]["iterations"], 20) << "its settings, so a resumed sweep runs it";
}

TEST(SimulateInterrupt, AStoppedRerunLeavesNoReportOrFigureOfTheFinishedRunBefore) {
  // A trial re-ran a finished run's folder and stopped it: report.md and the PNGs of the
  // finished run stayed beside the new summaries, and described another run.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", short_and_endless());
  std::filesystem::create_directories(dir + "/out");
  for (const char* file : {"report.md", "test_metric_vs_time.png", "loss_vs_clock.png"})
    std::ofstream(dir + "/out/" + file) << "the earlier run's\n";
  std::ofstream(dir + "/out/notes.txt") << "the user's\n";
  const auto r = stop_when_ready(dir, "simulate " + dir + "/s.json --jobs 2 --out " + dir + "/out",
                                 "out/short/summary.json", "INT");
  EXPECT_EQ(r.output, "exit status 130\n0\n") << read_file(dir + "/out.txt");
  for (const char* file : {"report.md", "test_metric_vs_time.png", "loss_vs_clock.png"})
    EXPECT_FALSE(std::filesystem::exists(dir + "/out/" + file)) << file;
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/notes.txt")) << "not a file of a run";
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/comparison.csv"));
}

TEST(SimulateInterrupt, AClosedStdoutLosesNoFile) {
  // `pstwin simulate S | head -1`: a trial's SIGPIPE on the table ended simulate before it wrote
  // comparison.csv, although every variant had completed. The reader here closes the pipe at once.
  const std::string dir = fresh_dir();
  json s = short_and_endless();
  s["variants"] = json::array({{{"name", "short"}, {"set", {{"/training/iterations", 20}}}},
                               {{"name", "short2"}, {"set", {{"/training/iterations", 30}}}}});
  write_json(dir + "/s.json", s);
  const auto r = run_script(
      "cd " + dir + "\n"
      "exec 3>&1\n"
      "$PSTWIN simulate s.json --quiet --out out 2>err.txt | (exec 0<&-; sleep 0)\n"
      "echo \"exit status ${PIPESTATUS[0]}\" >&3\n");
  EXPECT_EQ(r.output, "exit status 0\n") << read_file(dir + "/err.txt");
  EXPECT_NE(read_file(dir + "/out/comparison.csv").find("\nshort2,"), std::string::npos) << read_file(dir + "/err.txt");
  EXPECT_NE(read_file(dir + "/err.txt").find("pstwin simulate: stdout was closed before all was printed; the files "
                                             "are written all the same (exit status 0)"),
            std::string::npos)
      << read_file(dir + "/err.txt");
}

TEST(SimulateInterrupt, AStoppedVariantReportsTheClocksAndTimeItReachedAsLaunchDoes) {
  // progress is the share of clocks the workers finished and sim_time_s the time the run had
  // reached, as a stopped launch reports them (clocks_share); a trial's simulate gave the last
  // evaluation's time while launch gave the stop's. The variant here evaluates only at its end.
  const std::string dir = fresh_dir();
  json s = short_and_endless();
  s["training"]["iterations"] = 1000000;
  s["training"]["eval_every"] = 1000000;
  write_json(dir + "/s.json", s);
  run_script(
      "cd " + dir + "\n"
      "$PSTWIN simulate s.json --jobs 2 --quiet --out out >out.txt 2>&1 &\n"
      "p=$!\n"
      "for i in $(seq 1 3000); do [ -e out/short/summary.json ] && break; sleep 0.01; done\n"
      "sleep " + std::to_string(1.5 * time_scale()) + "\n"
      "kill -INT $p\n"
      "wait $p\n");
  const json endless = read_json(dir + "/out/endless/summary.json");
  EXPECT_EQ(endless["final_clock"], 0) << "no evaluation before the stop";
  const double progress = endless.value("progress", 0.0);
  EXPECT_GE(progress, 0.001) << endless.dump(1);
  EXPECT_LT(progress, 1.0);
  const double time_s = endless["sim_time_s"].get<double>();
  EXPECT_GT(time_s, 0.0) << endless.dump(1);
  // The same time the reason gives ("at 0% (simulated time 1.25 s)").
  std::ostringstream said;
  said << "(simulated time " << time_s << " s)";
  EXPECT_NE(endless["reason"].get<std::string>().find(said.str()), std::string::npos) << endless["reason"];
}

TEST(SweepInterrupt, AStoppedSweepLeavesNoFigureOfTheEarlierSweepCsv) {
  // sweep.csv is written again by every sweep that runs something: plot_sweep.py's figures of the
  // earlier one would then contradict it, as simulate's report.md did.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  std::filesystem::create_directories(dir + "/out");
  std::ofstream(dir + "/out/sweep_training.iterations.png") << "the earlier sweep's\n";
  const auto r = stop_when_ready(
      dir, "sweep " + dir + "/s.json --jobs 2 --out " + dir + "/out --grid /training/iterations=20,10000000",
      "out/training.iterations=20_seed=1/bsp/summary.json", "INT");
  EXPECT_EQ(r.output, "exit status 130\n0\n") << read_file(dir + "/out.txt");
  EXPECT_FALSE(std::filesystem::exists(dir + "/out/sweep_training.iterations.png"));
  EXPECT_TRUE(std::filesystem::exists(dir + "/out/sweep.csv"));
}

}  // namespace
}  // namespace pstwin

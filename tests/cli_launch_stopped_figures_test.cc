// The figures of a job launched over ZeroMQ and stopped by SIGINT are those at the stop. A
// trial's stopped launch read "44%" where about 70% of the clocks were done (the workers' last
// spans were lost with their processes and the scheduler's queue), and its "test accuracy at
// stop" was that of clock 360 of 1000 while the workers had done 990 (the scheduler evaluates
// snapshots in turn while the workers go on, and stopped evaluating at the signal).
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

constexpr double kIterations = 10'000'000;  // far more than the job does before the stop
constexpr int kWorkers = 2;

/// A logistic BSP job of kWorkers workers and one server, evaluated only at its end: whatever
/// the scheduler reports at the stop, no periodic evaluation (they come at fixed clocks) made it.
json long_logistic_job(const std::string& dir) {
  json s = toy_scenario(dir);
  s.erase("stragglers");
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = kIterations;
  s["training"]["eval_every"] = kIterations;
  s["cluster"]["workers"] = kWorkers;
  s["cluster"]["servers"] = 1;
  return s;
}

TEST(LaunchStoppedFigures, ProgressAndTheLastEvaluationAreThoseAtTheStopOverZeroMq) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", long_logistic_job(dir));
  // Only the launcher gets the signal (`kill -INT PID`); it passes it on to every node.
  const auto r = run_script(start_launch_script(dir) +
                            "sleep " + std::to_string(1.5 * time_scale()) + "\n"
                            "kill -INT $launcher\n"
                            "wait $launcher\n"
                            "echo \"launch exit status $?\"\n");
  ASSERT_NE(r.output.find("launch exit status 130\n"), std::string::npos) << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  ASSERT_FALSE(s["completed"].get<bool>()) << s.dump(1);
  ASSERT_EQ(s.value("stop_reason", ""), "SIGINT") << s.dump(1);
  // The clocks the workers said they finished (their "push" spans), all workers together.
  const double clocks_done = std::round(s["progress"].get<double>() * kWorkers * kIterations);
  ASSERT_GT(clocks_done, 0) << s.dump(1);
  // An independent count: the gradients the server applied, which it reports itself with its
  // snapshots (staleness histograms); its final one, sent when told to stop, came too. Each
  // worker's last push may have been on its way when the server stopped: kWorkers at most.
  const double applied = s["updates"].get<double>();
  EXPECT_LE(applied, clocks_done) << s.dump(1);
  EXPECT_GE(applied, clocks_done - kWorkers) << "progress counts clocks the server never saw pushed: " << s.dump(1);
  // Each clock a worker finished ends with its "push" span, and the spans reach trace.json: the
  // workers' last ones too, so progress is their count, not a figure raised to the last
  // evaluation's clock (summary.h, clocks_share) because spans went missing.
  const json trace = read_json(dir + "/out/bsp/trace.json");
  if (trace["otherData"]["spans_dropped"] == 0) {  // trace.json kept every span it was given
    double pushes = 0;
    for (const auto& e : trace["traceEvents"])
      if (e.value("name", "") == "push" && e.value("ph", "") == "X") ++pushes;
    EXPECT_EQ(pushes, clocks_done) << "spans of clocks done went missing: " << s.dump(1);
  }
  // Under BSP every worker has done the server's clock, or one more: the last evaluation is of
  // the parameters the server held at the stop (there was none before it).
  const double final_clock = s["final_clock"].get<double>();
  EXPECT_LE(std::abs(final_clock - clocks_done / kWorkers), 1.0)
      << "the last evaluation lags the clocks done: " << s.dump(1);
  EXPECT_TRUE(s["final_test_metric"].is_number()) << s.dump(1);
  const auto stopped = events_of(dir + "/out/bsp", "job_stopped");
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0]["clock"], s["final_clock"]) << "the event names the last clock evaluated";
  EXPECT_NE(s["reason"].get<std::string>().find("at clock " + std::to_string(static_cast<long>(final_clock)) + " of "),
            std::string::npos)
      << s["reason"];
}

}  // namespace
}  // namespace pstwin

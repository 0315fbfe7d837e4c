// Scheduler stopped from outside (a signal) mid-training: it takes what the nodes send as they
// stop (Env::recv_after_stop) and evaluates the newest parameters once, skipping older snapshots
// and counting them, so that a stopped job's last evaluation is the one at the stop (a trial's
// was at clock 360 of 1000 with 990 done). Where nothing comes after the stop (the simulation,
// threads of one process) nothing changes. Job: the synthetic model of 6 keys, 100 clocks,
// servers 1 and 2 (ranges [0, 3) and [3, 6)), workers 3 and 4, an evaluation every clock.
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <vector>

#include "runtime/errors.h"
#include "runtime/roles/scheduler.h"
#include "tests/scripted_env.h"

namespace pstwin {
namespace {

using testing_support::RecordingSink;
using testing_support::ScriptedEnv;

/// Keeps the clock of each evaluation too.
class EvaluationsSink : public RecordingSink {
 public:
  void eval(EvalRow row) override { clocks.push_back(row.clock); }
  std::vector<std::int64_t> clocks;
};

/// Delivers `inbox`, is then stopped (recv throws JobStopped("stopped by SIGINT")), and hands out
/// `after_stop` through recv_after_stop.
class StoppedMidJob : public ScriptedEnv {
 public:
  StoppedMidJob() : ScriptedEnv(0) {}
  std::optional<Message> recv(double timeout_s) override {
    if (inbox.empty()) throw JobStopped("stopped by SIGINT");
    return ScriptedEnv::recv(timeout_s);
  }
  std::optional<Message> recv_after_stop(double) override {
    if (after_stop.empty()) return std::nullopt;
    Message m = std::move(after_stop.front());
    after_stop.pop_front();
    return m;
  }
  MetricsSink& metrics() override { return evaluations; }

  std::deque<Message> after_stop;
  EvaluationsSink evaluations;
};

JobSpec job() {
  JobSpec spec;
  spec.layout = JobLayout{2, 2};
  spec.iterations = 100;
  spec.eval_every = 1;
  spec.synthetic = SyntheticModel{6, 1.0, 1.0};
  return spec;
}

/// Range `range`'s snapshot at `clock` from its server; `final`: the one it sends when stopped.
Message snapshot(std::uint32_t range, std::int64_t clock, bool final = false) {
  Message m;
  m.header.type = MsgType::kSnapshot;
  m.header.sender = range + 1;
  m.header.range = range;
  m.header.clock = clock;
  if (final) m.header.flags = msg_flags::kFinal;
  m.virtual_values = 3;
  return m;
}

/// Runs the scheduler of job() in `env` and returns what it threw (JobStopped's text).
std::string stopped_run(StoppedMidJob& env) {
  const JobSpec spec = job();
  const auto kernels = make_cpu_backend();
  try {
    Scheduler(env, spec, *kernels).run();
  } catch (const JobStopped& e) {
    return e.what();
  }
  ADD_FAILURE() << "the scheduler was not stopped";
  return "";
}

TEST(SchedulerStopWindDown, TheServersFinalSnapshotsAreEvaluatedAndTheSnapshotsBeforeThemSkipped) {
  StoppedMidJob env;
  env.inbox = {snapshot(0, 1), snapshot(1, 1)};
  env.after_stop = {snapshot(0, 2), snapshot(1, 2), snapshot(0, 3), snapshot(1, 3),
                    snapshot(0, 5, true), snapshot(1, 4, true)};
  EXPECT_EQ(stopped_run(env), "the job was stopped by SIGINT at clock 4 of 100 (the last evaluated), before it completed");
  // Clock 1 as it came, then once the parameters at the stop (ranges at 5 and 4: clock 4).
  EXPECT_EQ(env.evaluations.clocks, (std::vector<std::int64_t>{1, 4}));
  ASSERT_EQ(env.evaluations.count("job_stopped"), 1u);
  EXPECT_EQ(env.evaluations.event_json(env.evaluations.events.size() - 1),
            (nlohmann::json{{"type", "job_stopped"}, {"reason", "stopped by SIGINT"}, {"clock", 4},
                            {"evaluations_skipped", 2}}));
  // Servers told to stop at once, workers told to stop: each once.
  EXPECT_EQ(env.sent_of(MsgType::kStop).size(), 4u);
}

TEST(SchedulerStopWindDown, WithoutEveryFinalSnapshotTheNewestCompleteSnapshotIsEvaluated) {
  StoppedMidJob env;
  env.inbox = {snapshot(0, 1), snapshot(1, 1)};
  env.after_stop = {snapshot(0, 2), snapshot(1, 2), snapshot(1, 3), snapshot(0, 3), snapshot(0, 4, true)};
  stopped_run(env);
  EXPECT_EQ(env.evaluations.clocks, (std::vector<std::int64_t>{1, 3}));
  EXPECT_EQ(env.evaluations.event_json(env.evaluations.events.size() - 1),
            (nlohmann::json{{"type", "job_stopped"}, {"reason", "stopped by SIGINT"}, {"clock", 3},
                            {"evaluations_skipped", 1}}));
}

TEST(SchedulerStopWindDown, WhenNothingComesAfterTheStopTheLastEvaluationStandsAsBefore) {
  StoppedMidJob env;
  env.inbox = {snapshot(0, 1), snapshot(1, 1), snapshot(0, 2)};
  EXPECT_EQ(stopped_run(env), "the job was stopped by SIGINT at clock 1 of 100 (the last evaluated), before it completed");
  EXPECT_EQ(env.evaluations.clocks, (std::vector<std::int64_t>{1}));
  EXPECT_EQ(env.evaluations.event_json(env.evaluations.events.size() - 1),
            (nlohmann::json{{"type", "job_stopped"}, {"reason", "stopped by SIGINT"}, {"clock", 1}}));
}

}  // namespace
}  // namespace pstwin

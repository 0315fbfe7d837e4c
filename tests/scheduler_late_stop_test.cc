// Scheduler stopped from outside (a signal) after training was over: the job completed, and says
// so, instead of "stopped at clock 4 of 4, before it completed" (a trial's SIGHUP just after the
// last clock). The environment delivers its scripted messages, then throws JobStopped as a
// signalled ZmqEnv or InprocEnv does. Job: the synthetic model of 6 keys, 4 clocks, servers 1
// and 2 (ranges [0, 3) and [3, 6)), workers 3 and 4, no fault tolerance.
#include <gtest/gtest.h>

#include <string>

#include "runtime/errors.h"
#include "runtime/roles/scheduler.h"
#include "tests/scripted_env.h"

namespace pstwin {
namespace {

using testing_support::ScriptedEnv;

/// Delivers `inbox`, then is stopped: every later recv throws JobStopped("stopped by SIGHUP").
class StoppedAfterScript : public ScriptedEnv {
 public:
  StoppedAfterScript() : ScriptedEnv(0) {}
  std::optional<Message> recv(double timeout_s) override {
    if (inbox.empty()) throw JobStopped("stopped by SIGHUP");
    return ScriptedEnv::recv(timeout_s);
  }
};

JobSpec job(std::uint64_t eval_every) {
  JobSpec spec;
  spec.layout = JobLayout{2, 2};
  spec.iterations = 4;
  spec.eval_every = eval_every;
  spec.synthetic = SyntheticModel{6, 1.0, 1.0};
  return spec;
}

Message from(NodeId sender, MsgType type, std::uint32_t range = 0) {
  Message m;
  m.header.type = type;
  m.header.sender = sender;
  m.header.range = range;
  return m;
}

/// Range `range`'s periodic snapshot at `clock` from its server.
Message snapshot(std::uint32_t range, std::int64_t clock) {
  Message m = from(range + 1, MsgType::kSnapshot, range);
  m.header.clock = clock;
  m.virtual_values = 3;
  return m;
}

const std::string kNoBytes = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(SchedulerLateStop, AStopWhileTheServersDrainAfterTheLastClockEndsTheJobAsCompleted) {
  const JobSpec spec = job(1);
  StoppedAfterScript env;
  env.inbox = {snapshot(0, 4), snapshot(1, 4), from(3, MsgType::kWorkerDone), from(4, MsgType::kWorkerDone)};
  const auto kernels = make_cpu_backend();
  ASSERT_NO_THROW(Scheduler(env, spec, *kernels).run());
  EXPECT_EQ(env.sink.reason,
            "the job had completed (all 4 clocks done) when it was stopped by SIGHUP: the signal came after "
            "completion");
  EXPECT_EQ(env.sink.params_sha256, kNoBytes);  // the evaluation at clock 4: the synthetic model keeps no values
  EXPECT_FALSE(env.sink.diverged);
  EXPECT_EQ(env.sink.count("job_stopped"), 0u);
  ASSERT_EQ(env.sink.count("stopped_after_completion"), 1u);
  EXPECT_EQ(env.sink.event_json(env.sink.events.size() - 1),
            (nlohmann::json{{"type", "stopped_after_completion"}, {"reason", "stopped by SIGHUP"}, {"clock", 4}}));
  // The servers were told to drain once both workers were done; nobody is told twice.
  EXPECT_EQ(env.sent_of(MsgType::kStop).size(), 2u);
}

TEST(SchedulerLateStop, WithoutAnEvaluationAtTheLastClockTheFiguresAreTheLastEvaluationsAndSaySo) {
  const JobSpec spec = job(3);  // snapshots at clock 3 only; clock 4 comes with the finals
  StoppedAfterScript env;
  env.inbox = {snapshot(0, 3), snapshot(1, 3), from(3, MsgType::kWorkerDone), from(4, MsgType::kWorkerDone)};
  const auto kernels = make_cpu_backend();
  ASSERT_NO_THROW(Scheduler(env, spec, *kernels).run());
  EXPECT_EQ(env.sink.reason,
            "the job had completed (all 4 clocks done) when it was stopped by SIGHUP: the signal came after "
            "completion; the final snapshots had not all come, so the figures are those of clock 3, the last "
            "evaluated, and params_sha256 is unknown");
  EXPECT_EQ(env.sink.params_sha256, "");
}

TEST(SchedulerLateStop, AStopAfterTheLastClockWasEvaluatedTellsTheNodesStillRunningToStop) {
  const JobSpec spec = job(1);
  StoppedAfterScript env;
  env.inbox = {snapshot(0, 4), snapshot(1, 4), from(3, MsgType::kWorkerDone)};  // worker 4 not done yet
  const auto kernels = make_cpu_backend();
  ASSERT_NO_THROW(Scheduler(env, spec, *kernels).run());
  EXPECT_EQ(env.sink.params_sha256, kNoBytes);
  const auto stops = env.sent_of(MsgType::kStop);
  ASSERT_EQ(stops.size(), 3u);  // both servers at once, then worker 4 (worker 3 is gone)
  EXPECT_EQ(stops[0].header.flags, msg_flags::kStopNow);
  EXPECT_EQ(stops[1].header.flags, msg_flags::kStopNow);
  EXPECT_EQ(stops[2].header.receiver, 4u);
}

TEST(SchedulerLateStop, AStopBeforeTrainingIsOverStillStopsTheJobUncompleted) {
  const JobSpec spec = job(1);
  StoppedAfterScript env;
  env.inbox = {snapshot(0, 3), snapshot(1, 3), from(3, MsgType::kWorkerDone)};
  const auto kernels = make_cpu_backend();
  try {
    Scheduler(env, spec, *kernels).run();
    FAIL() << "a stop at clock 3 of 4 must stop the job";
  } catch (const JobStopped& e) {
    EXPECT_EQ(std::string(e.what()),
              "the job was stopped by SIGHUP at clock 3 of 4 (the last evaluated), before it completed");
  }
  EXPECT_EQ(env.sink.count("job_stopped"), 1u);
  EXPECT_EQ(env.sink.count("stopped_after_completion"), 0u);
}

}  // namespace
}  // namespace pstwin

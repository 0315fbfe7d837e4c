// Scheduler: the job's lifecycle against a scripted environment (timed mode: a list of arriving
// messages), checking what it sends and logs. Job throughout: the synthetic model of 6 keys,
// servers 1 and 2 (ranges [0, 3) and [3, 6)), workers 3 and 4.
#include "runtime/roles/scheduler.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "tests/scripted_env.h"

namespace pstwin {
namespace {

using testing_support::ScriptedEnv;

JobSpec job(std::uint32_t replication) {
  JobSpec spec;
  spec.layout = JobLayout{2, 2};
  spec.iterations = 4;
  spec.eval_every = 1;
  spec.synthetic = SyntheticModel{6, 1.0, 1.0};
  spec.fault.enabled = true;
  spec.fault.replication = replication;
  spec.fault.heartbeat_interval_s = 0.2;
  spec.fault.heartbeat_timeout_s = 1.0;
  return spec;
}

Message from(NodeId sender, MsgType type, std::uint32_t range = 0, std::uint32_t flags = 0) {
  Message m;
  m.header.type = type;
  m.header.sender = sender;
  m.header.range = range;
  m.header.flags = flags;
  return m;
}

Message final_of(NodeId server, std::uint32_t range) {
  Message m = from(server, MsgType::kSnapshot, range, msg_flags::kFinal);
  m.header.clock = 4;
  m.virtual_values = 3;
  return m;
}

// (receiver, type, flags) of each message sent after the kStarts.
using Sent = std::vector<std::tuple<NodeId, MsgType, std::uint32_t>>;
Sent sent_after_start(const ScriptedEnv& env) {
  Sent out;
  for (const Message& m : env.sent)
    if (m.header.type != MsgType::kStart)
      out.emplace_back(m.header.receiver, m.header.type, m.header.flags);
  return out;
}

const std::string kNoBytes = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

TEST(Scheduler, StartsEveryReplicaAndWorkerThenDrainsTheServersOnceAllWorkersAreDone) {
  const JobSpec spec = job(2);
  ScriptedEnv env(0, {{0.1, from(3, MsgType::kWorkerDone)},
                   {0.2, from(4, MsgType::kWorkerDone)},
                   {0.3, final_of(1, 0)},
                   {0.3, final_of(2, 1)}});
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  ASSERT_GE(env.sent.size(), 6u);
  // Range 0 on servers 1 and 2, range 1 on 2 and 1; then each worker.
  const std::vector<std::pair<NodeId, std::uint32_t>> starts = {{1, 0}, {2, 0}, {2, 1}, {1, 1}};
  for (std::size_t i = 0; i < starts.size(); ++i) {
    EXPECT_EQ(env.sent[i].header.receiver, starts[i].first);
    EXPECT_EQ(env.sent[i].header.range, starts[i].second);
    EXPECT_EQ(env.sent[i].virtual_values, 3u);
  }
  EXPECT_EQ(env.sent[4].header.receiver, 3u);
  EXPECT_EQ(env.sent[5].lengths, (std::vector<std::uint32_t>{3, 3}));
  EXPECT_EQ(sent_after_start(env), (Sent{{1, MsgType::kStop, 0}, {2, MsgType::kStop, 0}}));
  EXPECT_EQ(env.sink.params_sha256, kNoBytes);  // the synthetic model keeps no values
  EXPECT_FALSE(env.sink.diverged);
}

TEST(Scheduler, AnAbortStopsTheServersAtOnceAndTheWorkersStillRunning) {
  const JobSpec spec = job(2);
  Message abort = from(4, MsgType::kAbort, 0, msg_flags::kDiverged);
  abort.header.clock = 2;
  ScriptedEnv env(0, {{0.1, from(3, MsgType::kWorkerDone)},
                   {0.2, abort},
                   {0.3, final_of(1, 0)},
                   {0.3, final_of(2, 1)}});
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  EXPECT_EQ(sent_after_start(env), (Sent{{1, MsgType::kStop, msg_flags::kStopNow},
                                         {2, MsgType::kStop, msg_flags::kStopNow},
                                         {4, MsgType::kStop, 0}}));
  ASSERT_EQ(env.sink.events.size(), 1u);
  EXPECT_EQ(env.sink.event_json(0), (nlohmann::json{{"type", "diverged"}, {"worker", 1}, {"clock", 2}}));
  EXPECT_TRUE(env.sink.diverged);
  EXPECT_EQ(env.sink.reason, "training diverged: worker 1 saw a non-finite mini-batch loss at clock 2");
}

// Heartbeats from servers 2 and workers 3, 4 at 0.5 s and 1.0 s; server 1 stays silent.
std::vector<std::pair<double, Message>> server_one_silent() {
  std::vector<std::pair<double, Message>> script;
  for (double t : {0.5, 1.0})
    for (NodeId n : {2, 3, 4}) script.emplace_back(t, from(n, MsgType::kHeartbeat));
  return script;
}

TEST(Scheduler, ASilentServerIsDeclaredDeadAndItsRangeFailsOver) {
  const JobSpec spec = job(2);
  auto script = server_one_silent();
  script.emplace_back(1.5, from(3, MsgType::kWorkerDone));
  script.emplace_back(1.5, from(4, MsgType::kWorkerDone));
  script.emplace_back(1.6, final_of(2, 0));
  script.emplace_back(1.6, final_of(2, 1));
  ScriptedEnv env(0, std::move(script));
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  // Checked every 0.2 s: at 1.2 s server 1 has been silent for longer than the 1 s timeout.
  ASSERT_EQ(env.sink.events.size(), 2u);
  EXPECT_EQ(env.sink.events[0].second.at("node"), "server:0");
  EXPECT_NEAR(env.sink.events[0].second.at("silent_s").get<double>(), 1.2, 1e-9);
  EXPECT_EQ(env.sink.events[0].second.at("why"), "heartbeat timeout");
  EXPECT_EQ(env.sink.event_json(1), (nlohmann::json{{"type", "promoted"}, {"range", 0}, {"server", "server:1"}}));
  // Told to stop at once in case it is only cut off; the rest get epoch 1, where server 2 holds
  // both ranges; only server 2 is stopped at the end.
  EXPECT_EQ(sent_after_start(env), (Sent{{1, MsgType::kStop, msg_flags::kStopNow},
                                         {2, MsgType::kMembership, 0},
                                         {3, MsgType::kMembership, 0},
                                         {4, MsgType::kMembership, 0},
                                         {2, MsgType::kStop, 0}}));
  const Membership m = Membership::from_message(env.sent[7], spec);
  EXPECT_EQ(m.epoch, 1u);
  EXPECT_EQ(m.replicas, (std::vector<std::vector<NodeId>>{{2}, {2}}));
}

TEST(Scheduler, ARangeWithoutAReplicaEndsTheJobNamingItsKeys) {
  const JobSpec spec = job(1);
  ScriptedEnv env(0, server_one_silent());
  const auto kernels = make_cpu_backend();
  Scheduler scheduler(env, spec, *kernels);
  const std::string reason =
      "server:0 was declared dead after 1.2 s without a heartbeat (heartbeat_timeout 1 s) and no "
      "live replica holds range 0 (keys [0, 3)) (replication 1): their parameters are lost";
  try {
    scheduler.run();
    FAIL() << "no error";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()), reason);
  }
  ASSERT_EQ(env.sink.events.size(), 2u);
  EXPECT_EQ(env.sink.event_json(1),
            (nlohmann::json{{"type", "job_lost"}, {"reason", reason}, {"ranges", {0}}}));
  EXPECT_EQ(sent_after_start(env), (Sent{{1, MsgType::kStop, msg_flags::kStopNow},
                                         {2, MsgType::kStop, msg_flags::kStopNow},
                                         {3, MsgType::kStop, 0},
                                         {4, MsgType::kStop, 0}}));
}

}  // namespace
}  // namespace pstwin

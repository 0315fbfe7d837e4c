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

// Every node beats every 0.2 s from 0.2 s to `until_s`, but those in `silent_from` (node ->
// last beat's time) stop earlier.
std::vector<std::pair<double, Message>> beats(double until_s, std::vector<std::pair<NodeId, double>> silent_from = {}) {
  std::vector<std::pair<double, Message>> script;
  for (int tick = 1; tick * 0.2 <= until_s + 1e-9; ++tick)
    for (NodeId n : {1, 2, 3, 4}) {
      const double t = tick * 0.2;
      const bool stopped = std::any_of(silent_from.begin(), silent_from.end(),
                                       [&](const auto& s) { return s.first == n && t > s.second + 1e-9; });
      if (!stopped) script.emplace_back(t, from(n, MsgType::kHeartbeat));
    }
  return script;
}

// The machine stalls everything from 0.5 s to 2.5 s: no heartbeat is sent, and the scheduler
// itself wakes 2.1 s after its last look instead of 0.2 s. Nobody died, so with one replica a
// false death would lose the job.
TEST(Scheduler, ItsOwnStallDoesNotCountAsTheNodesSilence) {
  const JobSpec spec = job(1);
  auto script = beats(0.4);
  for (double t : {2.6, 2.8})
    for (NodeId n : {1, 2, 3, 4}) script.emplace_back(t, from(n, MsgType::kHeartbeat));
  script.emplace_back(2.9, from(3, MsgType::kWorkerDone));
  script.emplace_back(2.9, from(4, MsgType::kWorkerDone));
  script.emplace_back(3.0, final_of(1, 0));
  script.emplace_back(3.0, final_of(2, 1));
  ScriptedEnv env(0, std::move(script));
  env.stalls = {{0.5, 2.0}};
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  ASSERT_EQ(env.sink.events.size(), 1u) << env.sink.event_json(1).dump();
  EXPECT_EQ(env.sink.events[0].first, "scheduler_delayed");
  EXPECT_NEAR(env.sink.events[0].second.at("delay_s").get<double>(), 1.9, 1e-9);  // 2.1 s less 0.2
  EXPECT_EQ(env.sink.reason, "");
  EXPECT_EQ(sent_after_start(env), (Sent{{1, MsgType::kStop, 0}, {2, MsgType::kStop, 0}}));
}

// As above, but server 1 really died at 0.4 s: once the stall is over, its silence counts again,
// and it is declared dead when the silence less the stall passes 1 s.
TEST(Scheduler, ANodeSilentBeyondTheSchedulersStallIsStillDeclaredDead) {
  const JobSpec spec = job(2);
  auto script = beats(0.4);
  for (double t : {2.6, 2.8, 3.0, 3.2, 3.4, 3.6})
    for (NodeId n : {2, 3, 4}) script.emplace_back(t, from(n, MsgType::kHeartbeat));
  script.emplace_back(3.7, from(3, MsgType::kWorkerDone));
  script.emplace_back(3.7, from(4, MsgType::kWorkerDone));
  script.emplace_back(3.8, final_of(2, 0));
  script.emplace_back(3.8, final_of(2, 1));
  ScriptedEnv env(0, std::move(script));
  env.stalls = {{0.5, 2.0}};
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  ASSERT_EQ(env.sink.events.size(), 3u);
  EXPECT_EQ(env.sink.events[0].first, "scheduler_delayed");
  // At 3.4 s: 3.0 s silent, 1.9 s of it the scheduler's delay, so 1.1 s > 1 s counts.
  nlohmann::json dead = env.sink.event_json(1);
  EXPECT_NEAR(dead.at("silent_s").get<double>(), 3.0, 1e-9);
  EXPECT_NEAR(dead.at("scheduler_delay_s").get<double>(), 1.9, 1e-9);
  dead.erase("silent_s");
  dead.erase("scheduler_delay_s");
  EXPECT_EQ(dead, (nlohmann::json{{"type", "node_dead"}, {"node", "server:0"}, {"why", "heartbeat timeout"},
                                  {"heartbeat_timeout_s", 1.0}, {"silent_together", 1}}));
  EXPECT_EQ(env.sink.event_json(2), (nlohmann::json{{"type", "promoted"}, {"range", 0}, {"server", "server:1"}}));
  EXPECT_EQ(env.sink.reason, "");
}

// Both workers' heartbeats stop at 0.2 s (a loaded machine) and both are declared dead at 1.4 s;
// then worker 3's kWorkerDone arrives: it did all its clocks, so the job ends normally, not as
// "all 2 workers failed before any finished".
TEST(Scheduler, AWorkerDeclaredDeadThatFinishesCountsAsFinished) {
  const JobSpec spec = job(2);
  auto script = beats(1.8, {{3, 0.2}, {4, 0.2}});
  script.emplace_back(1.5, from(3, MsgType::kWorkerDone));
  script.emplace_back(1.9, final_of(1, 0));
  script.emplace_back(1.9, final_of(2, 1));
  std::stable_sort(script.begin(), script.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ScriptedEnv env(0, std::move(script));
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  std::vector<std::string> types;
  for (const auto& e : env.sink.events) types.push_back(e.first);
  EXPECT_EQ(types, (std::vector<std::string>{"node_dead", "node_dead", "all_workers_dead",
                                             "worker_finished_after_declared_dead"}));
  EXPECT_EQ(env.sink.events[0].second.at("silent_together"), 2);
  EXPECT_EQ(env.sink.event_json(3), (nlohmann::json{{"type", "worker_finished_after_declared_dead"}, {"worker", 0}}));
  EXPECT_EQ(env.sink.reason, "");
  EXPECT_EQ(env.sink.params_sha256, kNoBytes);
  // The servers drain (flags 0): the job finished, it was not lost.
  const auto stops = env.sent_of(MsgType::kStop);
  ASSERT_EQ(stops.size(), 4u);
  EXPECT_EQ(stops[2].header.receiver, 1u);
  EXPECT_EQ(stops[2].header.flags, 0u);
  EXPECT_EQ(stops[3].header.receiver, 2u);
}

// The last clock (4) is evaluated at 0.5 s; then both workers fall silent before their
// kWorkerDone: every clock was pushed, so the job ends normally instead of waiting for a rejoin.
TEST(Scheduler, WorkersDeclaredDeadAfterTheLastClockIsEvaluatedEndTheJobNormally) {
  const JobSpec spec = job(2);
  auto script = beats(1.6, {{3, 0.4}, {4, 0.4}});
  for (std::uint32_t r : {0u, 1u}) {
    Message snapshot = final_of(r + 1, r);
    snapshot.header.flags = 0;
    script.emplace_back(0.5, snapshot);
  }
  script.emplace_back(1.7, final_of(1, 0));
  script.emplace_back(1.7, final_of(2, 1));
  std::stable_sort(script.begin(), script.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  ScriptedEnv env(0, std::move(script));
  const auto kernels = make_cpu_backend();
  Scheduler(env, spec, *kernels).run();
  for (const auto& e : env.sink.events) EXPECT_NE(e.first, "all_workers_dead");
  EXPECT_EQ(env.sink.reason, "");
  EXPECT_EQ(env.sink.params_sha256, kNoBytes);
  EXPECT_EQ(env.sent_of(MsgType::kStop).back().header.flags, 0u);
}

}  // namespace
}  // namespace pstwin

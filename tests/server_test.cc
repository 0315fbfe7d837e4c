// The Server role alone, over a scripted Env: replication to a backup and durable replies, a
// backup's replay and acknowledgement, exactly-once pushes, epoch fencing, and a new backup's
// rebuild, and a restarted worker's rejoin under BSP (docs/DESIGN.md, "Replication and failover").
#include <gtest/gtest.h>

#include <deque>
#include <memory>
#include <vector>

#include "runtime/errors.h"
#include "runtime/model/model.h"
#include "runtime/roles/membership.h"
#include "runtime/roles/replica_log.h"
#include "runtime/roles/server.h"
#include "runtime/scenario/scenario.h"
#include "tests/scripted_env.h"

namespace pstwin {
namespace {

using testing_support::ScriptedEnv;

// Nodes of the job: scheduler 0, servers 1 and 2, workers 3 and 4.
constexpr NodeId kServer0 = 1, kServer1 = 2, kWorker0 = 3, kWorker1 = 4;

/// Two servers, two workers, a logistic model of 4 parameters: range 0 is keys [0, 2), range 1
/// keys [2, 4). ASP, SGD with learning rate 0.5: one worker's gradient g moves w by 0.5 * g / 2.
/// Replication 2: server 0 leads range 0 and backs up range 1; server 1 the other way round.
struct Job {
  explicit Job(std::uint32_t replication = 2) {
    ModelSection section;
    section.type = "logistic";
    model = make_model(section, 3, 2);
    spec.layout = JobLayout{2, 2};
    spec.consistency.mode = ConsistencyMode::kAsp;
    spec.iterations = 5;
    spec.learning_rate = 0.5;
    spec.optimizer.kind = "sgd";
    spec.eval_every = 0;
    spec.stall_timeout_s = 1.0;
    spec.fault.enabled = true;
    spec.fault.replication = replication;
    spec.model = model.get();
  }

  /// Runs server `index` over `script` (its starts first, kStop with kStopNow last); returns
  /// the Env, which holds what it sent and reported.
  std::unique_ptr<ScriptedEnv> run(std::uint32_t index, std::deque<Message> script) {
    auto env = std::make_unique<ScriptedEnv>(spec.layout.server(index));
    const Membership initial = initial_membership(spec);
    for (std::uint32_t r = 0; r < 2; ++r)
      if (initial.holds(env->self(), r)) env->inbox.push_back(start(r));
    for (auto& m : script) env->inbox.push_back(std::move(m));
    Message stop;
    stop.header.type = MsgType::kStop;
    stop.header.flags = msg_flags::kStopNow;
    env->inbox.push_back(stop);
    auto kernels = make_cpu_backend();
    Server(*env, spec, index, *kernels).run();
    return env;
  }

  /// Range r's start: keys [2r, 2r+2), every value 1.
  static Message start(std::uint32_t r) {
    Message m;
    m.header.type = MsgType::kStart;
    m.header.range = r;
    m.keys = {2 * r};
    m.lengths = {2};
    m.values = {1.0f, 1.0f};
    return m;
  }

  std::unique_ptr<Model> model;
  JobSpec spec;
};

/// Worker `from`'s push of clock 0 to range `r`, asking for its pull after.
Message push(NodeId from, std::uint32_t r, std::uint64_t request, std::uint32_t epoch = 0) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.flags = msg_flags::kWholeRange | msg_flags::kPullAfter;
  m.header.sender = from;
  m.header.range = r;
  m.header.request_id = request;
  m.header.epoch = epoch;
  m.values = {2.0f, 4.0f};
  return m;
}

/// Backup `from` has applied range `r`'s log up to `seq`.
Message ack_from(NodeId from, std::uint32_t r, std::uint64_t seq) {
  Message m = replica_ack(r, seq, 0);
  m.header.sender = from;
  return m;
}

Message membership(std::uint32_t epoch, std::vector<std::vector<NodeId>> replicas) {
  Membership m;
  m.epoch = epoch;
  m.replicas = std::move(replicas);
  m.dead_workers = {false, false};
  return m.to_message();
}

// 1 - 0.5 * {2, 4} / 2: the values after one worker's push of {2, 4} under ASP.
const std::vector<float> kAfterOnePush = {0.5f, 0.0f};

TEST(Server, PrimaryForwardsAPushToItsBackupAndHoldsTheReplyUntilTheBackupAcks) {
  Job job;
  std::deque<Message> script;
  script.push_back(push(kWorker0, 0, 1));
  const auto env = job.run(0, script);
  const auto logged = env->sent_of(MsgType::kReplicate);
  ASSERT_EQ(logged.size(), 1u);
  const MessageHeader& h = logged[0].header;
  EXPECT_EQ(h.receiver, kServer1);
  EXPECT_EQ(h.range, 0u);
  EXPECT_EQ(h.op, ReplicaOp::kPush);
  EXPECT_EQ(h.seq, 1u);
  EXPECT_EQ(h.subject, kWorker0);
  EXPECT_EQ(h.request_id, 1u);
  EXPECT_EQ(logged[0].values, (std::vector<float>{2.0f, 4.0f}));  // the push as it arrived
  EXPECT_TRUE(env->sent_of(MsgType::kPullReply).empty());  // the backup never acknowledged

  script.push_back(ack_from(kServer1, 0, 1));
  const auto acked = job.run(0, script);
  const auto replies = acked->sent_of(MsgType::kPullReply);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].header.receiver, kWorker0);
  EXPECT_EQ(replies[0].header.request_id, 1u);
  EXPECT_EQ(replies[0].header.clock, 1);
  EXPECT_EQ(replies[0].values, kAfterOnePush);
}

TEST(Server, BackupAppliesAReplicatedPushAcknowledgesItAndLeadsWithItWhenPromoted) {
  Job job;
  Message entry = push(kWorker0, 0, 1);
  entry.header.type = MsgType::kReplicate;
  entry.header.sender = kServer0;
  entry.header.op = ReplicaOp::kPush;
  entry.header.subject = kWorker0;
  entry.header.seq = 1;
  std::deque<Message> script;
  script.push_back(entry);
  script.push_back(membership(1, {{kServer1}, {kServer1}}));  // server 0 is gone
  const auto env = job.run(1, script);
  const auto acks = env->sent_of(MsgType::kReplicaAck);
  ASSERT_EQ(acks.size(), 1u);
  EXPECT_EQ(acks[0].header.receiver, kServer0);
  EXPECT_EQ(acks[0].header.range, 0u);
  EXPECT_EQ(acks[0].header.seq, 1u);
  EXPECT_EQ(env->sink.count("failover"), 1u);
  const auto finals = env->sent_of(MsgType::kSnapshot);
  ASSERT_EQ(finals.size(), 2u);  // both ranges, in range order
  EXPECT_EQ(finals[0].header.range, 0u);
  EXPECT_EQ(finals[0].values, kAfterOnePush);
  EXPECT_EQ(finals[1].values, (std::vector<float>{1.0f, 1.0f}));
}

TEST(Server, BackupRefusesAGapInTheLog) {
  Job job;
  Message entry;
  entry.header.type = MsgType::kReplicate;
  entry.header.sender = kServer0;
  entry.header.op = ReplicaOp::kWorkerDead;
  entry.header.subject = kWorker1;
  entry.header.seq = 2;  // seq 1 never came
  EXPECT_THROW(job.run(1, {entry}), ProtocolError);
}

TEST(Server, ADuplicateRequestIdIsIgnored) {
  Job job;
  std::deque<Message> script;
  script.push_back(push(kWorker0, 0, 1));
  script.push_back(ack_from(kServer1, 0, 1));
  script.push_back(push(kWorker0, 0, 1));  // resent after a lost reply: the same id
  const auto env = job.run(0, script);
  EXPECT_EQ(env->sink.count("duplicate_push_ignored"), 1u);
  EXPECT_EQ(env->sent_of(MsgType::kReplicate).size(), 1u);
  const auto replies = env->sent_of(MsgType::kPullReply);
  ASSERT_EQ(replies.size(), 2u);  // the resent push's pull is answered too
  EXPECT_EQ(replies[1].values, kAfterOnePush);  // applied once
  EXPECT_EQ(env->sent_of(MsgType::kSnapshot).at(0).values, kAfterOnePush);
}

TEST(Server, ARequestForANewerEpochIsHeldUntilItsMembershipAndAnOlderOneIsDropped) {
  Job job;
  std::deque<Message> script;
  script.push_back(push(kWorker0, 1, 1, /*epoch=*/1));  // range 1 is server 1's until epoch 1
  script.push_back(push(kWorker1, 1, 1, /*epoch=*/0));  // sent to the wrong primary
  script.push_back(membership(1, {{kServer0}, {kServer0}}));
  const auto env = job.run(0, script);
  const auto replies = env->sent_of(MsgType::kPullReply);
  ASSERT_EQ(replies.size(), 1u);
  EXPECT_EQ(replies[0].header.receiver, kWorker0);
  EXPECT_EQ(replies[0].header.range, 1u);
  EXPECT_EQ(replies[0].header.epoch, 1u);
  EXPECT_EQ(replies[0].values, kAfterOnePush);
}

TEST(Server, ANewBackupIsRebuiltFromTheStateAndReportedOnceItAcknowledges) {
  Job job(/*replication=*/1);
  std::deque<Message> script;
  script.push_back(push(kWorker0, 0, 1));
  script.push_back(membership(1, {{kServer0, kServer1}, {kServer1}}));
  script.push_back(ack_from(kServer1, 0, 1));
  const auto env = job.run(0, script);
  const auto states = env->sent_of(MsgType::kShardState);
  ASSERT_EQ(states.size(), 1u);
  EXPECT_EQ(states[0].header.receiver, kServer1);
  EXPECT_EQ(states[0].header.seq, 1u);  // the log holds the push
  EXPECT_EQ(states[0].values, kAfterOnePush);  // SGD: parameters only
  const auto synced = env->sent_of(MsgType::kReplicaAck);
  ASSERT_EQ(synced.size(), 1u);
  EXPECT_EQ(synced[0].header.receiver, JobLayout::scheduler());
  EXPECT_EQ(synced[0].header.range, 0u);
  EXPECT_EQ(synced[0].header.subject, kServer1);
}

/// Worker `from`'s message of type `type` to range 0 for `clock`, in epoch 1.
Message to_range0(MsgType type, NodeId from, std::int64_t clock, std::uint64_t request,
                  std::uint32_t flags) {
  Message m;
  m.header.type = type;
  m.header.flags = flags;
  m.header.sender = from;
  m.header.range = 0;
  m.header.clock = clock;
  m.header.request_id = request;
  m.header.epoch = 1;
  return m;
}

TEST(Server, UnderBspARestartedWorkersClockProbeHoldsTheBarrierSoNoneOfItsGradientsIsLate) {
  Job job(/*replication=*/1);
  job.spec.consistency.mode = ConsistencyMode::kBsp;
  std::deque<Message> script;
  Membership dead;  // worker 1 died; each server leads its own range
  dead.epoch = 1;
  dead.replicas = {{kServer0}, {kServer1}};
  dead.dead_workers = {false, true};
  script.push_back(dead.to_message());
  const std::uint32_t whole = msg_flags::kWholeRange | msg_flags::kPullAfter;
  Message g0 = to_range0(MsgType::kPush, kWorker0, 0, 1, whole);
  g0.values = {2.0f, 4.0f};
  script.push_back(g0);  // clock 0: worker 0 alone -> {1, 1} - 0.5 * {2, 4} = {0, -1}
  // Worker 1's new process asks the range's clock (1), then worker 0 pushes clock 1 before
  // worker 1's rejoin at that clock arrives: the barrier must wait for worker 1.
  script.push_back(to_range0(MsgType::kPull, kWorker1, -1, 1, msg_flags::kRejoin));
  Message g1 = to_range0(MsgType::kPush, kWorker0, 1, 2, whole);
  g1.values = {2.0f, 4.0f};
  script.push_back(g1);
  script.push_back(to_range0(MsgType::kPull, kWorker1, 1, 2, msg_flags::kRejoin));
  Message late = to_range0(MsgType::kPush, kWorker1, 1, 3, whole);
  late.values = {6.0f, 8.0f};
  script.push_back(late);
  const auto env = job.run(0, script);
  EXPECT_EQ(env->sink.count("gradient_dropped"), 0u);
  std::vector<Message> probe, clock2;
  for (const Message& m : env->sent_of(MsgType::kPullReply)) {
    if (m.header.clock == -1) probe.push_back(m);
    if (m.header.clock == 2) clock2.push_back(m);
  }
  ASSERT_EQ(probe.size(), 1u);
  EXPECT_EQ(probe[0].header.version, 1);
  // Clock 1 averages both gradients: {0, -1} - 0.5 * ({2, 4} + {6, 8}) / 2 = {-2, -4}.
  ASSERT_EQ(clock2.size(), 2u);
  for (const Message& m : clock2) EXPECT_EQ(m.values, (std::vector<float>{-2.0f, -4.0f}));
}

}  // namespace
}  // namespace pstwin

// ReplicaLog (a primary's sequence, acks and durable point), ReplicaReplay (a backup's order)
// and replay() of each logged operation onto a Shard, with known right values.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "runtime/errors.h"
#include "runtime/model/model.h"
#include "runtime/roles/replica_log.h"
#include "runtime/roles/shard.h"
#include "runtime/scenario/scenario.h"
#include "tests/scripted_env.h"

namespace pstwin {
namespace {

TEST(ReplicaLog, NumbersEntriesFromOneAndIsDurableAtItsEndWithoutBackups) {
  ReplicaLog log;
  EXPECT_EQ(log.append(), 1u);
  EXPECT_EQ(log.append(), 2u);
  EXPECT_EQ(log.end(), 2u);
  EXPECT_FALSE(log.has_backups());
  EXPECT_EQ(log.durable(), 2u);
  ReplicaLog promoted(7);  // a backup that had applied 7 entries continues the log
  EXPECT_EQ(promoted.append(), 8u);
}

TEST(ReplicaLog, TheDurablePointIsTheSmallestPositionEveryBackupAcknowledged) {
  ReplicaLog log;
  log.add_backup(5);
  log.add_backup(6);
  for (int i = 0; i < 3; ++i) log.append();
  EXPECT_EQ(log.durable(), 0u);
  EXPECT_EQ(log.on_ack(5, 2), ReplicaLog::Ack::kRecorded);
  EXPECT_EQ(log.durable(), 0u);  // node 6 has nothing yet
  EXPECT_EQ(log.on_ack(6, 3), ReplicaLog::Ack::kRecorded);
  EXPECT_EQ(log.durable(), 2u);
  EXPECT_EQ(log.on_ack(5, 1), ReplicaLog::Ack::kRecorded);  // a late ack moves nothing back
  EXPECT_EQ(log.durable(), 2u);
  EXPECT_EQ(log.on_ack(7, 3), ReplicaLog::Ack::kIgnored);  // not a backup
  EXPECT_EQ(log.on_ack(5, 3), ReplicaLog::Ack::kRecorded);
  EXPECT_EQ(log.durable(), 3u);
}

TEST(ReplicaLog, ARebuiltBackupIsSyncedOnceItAcknowledgesTheStatesPosition) {
  ReplicaLog log(4);
  log.add_rebuilt_backup(9);
  EXPECT_EQ(log.durable(), 0u);
  EXPECT_EQ(log.on_ack(9, 3), ReplicaLog::Ack::kRecorded);
  EXPECT_EQ(log.on_ack(9, 4), ReplicaLog::Ack::kSynced);
  EXPECT_EQ(log.durable(), 4u);
  EXPECT_EQ(log.on_ack(9, 4), ReplicaLog::Ack::kRecorded);  // synced once only
}

TEST(ReplicaLog, RetainForgetsBackupsThatLeftAndNamesTheOnesThatJoined) {
  ReplicaLog log;
  log.add_backup(5);
  log.add_backup(6);
  log.append();
  EXPECT_EQ(log.retain({8, 6}), (std::vector<NodeId>{8}));
  EXPECT_FALSE(log.has_backup(5));
  EXPECT_TRUE(log.has_backup(6));
  EXPECT_EQ(log.on_ack(5, 1), ReplicaLog::Ack::kIgnored);
  EXPECT_EQ(log.durable(), 0u);  // node 6 has acknowledged nothing
}

Message entry(std::uint64_t seq) {
  Message m;
  m.header.type = MsgType::kReplicate;
  m.header.sender = 1;
  m.header.range = 3;
  m.header.seq = seq;
  return m;
}

TEST(ReplicaReplay, AppliesInOrderReacknowledgesOldEntriesAndRefusesAGap) {
  ReplicaReplay replay;
  EXPECT_TRUE(replay.is_next(entry(1)));
  replay.applied(1);
  EXPECT_FALSE(replay.is_next(entry(1)));
  EXPECT_TRUE(replay.is_next(entry(2)));
  try {
    (void)replay.is_next(entry(3));
    FAIL() << "a gap was accepted";
  } catch (const ProtocolError& e) {
    EXPECT_NE(std::string(e.what()).find("from node 1"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("key range 3 jumps from operation 1 to 3"),
              std::string::npos) << e.what();
  }
  EXPECT_EQ(ReplicaReplay(5).applied(), 5u);
}

/// A backup's shard of a logistic model's keys [0, 4), ASP over 2 workers, SGD with rate 0.5,
/// every parameter 1: a push of g moves each parameter by 0.5 * g / 2.
struct BackupShard {
  BackupShard() : env(1) {
    ModelSection section;
    section.type = "logistic";
    model = make_model(section, 3, 2);
    spec.layout = JobLayout{1, 2};
    spec.consistency.mode = ConsistencyMode::kAsp;
    spec.learning_rate = 0.5;
    spec.optimizer.kind = "sgd";
    spec.model = model.get();
    kernels = make_cpu_backend();
    shard = std::make_unique<Shard>(env, spec, *kernels, 0, KeyRange{0, 4},
                                    std::vector<float>(4, 1.0f));
  }

  /// A logged operation about worker node `subject` (workers are nodes 2 and 3).
  static Message op(ReplicaOp op, NodeId subject) {
    Message m = entry(1);
    m.header.sender = 1;
    m.header.range = 0;
    m.header.op = op;
    m.header.subject = subject;
    return m;
  }

  testing_support::ScriptedEnv env;
  std::unique_ptr<Model> model;
  JobSpec spec;
  std::unique_ptr<KernelBackend> kernels;
  std::unique_ptr<Shard> shard;
};

TEST(Replay, APushIsAppliedAsTheWorkersOwnExactlyOnce) {
  BackupShard b;
  Message push = BackupShard::op(ReplicaOp::kPush, 3);
  push.header.flags = msg_flags::kWholeRange;
  push.header.request_id = 1;
  push.values = {2, 4, 0, -2};
  replay(*b.shard, push, b.spec.layout);
  EXPECT_EQ(b.shard->params(), (std::vector<float>{0.5f, 0.0f, 1.0f, 1.5f}));
  EXPECT_EQ(b.shard->controller().pushes(1), 1);  // node 3 is worker 1
  EXPECT_EQ(b.shard->controller().pushes(0), 0);
  replay(*b.shard, push, b.spec.layout);  // the same request id again changes nothing
  EXPECT_EQ(b.shard->params(), (std::vector<float>{0.5f, 0.0f, 1.0f, 1.5f}));
  EXPECT_EQ(b.shard->controller().pushes(1), 1);
}

TEST(Replay, WorkerDeathAndRejoinChangeWhoCounts) {
  BackupShard b;
  replay(*b.shard, BackupShard::op(ReplicaOp::kWorkerDead, 2), b.spec.layout);
  EXPECT_FALSE(b.shard->controller().live(0));
  EXPECT_TRUE(b.shard->controller().live(1));
  Message rejoin = BackupShard::op(ReplicaOp::kWorkerRejoin, 2);
  rejoin.header.clock = 3;
  replay(*b.shard, rejoin, b.spec.layout);
  EXPECT_TRUE(b.shard->controller().live(0));
  EXPECT_EQ(b.shard->controller().pushes(0), 3);
}

TEST(Replay, RefusesAnEntryWithoutAnOperationOrAboutANonWorker) {
  BackupShard b;
  EXPECT_THROW(replay(*b.shard, BackupShard::op(ReplicaOp::kNone, 2), b.spec.layout),
               ProtocolError);
  EXPECT_THROW(replay(*b.shard, BackupShard::op(ReplicaOp::kWorkerDead, 1), b.spec.layout),
               ProtocolError);  // node 1 is the server
}

}  // namespace
}  // namespace pstwin

// The sparse (keyed) protocol of a sparse model, on the Worker and Server roles alone with a
// scripted Env: workers pull and push only the keys their mini-batch touches, and servers answer
// and update only those keys (BSP: per-key mean in worker order; ASP: each push scaled by 1/W).
#include <gtest/gtest.h>

#include "tests/scripted_env.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <memory>
#include <set>
#include <vector>

#include "runtime/data/ratings.h"
#include "runtime/env.h"
#include "runtime/errors.h"
#include "runtime/model/mf_model.h"
#include "runtime/partition.h"
#include "runtime/roles/server.h"
#include "runtime/roles/worker.h"

namespace pstwin {
namespace {

using testing_support::ScriptedEnv;

/// Makes `env` answer every keyed kPull at once with the key values of `table` (`width` floats
/// per key), a stand-in for the servers, so a Worker runs to the end without a real server.
void serve_pulls_from(ScriptedEnv& env, const std::vector<float>& table, std::size_t width) {
  env.on_send = [&env, &table, width](const Message& msg) {
    if (msg.header.type != MsgType::kPull) return;
    Message reply;
    reply.header.type = MsgType::kPullReply;
    reply.header.flags = msg_flags::kKeyed;
    reply.header.sender = msg.header.receiver;
    reply.header.range = msg.header.range;  // the key range asked about
    reply.header.clock = msg.header.clock;
    for (Key k : msg.keys)
      reply.values.insert(reply.values.end(), table.begin() + static_cast<long>(k * width),
                          table.begin() + static_cast<long>((k + 1) * width));
    env.inbox.push_back(std::move(reply));
  };
}

/// 40 users x 60 items, 400 ratings, and an mf model of rank 3 over them.
struct Fixture {
  Fixture() {
    auto r = std::make_shared<Ratings>();
    for (std::uint32_t j = 0; j < 400; ++j) {
      r->user.push_back((j * 7) % 40);
      r->item.push_back((j * 13) % 60);
      r->value.push_back(static_cast<float>(1 + j % 5));
    }
    r->num_users = 40;
    r->num_items = 60;
    r->train_mean = 3.0;
    data.rows = r->size();
    data.ratings = r;
    model = std::make_unique<MfModel>(40, 60, 3.0, 3, 0.01, 0.1);
    spec.layout = JobLayout{2, 2};
    spec.iterations = 5;
    spec.batch_size = 16;
    spec.learning_rate = 0.5;
    spec.eval_every = 1000;
    spec.stall_timeout_s = 1.0;
    spec.model = model.get();
    spec.train = spec.test = &data;
    spec.worker_rows.resize(2);
    for (std::uint32_t j = 0; j < 400; ++j) spec.worker_rows[j % 2].push_back(j);
    ranges = range_partition(spec.num_keys(), 2);
  }

  Message start_for_worker() const {
    Message m;
    m.header.type = MsgType::kStart;
    m.keys = {0, 1};
    for (const auto& r : ranges) m.lengths.push_back(static_cast<std::uint32_t>(r.size()));
    return m;
  }

  Dataset data;
  std::unique_ptr<MfModel> model;
  JobSpec spec;
  std::vector<KeyRange> ranges;
};

TEST(SparseProtocol, WorkerPullsAndPushesOnlyTheKeysItsBatchTouches) {
  Fixture f;
  const std::size_t w = f.model->values_per_key();
  ASSERT_EQ(w, 4u);
  ASSERT_EQ(f.spec.num_keys(), 100u);
  ScriptedEnv env(f.spec.layout.worker(1));
  const std::vector<float> table(100 * w, 0.05f);
  serve_pulls_from(env, table, w);
  env.inbox.push_back(f.start_for_worker());
  auto k = make_cpu_backend();
  Worker(env, f.spec, 1, *k).run();

  // The keys worker 1 can touch: its ratings' users (keys < 40) and items (40 + item).
  std::set<Key> own;
  for (auto row : f.spec.worker_rows[1]) {
    own.insert(f.data.ratings->user[row]);
    own.insert(40 + f.data.ratings->item[row]);
  }
  std::vector<std::vector<Key>> pulled(5), pushed(5);
  std::size_t pushes = 0;
  for (std::size_t i = 0; i < env.sent.size(); ++i) {
    const Message& m = env.sent[i];
    if (m.header.type != MsgType::kPull && m.header.type != MsgType::kPush) continue;
    ASSERT_TRUE(m.header.flags & msg_flags::kKeyed);
    EXPECT_FALSE(m.header.flags & msg_flags::kWholeRange);
    const std::uint32_t s = f.spec.layout.server_index(m.header.receiver);
    EXPECT_TRUE(std::is_sorted(m.keys.begin(), m.keys.end()));
    for (Key key : m.keys) {
      EXPECT_TRUE(f.ranges[s].contains(key)) << "key " << key << " sent to server " << s;
      EXPECT_TRUE(own.count(key)) << "key " << key << " is not in worker 1's data";
    }
    auto& log = m.header.type == MsgType::kPull ? pulled : pushed;
    log.at(m.header.clock).insert(log[m.header.clock].end(), m.keys.begin(), m.keys.end());
    if (m.header.type == MsgType::kPush) {
      ++pushes;
      EXPECT_EQ(m.values.size(), m.keys.size() * w);  // one gradient row per key, no more
    }
  }
  EXPECT_EQ(pushes, 10u);  // every server gets a push each clock, even with no keys
  for (int c = 0; c < 5; ++c) {
    // A batch of 16 ratings touches at most 32 of the 100 keys, and the push carries exactly the
    // keys that were pulled for its clock.
    EXPECT_GT(pushed[c].size(), 0u);
    EXPECT_LE(pushed[c].size(), 32u);
    EXPECT_EQ(pushed[c], pulled[c]) << "clock " << c;
  }
  EXPECT_EQ(env.sent.back().header.type, MsgType::kWorkerDone);
}

Message keyed(MsgType type, NodeId from, std::int64_t clock, std::vector<Key> keys,
              std::vector<float> values) {
  Message m;
  m.header.type = type;
  m.header.flags = msg_flags::kKeyed;
  m.header.sender = from;
  m.header.range = 1;  // the key range of server 1, the one run_server runs
  m.header.clock = clock;
  m.keys = std::move(keys);
  m.values = std::move(values);
  return m;
}

/// Runs server 1 (keys [50, 100) of the fixture) over `inbox` (after its start, before a stop)
/// and returns what it sent; the initial values are 1.0 everywhere.
std::vector<Message> run_server(Fixture& f, ConsistencyMode mode, std::deque<Message> inbox) {
  f.spec.consistency.mode = mode;
  f.spec.optimizer.kind = "sgd";
  ScriptedEnv env(f.spec.layout.server(1));
  Message start;
  start.header.type = MsgType::kStart;
  start.header.range = 1;
  start.keys = {f.ranges[1].begin};
  start.lengths = {static_cast<std::uint32_t>(f.ranges[1].size())};
  start.values.assign(f.ranges[1].size() * 4, 1.0f);
  env.inbox.push_back(start);
  for (auto& m : inbox) env.inbox.push_back(std::move(m));
  Message stop;
  stop.header.type = MsgType::kStop;
  stop.header.flags = msg_flags::kStopNow;  // the script sends only a few clocks
  env.inbox.push_back(stop);
  auto k = make_cpu_backend();
  Server(env, f.spec, 1, *k).run();
  return env.sent;
}

TEST(SparseProtocol, BspServerAveragesEachKeyOverWorkersAndTouchesNothingElse) {
  Fixture f;
  ASSERT_EQ(f.ranges[1].begin, 50u);
  const NodeId w0 = f.spec.layout.worker(0), w1 = f.spec.layout.worker(1);
  std::deque<Message> in;
  // Worker 0 touches keys 52 and 60, worker 1 keys 60 and 99; then worker 0 pulls 52, 60, 70.
  in.push_back(keyed(MsgType::kPush, w0, 0, {52, 60}, {1, 2, 3, 4, 10, 10, 10, 10}));
  in.push_back(keyed(MsgType::kPull, w0, 1, {52, 60, 70}, {}));
  in.push_back(keyed(MsgType::kPush, w1, 0, {60, 99}, {2, 2, 2, 2, 4, 4, 4, 4}));
  auto sent = run_server(f, ConsistencyMode::kBsp, in);
  ASSERT_EQ(sent.size(), 3u);  // the snapshot at start, the pull reply, the final snapshot
  sent.erase(sent.begin());
  // The pull for clock 1 waited for the barrier, and got the three rows only, in its key order.
  const Message& reply = sent[0];
  EXPECT_EQ(reply.header.type, MsgType::kPullReply);
  EXPECT_TRUE(reply.header.flags & msg_flags::kKeyed);
  EXPECT_EQ(reply.header.version, 1);
  ASSERT_EQ(reply.values.size(), 12u);
  // w -= lr * (sum over workers) / 2 with lr 0.5: key 52 only from worker 0; key 60 from both.
  const std::vector<float> expect = {1 - 0.25f * 1, 1 - 0.25f * 2, 1 - 0.25f * 3, 1 - 0.25f * 4,
                                     1 - 0.25f * 12, 1 - 0.25f * 12, 1 - 0.25f * 12, 1 - 0.25f * 12,
                                     1, 1, 1, 1};
  EXPECT_EQ(reply.values, expect);
  // The final snapshot is the whole shard: only keys 52, 60 and 99 moved.
  const Message& snap = sent[1];
  ASSERT_EQ(snap.values.size(), 50u * 4);
  for (std::size_t row = 0; row < 50; ++row) {
    const bool touched = row == 2 || row == 10 || row == 49;
    for (std::size_t c = 0; c < 4; ++c)
      EXPECT_EQ(snap.values[row * 4 + c] != 1.0f, touched) << "row " << row;
  }
  EXPECT_FLOAT_EQ(snap.values[49 * 4], 1 - 0.25f * 4);
}

TEST(SparseProtocol, AspServerAppliesEachKeyedPushScaledByOneOverW) {
  Fixture f;
  const NodeId w0 = f.spec.layout.worker(0);
  std::deque<Message> in;
  in.push_back(keyed(MsgType::kPush, w0, 0, {51}, {4, 4, 4, 4}));
  in.push_back(keyed(MsgType::kPull, w0, 1, {51, 52}, {}));
  const auto sent = run_server(f, ConsistencyMode::kAsp, in);
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[1].header.type, MsgType::kPullReply);
  EXPECT_EQ(sent[1].values, (std::vector<float>{0, 0, 0, 0, 1, 1, 1, 1}));  // 1 - 0.5 * 4 / 2
}

TEST(SparseProtocol, ServerRejectsKeysOutsideItsShardAndWholeShardPushes) {
  Fixture f;
  const NodeId w0 = f.spec.layout.worker(0);
  std::deque<Message> outside;
  outside.push_back(keyed(MsgType::kPull, w0, 0, {49}, {}));
  EXPECT_THROW(run_server(f, ConsistencyMode::kAsp, outside), ProtocolError);
  std::deque<Message> short_push;
  short_push.push_back(keyed(MsgType::kPush, w0, 0, {51}, {1, 2}));
  EXPECT_THROW(run_server(f, ConsistencyMode::kAsp, short_push), ProtocolError);
  std::deque<Message> dense;
  Message m;
  m.header.type = MsgType::kPush;
  m.header.flags = msg_flags::kWholeRange;
  m.header.sender = w0;
  m.header.range = 1;
  m.values.assign(200, 0.0f);
  dense.push_back(m);
  EXPECT_THROW(run_server(f, ConsistencyMode::kAsp, dense), ProtocolError);
}

}  // namespace
}  // namespace pstwin

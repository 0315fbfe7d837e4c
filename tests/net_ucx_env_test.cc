// ZmqEnv with the UCX data plane (--transport ucx): servers and workers exchange messages over
// UCX while the scheduler stays on ZeroMQ, and bytes off UCX pass the same wire-safety checks as
// ZeroMQ frames (truncated, corrupt, oversize, strangers: dropped and counted).
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <memory>

#include "net/ucx_data_plane.h"
#include "net/zmq_env.h"
#include "runtime/codec.h"
#include "tests/null_sink.h"

namespace pstwin::net {
namespace {

using testing_support::NullSink;

/// A scheduler (ZeroMQ only), server (node 1) and worker (node 2), both on UCX, past the
/// rendezvous. The server refuses messages over `max_message_bytes`.
struct UcxJob {
  explicit UcxJob(std::size_t max_message_bytes = kDefaultMaxMessageBytes) {
    ZmqOptions o;
    o.linger_s = 0;
    scheduler = std::make_unique<ZmqEnv>(o, 1, sink);
    o.ucx = true;
    worker = std::make_unique<ZmqEnv>(o, 1, sink);
    o.max_message_bytes = max_message_bytes;
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 1, 10.0); });
    auto joining = std::async(std::launch::async, [&] {
      worker->join(scheduler->endpoint(), "worker", worker->advertised("127.0.0.1"), 10.0);
    });
    server->join(scheduler->endpoint(), "server", server->advertised("127.0.0.1"), 10.0);
    joining.get();
    hosting.get();
  }
  NullSink sink;
  std::unique_ptr<ZmqEnv> scheduler, server, worker;
};

Message push_from_worker(std::size_t values) {
  Message m;
  m.header.type = MsgType::kPush;
  m.header.sender = 2;
  m.header.receiver = 1;
  m.header.clock = 3;
  m.values.assign(values, 0.5f);
  return m;
}

/// Sends raw bytes to the server's UCX worker, tagged `tag`, from a data plane of its own (as a
/// buggy or hostile process on the trusted network could).
struct RawSender {
  explicit RawSender(ZmqEnv& target) : plane(kDefaultMaxMessageBytes, pool) {
    plane.connect(1, split_node_address(target.address_book()[1]).ucx);
  }
  void send(std::uint64_t tag, const std::vector<std::uint8_t>& bytes) {
    Frame f = pool->acquire(bytes.size());
    std::copy(bytes.begin(), bytes.end(), f.data());
    plane.send(1, tag, std::move(f));
  }
  /// Delivers what was sent, on a thread of its own while the server receives (a send finishes
  /// only while both ends progress).
  std::future<bool> deliver() {
    return std::async(std::launch::async, [this] { return plane.wait_sent(10.0); });
  }
  std::shared_ptr<FramePool> pool = std::make_shared<FramePool>();
  UcxDataPlane plane;
};

TEST(UcxEnv, ServersAndWorkersTalkOverUcxAndTheSchedulerOverZeroMq) {
  UcxJob job;
  const auto book = job.server->address_book();
  ASSERT_EQ(book.size(), 3u);
  EXPECT_TRUE(split_node_address(book[0]).ucx.empty()) << "the scheduler runs no UCX";
  EXPECT_FALSE(split_node_address(book[1]).ucx.empty());
  EXPECT_EQ(split_node_address(book[1]).zmq, job.server->endpoint());
  // A 10 MB push (UCX's rendezvous protocol) and a small reply; the worker waits for the reply
  // on a thread of its own, progressing its sends meanwhile as a worker's pull does.
  auto pushing = std::async(std::launch::async, [&] {
    job.worker->send(1, push_from_worker(2'500'000));
    return job.worker->recv(10.0);
  });
  auto push = job.server->recv(10.0);
  ASSERT_TRUE(push);
  EXPECT_EQ(push->header.type, MsgType::kPush);
  EXPECT_EQ(push->header.sender, 2u);
  ASSERT_EQ(push->values.size(), 2'500'000u);
  EXPECT_EQ(push->values.back(), 0.5f);
  // Made as the job started (reach_ucx_peers), so that a UCX that cannot reach it fails then.
  EXPECT_TRUE(job.server->ucx()->connected(2)) << "the server's endpoint to its worker";
  Message reply;
  reply.header.type = MsgType::kPullReply;
  reply.values.assign(7, 1.5f);
  job.server->send(2, reply);
  auto pulled = pushing.get();
  ASSERT_TRUE(pulled);
  EXPECT_EQ(pulled->header.sender, 1u);
  EXPECT_EQ(pulled->values, std::vector<float>(7, 1.5f));
  Message stop;
  stop.header.type = MsgType::kStop;
  job.scheduler->send(1, stop);  // over ZeroMQ
  auto m = job.server->recv(10.0);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->header.type, MsgType::kStop);
  EXPECT_EQ(job.server->rejected(), 0u);
}

TEST(UcxEnv, TruncatedCorruptAndLyingMessagesAreDroppedAndCounted) {
  UcxJob job;
  RawSender raw(*job.server);
  const std::vector<std::uint8_t> good = encode(push_from_worker(1000));
  auto corrupt = good;
  // Its count of values (offset 88): between nodes of one machine frames carry no checksum
  // (net/pair_checksum.h), but every count is still checked against the bytes that came.
  corrupt[88] ^= 0x40;
  raw.send(2, std::vector<std::uint8_t>(good.begin(), good.begin() + 50));  // truncated header
  raw.send(2, std::vector<std::uint8_t>(good.begin(), good.end() - 4));     // truncated payload
  raw.send(2, corrupt);
  raw.send(3, good);  // tag 3: no such node
  raw.send(0, good);  // the scheduler never speaks over UCX
  Message liar = push_from_worker(10);
  liar.header.sender = 1;
  raw.send(2, encode(liar));  // tag 2, but claims node 1
  raw.send(2, good);
  auto delivered = raw.deliver();
  auto m = job.server->recv(10.0);
  EXPECT_TRUE(delivered.get());
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->header.type, MsgType::kPush);
  EXPECT_EQ(m->values.size(), 1000u);
  EXPECT_EQ(job.server->rejected(), 6u);
}

TEST(UcxEnv, SplitMessagesWhosePartsDisagreeAreDroppedAndCounted) {
  UcxJob job;
  RawSender raw(*job.server);
  const Message push = push_from_worker(1000);
  std::vector<std::uint8_t> values(values_section_size(push));
  write_values_section(push, values.data());
  std::vector<std::uint8_t> head(encoded_size(push) - values.size());
  encode_split_into(push, head.data(), head.size(), values.data());
  const std::uint64_t follows = UcxDataPlane::kTagFollows, values_tag = UcxDataPlane::kTagValues;
  raw.send(2 | follows, head);  // a values part of another length than the header's
  raw.send(2 | values_tag, std::vector<std::uint8_t>(values.begin(), values.end() - 4));
  auto corrupt = head;
  corrupt[88] ^= 0x40;  // a header part that miscounts its values (no checksum on one machine)
  raw.send(2 | follows, corrupt);
  raw.send(2 | values_tag, values);
  raw.send(2, head);  // a header part sent as a whole message: its values are missing
  raw.send(2 | follows, head);
  raw.send(2 | values_tag, values);
  auto delivered = raw.deliver();
  auto m = job.server->recv(10.0);
  EXPECT_TRUE(delivered.get());
  ASSERT_TRUE(m) << "the good message after the bad ones did not arrive";
  EXPECT_EQ(m->values, push.values);
  EXPECT_EQ(job.server->rejected(), 3u);
}

TEST(UcxEnv, ALargeValuesPartLandsInAVectorEvenWithNoSpareHeld) {
  // The first push of a job finds no spare values: its values go straight into a new vector all
  // the same, not into a pool buffer that the decoder would copy from and the pool then keep.
  auto pool = std::make_shared<FramePool>();
  UcxDataPlane sender(kDefaultMaxMessageBytes, pool), receiver(kDefaultMaxMessageBytes, pool);
  receiver.set_spare_values(std::make_shared<SpareValues>());
  sender.connect(1, receiver.address_hex());
  Message push = push_from_worker(1'000'000);
  const std::size_t values_size = values_section_size(push);
  Frame head = pool->acquire(encoded_size(push) - values_size);
  const auto* values = reinterpret_cast<const std::uint8_t*>(push.values.data());
  encode_split_into(push, head.data(), head.size, values);
  sender.send_split(1, 2, std::move(head), values, values_size, std::move(push));
  auto delivering = std::async(std::launch::async, [&] { return sender.wait_sent(10.0); });
  std::optional<UcxReceived> got;
  const auto give_up = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!got && std::chrono::steady_clock::now() < give_up) got = receiver.receive();
  EXPECT_TRUE(delivering.get());
  ASSERT_TRUE(got);
  EXPECT_EQ(got->error, "");
  EXPECT_TRUE(got->split);
  EXPECT_EQ(got->values.size, 0u) << "the values went through a pool buffer";
  ASSERT_EQ(got->values_in_place.size(), 1'000'000u);
  EXPECT_EQ(got->values_in_place.front(), 0.5f);
  EXPECT_EQ(got->values_in_place.back(), 0.5f);
}

TEST(UcxEnv, OversizeMessagesAreDroppedCountedAndSaidWithTheirSizeAndSender) {
  UcxJob job(1 << 20);  // the server takes at most 1 MiB
  const std::size_t size = encoded_size(push_from_worker(1'000'000));
  auto pushing = std::async(std::launch::async, [&] {
    job.worker->send(1, push_from_worker(1'000'000));  // 4 MB: rendezvous, refused
    job.worker->send(1, push_from_worker(100));
    return job.worker->ucx()->wait_sent(10.0);
  });
  testing::internal::CaptureStderr();
  auto m = job.server->recv(10.0);
  const std::string said = testing::internal::GetCapturedStderr();
  EXPECT_TRUE(pushing.get());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->values.size(), 100u);
  EXPECT_EQ(job.server->rejected(), 1u);
  EXPECT_NE(said.find("dropped a message from UCX tag 2: " + std::to_string(size) + " bytes, over the " +
                      std::to_string(1 << 20) + "-byte message limit"),
            std::string::npos)
      << said;
}

TEST(UcxEnv, AWorkerAddressThatIsNotHexIsRefused) {
  auto pool = std::make_shared<FramePool>();
  UcxDataPlane plane(kDefaultMaxMessageBytes, pool);
  EXPECT_THROW(plane.connect(1, "12zz"), std::invalid_argument);
  EXPECT_THROW(plane.connect(1, "123"), std::invalid_argument);
  EXPECT_FALSE(plane.connected(1));
}

TEST(UcxEnv, NodeAddressesSplitAndJoin) {
  EXPECT_EQ(split_node_address("tcp://127.0.0.1:5000#ucx=ab01").zmq, "tcp://127.0.0.1:5000");
  EXPECT_EQ(split_node_address("tcp://127.0.0.1:5000#ucx=ab01").ucx, "ab01");
  EXPECT_EQ(split_node_address("tcp://[::1]:5000").ucx, "");
  EXPECT_EQ(join_node_address({"tcp://h:1", "ff"}), "tcp://h:1#ucx=ff");
  EXPECT_EQ(join_node_address({"tcp://h:1", ""}), "tcp://h:1");
}

}  // namespace
}  // namespace pstwin::net

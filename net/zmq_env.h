// ZmqEnv: the Env of a node on a real network, over ZeroMQ and TCP (DESIGN.md, "The real
// environments"): a ROUTER socket receives, one DEALER socket per peer sends.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "net/curve_keys.h"
#include "net/heartbeat_thread.h"
#include "net/zap_authenticator.h"
#include "runtime/codec.h"
#include "runtime/env.h"
#include "runtime/job_layout.h"

namespace pstwin::net {

/// Transport settings of one node.
struct ZmqOptions {
  /// Where this node receives: "tcp://HOST:PORT" as parse_tcp_endpoint (net/tcp_address.h) takes
  /// it: IPv4 or bracketed IPv6 addresses, host and interface names, "*" for every interface of
  /// both families; port "*" picks a free one.
  std::string bind_endpoint = "tcp://127.0.0.1:*";
  std::optional<CurveKeys> keys;      ///< the job's credentials; nullopt only with --insecure
  std::size_t max_message_bytes = kDefaultMaxMessageBytes;  ///< larger messages are refused
  /// Longest key range a message may name (decode's max_range_keys): the model's key count, set
  /// by the job; the default leaves only decode's own max_message_bytes / 8 bound.
  std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max();
  int high_water_mark = 1000;         ///< messages queued per socket before send blocks
  double send_timeout_s = 60.0;       ///< a send blocked this long (peer gone) is an error
  double linger_s = 5.0;              ///< at close, how long unsent messages may still go out
};

/// A node's Env on a real network. Its life: construct (binds the ROUTER; a std::runtime_error
/// "cannot listen at ..." says why not, see bind_tcp in net/tcp_address.h), then either
/// host_registration (the scheduler) or join(scheduler) (every other node), then the role runs on
/// it. Every socket speaks IPv4 and IPv6.
///
/// Wire safety: every received frame is decoded with the codec's checks; a frame that fails them,
/// comes from an identity that is not a node of this job, claims another sender than its
/// connection, or exceeds max_message_bytes is dropped with a line on stderr and counted; the
/// node carries on. Not thread-safe: one thread uses it (ZeroMQ sockets are single-threaded).
class ZmqEnv : public Env {
 public:
  /// `seed` (the scenario's) seeds rng() once the node's role and index are known:
  /// role_stream_seed(seed, layout(), self()); `metrics` receives this node's measurements.
  ZmqEnv(const ZmqOptions& options, std::uint64_t seed, MetricsSink& metrics);
  ~ZmqEnv() override;

  /// The endpoint the ROUTER is bound to, with the port resolved ("tcp://127.0.0.1:41234",
  /// "tcp://[::1]:41234").
  const std::string& endpoint() const { return endpoint_; }
  /// Same, with the host replaced by `host` (an IPv6 address gets brackets), as others dial it.
  std::string advertised(const std::string& host) const;

  /// now() is the job's clock: seconds since the end of the rendezvous, the same on every node
  /// (before it, since construction). The scheduler starts it when the rendezvous ends and sends
  /// its reading with every address book; a node sets its clock from that reading when the book
  /// arrives, so a node restarted into a running job shares the clock of the others. A node's
  /// clock is behind the scheduler's by the one-way delay of the address book (well under a
  /// millisecond on a LAN or loopback).
  ///
  /// Scheduler side of the rendezvous: waits for `servers` + `workers` kRegister messages
  /// (data: {"role", "address", optionally "index"}), gives servers ids 1..S and workers
  /// S+1..S+W (the id of the requested index when one is asked for and free, else the next free
  /// one in arrival order), and answers each with kAddressBook (data: {"id", "nodes": addresses by
  /// id, "servers": S, "time_s": the job's clock}). Becomes node 0. Throws
  /// std::runtime_error naming how many registered when the others do not within timeout_s.
  /// After the rendezvous, recv() takes a registration flagged {"rejoin": true} for a given role
  /// and index as a restarted node: it gets that node's id and the address book, and every other
  /// node is told the new address (an env-level kAddressBook {"update": ...}, never seen by roles).
  void host_registration(std::uint32_t servers, std::uint32_t workers, double timeout_s);

  /// Node side: registers as `role` ("server" or "worker") with the scheduler at
  /// `scheduler_endpoint`, advertising `my_address`, and waits for the address book.
  /// `index` >= 0 asks for that server or worker index; `rejoin` registers a restarted node
  /// into a running job (it must name its index). Throws std::runtime_error saying why:
  ///   "cannot reach the scheduler at E: cannot resolve host H (why)";
  ///   "the scheduler at E refused this node's key: it does not hold the job's key pair ..."
  ///     (at once, when the scheduler's authentication refused it);
  ///   "the scheduler at E broke off the handshake 3 times: it holds another key pair ..." (after
  ///     a few tenths of a second: another key file);
  ///   "the scheduler at E and this node disagree on security: ..." (at once: --insecure on one
  ///     side only);
  ///   "the scheduler at E failed the connection's handshake ..." (at once: not a pstwin node);
  ///   "cannot reach the scheduler at E within N s: nothing accepted a connection there ..." or
  ///     "...: it accepted the connection but did not answer the registration" (on timeout);
  ///   "the scheduler at E turned this node away: WHY" (refused registration).
  /// Throws ProtocolError for an address book that does not decode or holds impossible values.
  void join(const std::string& scheduler_endpoint, const std::string& role,
            const std::string& my_address, double timeout_s, int index = -1, bool rejoin = false);

  /// Every node's address, by id (valid after the rendezvous).
  const std::vector<std::string>& address_book() const { return book_; }
  /// The job's servers and workers (valid after the rendezvous; a node learns them from the
  /// address book).
  const JobLayout& layout() const { return layout_; }
  /// Connections refused by the CURVE check so far (0 when insecure).
  std::uint64_t refused_connections() const { return authenticator_ ? authenticator_->refused() : 0; }
  /// Frames dropped by the wire-safety checks so far.
  std::uint64_t rejected() const { return rejected_; }
  std::uint64_t bytes_sent() const override { return bytes_sent_; }
  std::uint64_t messages_sent() const { return messages_sent_; }

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override;
  std::optional<Message> recv(double timeout_s) override;
  double now() const override;
  void sleep(double seconds) override;
  void account(const Cost&) override {}
  Rng& rng() override { return *rng_; }
  MetricsSink& metrics() override { return metrics_; }
  CheckpointStore* checkpoints() override { return checkpoints_; }
  /// Where this node's checkpoints go (null: none kept). Not owned.
  void set_checkpoints(CheckpointStore* store) { checkpoints_ = store; }

  /// Node side, after join: sends kHeartbeat to the scheduler every interval_s seconds from a
  /// thread with its own connection (identity "h<id>"), until stop_heartbeats() or destruction.
  void start_heartbeats(double interval_s);
  void stop_heartbeats() { heartbeats_.reset(); }
  /// At the end of a node's role: what is still queued for peers other than the scheduler gets
  /// 0.5 s instead of the linger time to go out. Only for a job whose roles had every push
  /// acknowledged (fault tolerance), where what is left is mostly for a dead node and would hold
  /// the process up for the whole linger time.
  void abandon_unsent_to_peers();

 private:
  /// One frame pair from the ROUTER: identity and payload; nullopt on timeout.
  std::optional<std::pair<std::string, zmq::message_t>> receive_raw(double timeout_s);
  void reject(const std::string& from, const std::string& why);
  zmq::socket_t& peer(NodeId to);
  void secure_client(zmq::socket_t& s) const;
  /// Takes node id `id` of a job of `servers` servers whose addresses are `book`.
  void became(NodeId id, std::vector<std::string> book, std::uint32_t servers);
  void refuse_registration(const std::string& identity, const std::string& why);
  /// Scheduler, after the start: a restarted node registering again.
  void take_back(const std::string& identity, const Message& registration);
  void answer_registration(const std::string& identity, NodeId id);

  ZmqOptions options_;
  std::uint64_t seed_;
  MetricsSink& metrics_;
  zmq::context_t context_;
  std::unique_ptr<ZapAuthenticator> authenticator_;
  zmq::socket_t router_;
  std::string endpoint_;
  std::map<NodeId, zmq::socket_t> peers_;
  NodeId self_ = 0;
  std::vector<std::string> book_;
  JobLayout layout_;
  std::unique_ptr<Rng> rng_;
  std::chrono::steady_clock::time_point start_;  // the job's time 0 (see now())
  CheckpointStore* checkpoints_ = nullptr;
  std::unique_ptr<HeartbeatThread> heartbeats_;  // after context_: stopped before it ends
  std::uint64_t rejected_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t messages_sent_ = 0;
};

}  // namespace pstwin::net

// ZmqEnv: the Env of a node on a real network, over ZeroMQ and TCP (DESIGN.md, "The real
// environments"): a ROUTER socket receives, one DEALER socket per peer sends.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <zmq.hpp>

#include <nlohmann/json.hpp>

#include "net/cpu_meter.h"
#include "net/curve_keys.h"
#include "net/frame_pool.h"
#include "net/spare_values.h"
#include "net/stop_request.h"
#include "net/router_disconnects.h"
#include "net/values_stream.h"
#include "net/zmq_parts.h"
#include "net/handshake_watch.h"
#include "net/heartbeat_thread.h"
#include "net/straggler_hold.h"
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
  /// by the job once it knows the model (ZmqEnv::set_max_range_keys); the default leaves only
  /// decode's own max_message_bytes / 8 bound.
  std::uint64_t max_range_keys = std::numeric_limits<std::uint64_t>::max();
  int high_water_mark = 1000;         ///< messages queued per socket before send blocks
  double send_timeout_s = 60.0;       ///< a send blocked this long (peer gone) is an error
  double linger_s = 5.0;              ///< at close, how long unsent messages may still go out
  /// Servers and workers send each other their messages over UCX (net/ucx_data_plane.h) and
  /// keep ZeroMQ for the scheduler (--transport ucx). Needs keys == nullopt: UCX has no
  /// authentication. The scheduler itself runs no UCX.
  bool ucx = false;
  /// Under UCX: a dead peer fails its endpoint rather than going unnoticed (the job's fault
  /// tolerance; costs shared memory, see UcxDataPlane).
  bool ucx_peer_failures = true;
  /// Scheduler: once this is requested (a signal to its process), every wait for messages, in
  /// the rendezvous and in recv(), ends with JobStopped(reason) (runtime/errors.h). Not owned;
  /// null: never.
  const StopRequest* stop = nullptr;
};

class UcxDataPlane;

/// The scheduler's side of a rendezvous (ZmqEnv::host_registration).
struct RendezvousRules {
  /// Every node must have registered within this many seconds of the latest registration (or of
  /// the start, before the first). Nodes register as soon as they start, before reading data, so
  /// this covers starting processes only.
  double connect_timeout_s = 30.0;
  /// Every registered node must then report its data loaded within this many seconds.
  double ready_timeout_s = 300.0;
  /// This job's job_fingerprint (net/job_fingerprint.h); a node registering with another one is
  /// turned away saying where they differ. Null: no check (tests of the transport).
  nlohmann::json fingerprint;
  /// Called once every node has registered, while the nodes read their data: reads the
  /// scheduler's and returns the model's shape, which every address book carries as "model".
  /// Whatever it throws turns every node away with its message and is rethrown. Empty: {}.
  std::function<nlohmann::json()> prepare;
  /// The last `joining_servers` server indices join the running job later (the scenario's
  /// {"join": "server"} entries): the rendezvous does not wait for them, their addresses stay
  /// empty until they join, and only they may register with "join" once the job runs.
  std::uint32_t joining_servers = 0;
};

/// The scheduler turned this node away (another job fingerprint, a taken index, ...): bad input
/// on this node's side, not a transport failure. what() says why.
class RegistrationRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// The job did not start because a node could not read its data (it reported why: "worker:3
/// could not read its data: train.svm:15001: ..."): bad input, not a transport failure.
class NodeDataRefused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A node's Env on a real network. Its life: construct (binds the ROUTER; a std::runtime_error
/// "cannot listen at ..." says why not, see bind_tcp in net/tcp_address.h), then either
/// host_registration (the scheduler) or join(scheduler) (every other node), then the role runs on
/// it. Every socket speaks IPv4 and IPv6.
///
/// Wire safety: every received frame is decoded with the codec's checks (but the checksum under
/// CURVE, whose own authentication makes it redundant, and between nodes of one machine: see
/// checksum_with); a frame that fails them,
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
  /// Same, with the host replaced by `host` (an IPv6 address gets brackets), as others dial it;
  /// under UCX followed by "#ucx=" and the UCX worker's address (net/ucx_data_plane.h).
  std::string advertised(const std::string& host) const;
  /// The UCX data plane (null unless ZmqOptions::ucx).
  UcxDataPlane* ucx() { return ucx_.get(); }

  /// now() is the job's clock: seconds since the end of the rendezvous, the same on every node
  /// (before it, since construction). The scheduler starts it when the rendezvous ends and sends
  /// its reading with every address book; a node sets its clock from that reading when the book
  /// arrives, so a node restarted into a running job shares the clock of the others. A node's
  /// clock is behind the scheduler's by the one-way delay of the address book (well under a
  /// millisecond on a LAN or loopback).
  ///
  /// Scheduler side of the rendezvous, in two steps. First every node registers (kRegister, data:
  /// {"role", "address", optionally "index", "fingerprint"}): servers get ids 1..S and workers
  /// S+1..S+W (the requested index when free, else the next free one in arrival order), and each
  /// accepted node is answered {"accepted": true} at once; a node with another fingerprint, a
  /// taken index or a role the job has no room for is answered {"error": why} (and logged), and
  /// the scheduler keeps waiting for a right one. Then, with `rules.prepare` running meanwhile,
  /// every node reports its data loaded (kRegister {"ready": true}), and all get kAddressBook
  /// {"id", "nodes": addresses by id, "servers": S, "time_s": the job's clock, "model": shape}.
  /// Becomes node 0. On a timeout throws std::runtime_error naming the missing nodes as
  /// role:index ("server:1, worker:5-7") and the option that gives more time, after turning the
  /// registered nodes away with the same reason.
  /// After the rendezvous, recv() takes a registration flagged {"rejoin": true} for a given role
  /// and index as a restarted node: it gets that node's id and the address book, and every other
  /// node is told the new address (an env-level kAddressBook {"update": ...}, never seen by roles).
  /// A registration flagged {"join": true} is taken the same way for a server of the last
  /// rules.joining_servers indices (it joins for the first time); for any other it is refused,
  /// naming the joining servers. Before the start, those indices are refused (not started yet).
  void host_registration(std::uint32_t servers, std::uint32_t workers, const RendezvousRules& rules);
  /// The same with no fingerprint check, nothing to prepare, and timeout_s for both steps.
  void host_registration(std::uint32_t servers, std::uint32_t workers, double timeout_s);

  /// Node side, first step: registers as `role` ("server" or "worker") with the scheduler at
  /// `scheduler_endpoint`, advertising `my_address` and `fingerprint` (null: none), and waits
  /// until the scheduler accepts it. `index` >= 0 asks for that server or worker index; `rejoin`
  /// registers a restarted node into a running job (it must name its index), `join` a server the
  /// scenario declares joining (the same, flagged "join"), and then the
  /// address book comes at once: no await_address_book. Throws std::runtime_error saying why:
  ///   "cannot reach the scheduler at E: cannot resolve host H (why)";
  ///   "the scheduler at E refused this node's key: it does not hold the job's key pair ..."
  ///     (at once, when the scheduler's authentication refused it);
  ///   "the scheduler at E broke off the handshake 3 times: it holds another key pair ..." (after
  ///     a few tenths of a second: another key file);
  ///   "the scheduler at E and this node disagree on security: ..." (at once: --insecure on one
  ///     side only);
  ///   "the scheduler at E failed the connection's handshake ..." (at once: not a pstwin node);
  ///   "cannot reach the scheduler at E within N s: nothing accepted a connection there ..." or
  ///     "...: it accepted the connection but did not answer the registration" (on timeout).
  /// Throws RegistrationRefused "the scheduler at E turned this node away: WHY" (refused
  /// registration), and ProtocolError for an answer that does not decode.
  void register_node(const std::string& scheduler_endpoint, const std::string& role,
                     const std::string& my_address, double timeout_s, int index = -1,
                     bool rejoin = false, const nlohmann::json& fingerprint = nullptr, bool join = false);
  /// Node side, second step (after register_node, without rejoin): tells the scheduler this node
  /// has read its data and waits up to timeout_s for the address book. Throws std::runtime_error
  /// on a timeout or when the job does not start (the scheduler's reason), ProtocolError for an
  /// address book that does not decode or holds impossible values. Under UCX, also throws
  /// TransportUnavailable with UCX's reason when UCX cannot reach a peer this node talks to (its
  /// UCX_TLS has no transport to it: "self"), rather than dropping every message to it.
  void await_address_book(double timeout_s);
  /// Node side, instead of await_address_book when this node cannot read its data: tells the
  /// scheduler why (it gives up on the job at once, rather than after the stall timeout).
  void report_not_ready(const std::string& why);
  /// Both steps at once, for a node with nothing to read in between.
  void join(const std::string& scheduler_endpoint, const std::string& role,
            const std::string& my_address, double timeout_s, int index = -1, bool rejoin = false);
  /// The model's shape from the address book ("model"; {} when the scheduler sent none).
  const nlohmann::json& job_model_shape() const { return model_shape_; }

  /// The highest clock this node has seen its job reach (a worker: clocks it finished; a server:
  /// range clocks it served; the scheduler: clocks of snapshots; -1 before any), and the bytes it
  /// has sent. Safe to read from another thread, for a progress line.
  std::int64_t progress_clock() const { return progress_clock_.load(std::memory_order_relaxed); }
  std::uint64_t progress_bytes() const { return progress_bytes_.load(std::memory_order_relaxed); }

  /// Every node's address, by id (valid after the rendezvous).
  const std::vector<std::string>& address_book() const { return book_; }
  /// The job's servers and workers (valid after the rendezvous; a node learns them from the
  /// address book).
  const JobLayout& layout() const { return layout_; }
  /// Connections refused by the CURVE check so far (0 when insecure).
  std::uint64_t refused_connections() const { return authenticator_ ? authenticator_->refused() : 0; }
  /// The frame checksum of the messages this node and node `peer` send each other after the
  /// rendezvous: none under CURVE, whose Poly1305 tag already authenticates every part
  /// (DESIGN.md, "The hot path"); otherwise pair_frame_checksum (net/pair_checksum.h) of the two
  /// nodes' entries as the scheduler's address book gives them (the scheduler's own entry is what
  /// it bound, not the address this node dialled it at), so that both ends of every pair, the
  /// scheduler's included, decide alike. kVerify for a node the book does not hold. Registration
  /// and heartbeat frames always carry it, so a node never needs to know the other side's setting
  /// to read them.
  FrameChecksum checksum_with(NodeId peer) const;
  /// Frames dropped by the wire-safety checks so far.
  std::uint64_t rejected() const { return rejected_; }
  /// Messages taken whole from values streams so far (DESIGN.md, "Streamed values").
  std::uint64_t streams_taken() const { return streams_taken_; }
  std::uint64_t bytes_sent() const override { return bytes_sent_; }
  std::uint64_t messages_sent() const { return messages_sent_; }

  NodeId self() const override { return self_; }
  void send(NodeId to, Message msg) override;
  std::optional<Message> recv(double timeout_s) override;
  /// Scheduler, once recv threw JobStopped: as recv, in slices of at most 50 ms, without the
  /// stop's JobStopped; nullopt at once when every other node in the address book has said its
  /// last word (a "trace_spans" event with "last": true, net/span_forwarding.h), and at the end
  /// of timeout_s. A node that is gone never says it: the wait is then timeout_s.
  std::optional<Message> recv_after_stop(double timeout_s) override;
  double now() const override;
  void sleep(double seconds) override;
  /// Nothing, unless this node is a worker given a StragglerHold: then the compute just done is
  /// measured and, under the scenario's stragglers, the worker held; their events go to the
  /// scheduler (kEvent), which writes them with its own.
  void account(const Cost&) override;
  Rng& rng() override { return *rng_; }
  MetricsSink& metrics() override { return metrics_; }
  CheckpointStore* checkpoints() override { return checkpoints_; }
  double compute_s() const override { return hold_ ? hold_->compute_s() : 0.0; }
  /// Since start_cpu_meter(); nullopt before it.
  std::optional<CpuUse> cpu_use() const override;
  std::vector<float> reusable_values(std::size_t n) override { return spare_->take(n); }
  void recycle_values(std::vector<float> values) override { spare_->give(std::move(values)); }
  /// For a worker, after the rendezvous: measures its compute and applies the scenario's
  /// stragglers. Call before the role runs.
  void set_straggler_hold(std::unique_ptr<StragglerHold> hold) { hold_ = std::move(hold); }
  /// Starts measuring this process's CPU (CpuMeter): call in the role's thread, just before the
  /// role runs, so that reading data and the rendezvous are not counted.
  void start_cpu_meter() { cpu_meter_.emplace(); }
  /// Where this node's checkpoints go (null: none kept). Not owned.
  void set_checkpoints(CheckpointStore* store) { checkpoints_ = store; }
  /// Bounds the key ranges of messages decoded from now on to `keys` (the model's key count,
  /// known once the model is; see ZmqOptions::max_range_keys).
  void set_max_range_keys(std::uint64_t keys) { options_.max_range_keys = keys; }

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
  /// One message from the ROUTER: identity, header part and values parts (zmq_parts.h); nullopt
  /// on timeout. One of another number of parts is dropped and counted. Also returns nullopt,
  /// early, once `wake_fd` (>= 0: UCX's event descriptor) is readable. Throws JobStopped once
  /// options_.stop is requested, until recv_after_stop is called.
  std::optional<ReceivedParts> receive_raw(double timeout_s, int wake_fd = -1);
  /// A decoded message from node `sender` (as its connection or UCX tag says): what the role gets,
  /// or nullopt when the env took it itself (an address update, an event) or dropped it.
  std::optional<Message> accept_from_node(NodeId sender, Message m);
  /// Under UCX: the next message the data plane holds, decoded and checked as a frame from the
  /// ROUTER is; nullopt when none is waiting (one that fails the checks is dropped and counted).
  std::optional<Message> receive_over_ucx();
  /// Sends `msg` (sender and receiver set) to `to` over UCX.
  void send_over_ucx(NodeId to, Message msg);
  /// Under UCX, at the start of the job: makes the endpoints to the peers this node talks to (a
  /// worker: every server; a server: every other node but the scheduler) and throws
  /// TransportUnavailable naming the first UCX cannot reach, with UCX's reason.
  void reach_ucx_peers();
  void reject(const std::string& from, const std::string& why);
  zmq::socket_t& peer(NodeId to);
  void secure_client(zmq::socket_t& s) const;
  /// Takes node id `id` of a job of `servers` servers whose addresses are `book`, where the
  /// scheduler's own entry reads `scheduler_entry` (a node dials it at book[0], as it reached it).
  void became(NodeId id, std::vector<std::string> book, std::uint32_t servers, std::string scheduler_entry);
  /// Decides checksum_with for every node from the address book, after it is taken or changed.
  void judge_checksums();
  void refuse_registration(const std::string& identity, const std::string& why);
  /// Scheduler, giving up before the job starts: for `seconds`, turns away with `why` every node
  /// that registers (one still starting would otherwise wait out its connect timeout), and lets
  /// the refusals already sent go out (the ROUTER does not linger at close).
  void refuse_latecomers(const std::string& why, double seconds);
  /// Scheduler, after the start: a restarted node registering again.
  void take_back(const std::string& identity, const Message& registration);
  void answer_registration(const std::string& identity, NodeId id);
  void answer_accepted(const std::string& identity);
  /// Scheduler: writes node `from`'s kEvent to metrics(); rejects a malformed one.
  void record_node_event(NodeId from, const Message& m);
  /// The role came back from this Env: what it does next, until account(), is compute.
  void mark() {
    if (hold_) hold_->mark(now());
  }
  /// Scheduler: `reply` to the registration socket `identity` (not a node id yet).
  void send_to_registrant(const std::string& identity, const Message& reply);
  /// Scheduler: true when `registration` carries this job's fingerprint (or none is required).
  /// Otherwise turns the node (`node`: "worker:2 at tcp://...", for the log) away saying why,
  /// logs a mismatch, counts a malformed fingerprint as a rejected message, and returns false.
  bool admits(const std::string& identity, const std::string& node, const nlohmann::json& registration);
  /// Node side: waits for the scheduler's answer on the registration socket until `deadline`;
  /// `waiting_for` says what for in the timeout message.
  Message await_reply(std::chrono::steady_clock::time_point deadline, double timeout_s,
                      const std::string& waiting_for);

  /// `m` decoded from a message node `sender` sent, into this node's spare buffers; throws
  /// ProtocolError.
  Message decode_received(const ReceivedParts& parts, NodeId sender);
  /// Sends `parts` to node `to` over `socket`: as one multi-part message, or, for a long values
  /// section, as a header message and one message per values part (net/values_stream.h). Throws
  /// std::runtime_error when a message cannot be queued within the send timeout.
  void send_parts(zmq::socket_t& socket, NodeId to, OutgoingParts parts);
  /// What node `sender` sent in `raw`, decoded; nullopt when it was a piece of a values stream
  /// still unfinished, or was dropped and counted (a message that does not decode, a values part
  /// out of turn, ...). A message other than a values part first drops the sender's unfinished
  /// stream, counted.
  std::optional<Message> take_from_node(ReceivedParts raw, NodeId sender);
  /// Notes the connections the ROUTER has lost (ValuesReassembly::connection_closed).
  void note_lost_connections();
  /// After a receive that found nothing for its whole wait: drops, and counts, the unfinished
  /// values streams whose connections have closed (nothing more of theirs can come).
  void drop_cut_off_streams();

  ZmqOptions options_;
  std::uint64_t seed_;
  MetricsSink& metrics_;
  // Large frames are encoded into these buffers and lent to ZeroMQ, whose I/O thread gives them
  // back once sent (zmq_msg_init_data with a free function): shared, so a frame still queued at
  // close finds its pool. Declared before context_, so it outlives the sockets.
  std::shared_ptr<FramePool> frames_ = std::make_shared<FramePool>();
  // Values of messages sent or done with, which the next received message decodes into. Shared:
  // ZeroMQ's I/O thread gives back the values it sent from, possibly at close.
  std::shared_ptr<SpareValues> spare_ = std::make_shared<SpareValues>();
  std::unique_ptr<UcxDataPlane> ucx_;  // --transport ucx: servers and workers only
  zmq::context_t context_;
  std::unique_ptr<ZapAuthenticator> authenticator_;
  zmq::socket_t router_;
  // After router_: stopped before it closes. Values streams from peers, half assembled.
  std::unique_ptr<RouterDisconnects> disconnects_;
  std::unique_ptr<ValuesReassembly> streams_;
  std::string endpoint_;
  std::map<NodeId, zmq::socket_t> peers_;
  NodeId self_ = 0;
  std::vector<std::string> book_;
  std::string scheduler_entry_;  // book_[0] as the scheduler wrote it (see checksum_with)
  std::vector<FrameChecksum> checksum_with_;  // by node id (judge_checksums)
  JobLayout layout_;
  std::uint32_t joining_servers_ = 0;  ///< scheduler: RendezvousRules::joining_servers
  nlohmann::json fingerprint_;   // scheduler: the job's (null: unchecked)
  nlohmann::json model_shape_ = nlohmann::json::object();  // carried by every address book
  std::string scheduler_endpoint_;  // node: as given to register_node
  // Node, between register_node and await_address_book: the registration connection and its
  // watch (declared after context_, so closed before it).
  std::unique_ptr<zmq::socket_t> registration_;
  std::unique_ptr<HandshakeWatch> watch_;
  std::unique_ptr<Rng> rng_;
  std::chrono::steady_clock::time_point start_;  // the job's time 0 (see now())
  CheckpointStore* checkpoints_ = nullptr;
  std::unique_ptr<HeartbeatThread> heartbeats_;  // after context_: stopped before it ends
  std::unique_ptr<StragglerHold> hold_;  // a worker's; null elsewhere
  std::optional<CpuMeter> cpu_meter_;    // from start_cpu_meter() on
  std::uint64_t rejected_ = 0;
  std::uint64_t streams_taken_ = 0;
  std::uint64_t bytes_sent_ = 0;
  std::uint64_t messages_sent_ = 0;
  bool after_stop_ = false;         // recv_after_stop was called: the stop no longer throws
  std::vector<bool> said_last_word_;  // scheduler, by node id: its "last" spans came
  std::atomic<std::int64_t> progress_clock_{-1};
  std::atomic<std::uint64_t> progress_bytes_{0};
  void note_clock(std::int64_t clock);
};

}  // namespace pstwin::net

// ZmqEnv's data path: sockets, send and receive with the wire-safety checks, heartbeats. The
// rendezvous (node ids and the address book) is in zmq_rendezvous.cc (the scheduler's side) and
// zmq_join.cc (a node's).
#include "net/zmq_env.h"

#include <iostream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "net/message_limit.h"
#include "net/pair_checksum.h"
#include "net/router_receive.h"
#include "net/span_forwarding.h"
#include "net/tcp_address.h"
#include "net/ucx_data_plane.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin::net {

ZmqEnv::ZmqEnv(const ZmqOptions& options, std::uint64_t seed, MetricsSink& metrics)
    : options_(options),
      seed_(seed),
      metrics_(metrics),
      rng_(std::make_unique<Rng>(role_stream_seed(seed, NodeRole::kScheduler, 0))),
      start_(std::chrono::steady_clock::now()) {
  if (options_.keys) authenticator_ = std::make_unique<ZapAuthenticator>(context_, options_.keys->public_z85);
  router_ = open_socket(context_, zmq::socket_type::router);
  router_.set(zmq::sockopt::linger, 0);
  router_.set(zmq::sockopt::rcvhwm, options_.high_water_mark);
  // ZeroMQ cuts a connection whose frame exceeds its own limit without a word, so its limit is
  // twice the message limit: a part up to there reaches recv(), which drops it with a line
  // naming its size and sender (zmq_parts.h); past there ZeroMQ's silent cut bounds what a
  // forged length can make this node hold. A pstwin sender never sends over the limit (send()).
  router_.set(zmq::sockopt::maxmsgsize, zmq_part_limit(options_.max_message_bytes));
  if (options_.keys) {
    router_.set(zmq::sockopt::curve_server, true);
    router_.set(zmq::sockopt::curve_secretkey, options_.keys->secret_z85);
    router_.set(zmq::sockopt::zap_domain, "pstwin");
  }
  endpoint_ = bind_tcp(router_, options_.bind_endpoint);
  disconnects_ = std::make_unique<RouterDisconnects>(context_, router_, "router");
  streams_ = std::make_unique<ValuesReassembly>(options_.max_message_bytes, spare_);
  if (options_.ucx) {
    if (options_.keys) throw std::invalid_argument("UCX has no authentication: it needs --insecure");
    ucx_ = std::make_unique<UcxDataPlane>(options_.max_message_bytes, frames_, options_.ucx_peer_failures);
    ucx_->set_linger(options_.linger_s);
    ucx_->set_spare_values(spare_);
  }
}

ZmqEnv::~ZmqEnv() { heartbeats_.reset(); }

void ZmqEnv::abandon_unsent_to_peers() {
  // Half a second still lets a live peer take what is on its way; a dead one holds nothing up.
  for (auto& [id, socket] : peers_)
    if (id != kScheduler) socket.set(zmq::sockopt::linger, 500);
  if (ucx_) ucx_->set_linger(0.5);
}

std::string ZmqEnv::advertised(const std::string& host) const {
  return join_node_address({tcp_endpoint(host, parse_tcp_endpoint(endpoint_).port),
                            ucx_ ? ucx_->address_hex() : ""});
}

void ZmqEnv::secure_client(zmq::socket_t& s) const {
  if (!options_.keys) return;
  // Every node holds the job's one key pair: it proves membership to the server's ZAP check.
  s.set(zmq::sockopt::curve_serverkey, options_.keys->public_z85);
  s.set(zmq::sockopt::curve_publickey, options_.keys->public_z85);
  s.set(zmq::sockopt::curve_secretkey, options_.keys->secret_z85);
}

void ZmqEnv::became(NodeId id, std::vector<std::string> book, std::uint32_t servers, std::string scheduler_entry) {
  self_ = id;
  book_ = std::move(book);
  scheduler_entry_ = std::move(scheduler_entry);
  layout_ = JobLayout{servers, static_cast<std::uint32_t>(book_.size()) - 1 - servers};
  rng_ = std::make_unique<Rng>(role_stream_seed(seed_, layout_, id));
  judge_checksums();
}

void ZmqEnv::judge_checksums() {
  const auto entry = [&](NodeId id) -> const std::string& { return id == kScheduler ? scheduler_entry_ : book_[id]; };
  checksum_with_.assign(book_.size(), FrameChecksum::kVerify);
  for (NodeId id = 0; id < book_.size(); ++id)
    if (id != self_) checksum_with_[id] = pair_frame_checksum(entry(self_), entry(id));
}

FrameChecksum ZmqEnv::checksum_with(NodeId peer) const {
  if (options_.keys) return FrameChecksum::kSkip;
  return peer < checksum_with_.size() ? checksum_with_[peer] : FrameChecksum::kVerify;
}

void ZmqEnv::reject(const std::string& from, const std::string& why) {
  ++rejected_;
  std::cerr << "pstwin[node " << self_ << "]: dropped a message from " << from << ": " << why
            << "\n";
}

std::optional<ReceivedParts> ZmqEnv::receive_raw(double timeout_s, int wake_fd) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  // The identity, the header part and up to kMaxValueParts values parts (wire version 7).
  constexpr std::size_t kMaxFrames = 1 + kMaxValueParts;
  const auto parts_of = [&](RoutedMessage m) -> std::optional<ReceivedParts> {
    if (m.frames >= 1 && m.frames <= kMaxFrames)
      return ReceivedParts{m.identity.to_string(), std::move(m.payload), std::move(m.rest)};
    reject(printable(m.identity.to_string()), "expected a header part and at most " +
                                                  std::to_string(kMaxValueParts) + " values parts, got " +
                                                  std::to_string(m.frames) + " parts");
    return std::nullopt;
  };
  // Nothing but the ROUTER to wait on (no UCX, no stop request to wake up for: a server or a
  // worker): a blocking recv, as plain ZeroMQ code waits.
  const StopRequest* stop = after_stop_ ? nullptr : options_.stop;
  while (wake_fd < 0 && !stop) {
    auto m = receive_routed(router_, std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count(),
                            kMaxFrames);
    if (!m) return std::nullopt;
    if (auto parts = parts_of(std::move(*m))) return parts;
  }
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (stop)
      if (auto why = stop->reason()) throw JobStopped(*why);
    // The router, then the descriptors that end the wait early: UCX's, the stop's (it wakes a
    // long wait at once).
    zmq::pollitem_t items[3] = {{router_.handle(), 0, ZMQ_POLLIN, 0}};
    std::size_t count = 1;
    if (wake_fd >= 0) items[count++] = {nullptr, wake_fd, ZMQ_POLLIN, 0};
    const std::size_t stop_item = count;
    if (stop) items[count++] = {nullptr, stop->fd(), ZMQ_POLLIN, 0};
    zmq::poll(items, count, std::max(left, std::chrono::milliseconds(0)));
    if (stop && (items[stop_item].revents & ZMQ_POLLIN)) continue;  // thrown at the top
    if (!(items[0].revents & ZMQ_POLLIN)) return std::nullopt;
    zmq::message_t identity;
    if (!router_.recv(identity, zmq::recv_flags::dontwait)) continue;
    if (auto parts = parts_of(take_routed_frames(router_, std::move(identity), kMaxFrames))) return parts;
  }
}

zmq::socket_t& ZmqEnv::peer(NodeId to) {
  auto it = peers_.find(to);
  if (it != peers_.end()) return it->second;
  if (to >= book_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
  zmq::socket_t s = open_socket(context_, zmq::socket_type::dealer);
  s.set(zmq::sockopt::routing_id, node_identity(self_));
  s.set(zmq::sockopt::sndhwm, options_.high_water_mark);
  s.set(zmq::sockopt::sndtimeo, to_ms(options_.send_timeout_s));
  s.set(zmq::sockopt::linger, to_ms(options_.linger_s));
  // Messages to a peer that is not connected (yet, or any more) are queued, not blocked on: a
  // node may send its last report just as its peer exits. A peer that is truly gone shows as a
  // stall (every recv has a timeout), or as a send timeout once high_water_mark messages wait;
  // at close, what is still queued gets linger_s to go out and is then dropped.
  s.set(zmq::sockopt::immediate, false);
  secure_client(s);
  try {
    connect_tcp(s, split_node_address(book_[to]).zmq);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("node " + std::to_string(self_) + ": cannot reach node " +
                             std::to_string(to) + " at " + book_[to] + ": " + e.what());
  }
  return peers_.emplace(to, std::move(s)).first->second;
}

Message ZmqEnv::decode_received(const ReceivedParts& parts, NodeId sender) {
  Message m;
  // The values parts' size is the values': take spare memory only for a large one.
  decode_parts(parts, m, options_.max_message_bytes, options_.max_range_keys, checksum_with(sender),
               spare_->take(values_bytes(parts) / sizeof(float)));
  return m;
}

void ZmqEnv::send(NodeId to, Message msg) {
  msg.header.sender = self_;
  msg.header.receiver = to;
  const std::size_t size = encoded_size(msg);
  // The receiver would drop it (ZeroMQ or UCX), and the job would wait for it until its stall
  // timeout: refused here instead, naming it (scenario checks make this rare: wire_limit_check.h).
  if (size > options_.max_message_bytes)
    throw std::runtime_error(oversize_send_error(msg, size, options_.max_message_bytes));
  const MessageHeader header = msg.header;
  if (ucx_ && to != kScheduler) {
    send_over_ucx(to, std::move(msg));
  } else {
    // The values go out from where they lie (zmq_parts.h): no copy into a frame.
    send_parts(peer(to), to, split_for_zmq(std::move(msg), checksum_with(to), frames_, spare_));
  }
  // A worker's straggler events are measurements, which the simulation does not send: not
  // counted, so traffic compares across environments.
  if (header.type != MsgType::kEvent) {
    bytes_sent_ += size;
    ++messages_sent_;
  }
  mark();
  progress_bytes_.store(bytes_sent_, std::memory_order_relaxed);
  // A worker's push for clock c finishes clock c (under hybrid, so does its share of its host's
  // sum); a server's reply says the clock it serves.
  if (header.type == MsgType::kPush || header.type == MsgType::kHostReduce)
    note_clock(header.clock + 1);
  else if (header.type == MsgType::kPullReply) note_clock(header.version);
}

namespace {

/// A worker's straggler events, sent to the scheduler as kEvent messages: events.jsonl is the
/// scheduler's to write.
class EventsToScheduler : public MetricsSink {
 public:
  explicit EventsToScheduler(Env& env) : env_(env) {}
  void staleness(std::int64_t, std::uint64_t) override {}
  void updates_applied(std::uint64_t) override {}
  void bytes_to_servers(std::uint64_t) override {}
  void eval(EvalRow) override {}
  void event(double time_s, const std::string& type, nlohmann::json fields) override {
    fields["time_s"] = time_s;
    fields["type"] = type;
    Message m;
    m.header.type = MsgType::kEvent;
    m.data = fields.dump();
    env_.send(JobLayout::scheduler(), std::move(m));
  }
  void finish(const std::string&, bool, const std::string&) override {}

 private:
  Env& env_;
};

}  // namespace

void ZmqEnv::account(const Cost&) {
  if (!hold_) return;
  EventsToScheduler events(*this);
  sleep(hold_->after_compute(now(), events));  // sleep() marks the end of the hold
}

void ZmqEnv::record_node_event(NodeId from, const Message& m) {
  const std::string what = "event from node " + std::to_string(from);
  try {
    if (self_ != kScheduler) throw ProtocolError(what + ": only the scheduler takes events");
    auto fields = wire_json::parse_object(m.data, what);
    const double time_s = wire_json::number_member(fields, "time_s", what);
    const std::string type = wire_json::string_member(fields, "type", what);
    if (type.empty()) throw ProtocolError(what + ": \"type\" is empty");
    fields.erase("time_s");
    fields.erase("type");
    // A node's timeline for trace.json (net/span_forwarding.h), not a line of events.jsonl.
    if (type == "trace_spans") {
      const bool last = is_last_batch(fields, what);
      take_forwarded_spans(from, fields, metrics_, what);
      if (last) {
        said_last_word_.resize(book_.size(), false);
        if (from < said_last_word_.size()) said_last_word_[from] = true;
      }
    } else {
      metrics_.event(time_s, type, std::move(fields));
    }
  } catch (const ProtocolError& e) {
    reject("node " + std::to_string(from), e.what());
  }
}

void ZmqEnv::note_clock(std::int64_t clock) {
  if (clock > progress_clock_.load(std::memory_order_relaxed))
    progress_clock_.store(clock, std::memory_order_relaxed);
}

std::optional<Message> ZmqEnv::recv_after_stop(double timeout_s) {
  after_stop_ = true;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(std::max(timeout_s, 0.0) * 1e6));
  // In slices: the last words are events, which recv takes without returning.
  for (;;) {
    said_last_word_.resize(book_.size(), false);
    bool everyone = true;
    for (NodeId n = 0; n < book_.size(); ++n) everyone = everyone && (n == self_ || said_last_word_[n]);
    if (everyone) return std::nullopt;
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    if (auto m = recv(std::min(left, 0.05))) return m;
  }
}

std::optional<Message> ZmqEnv::recv(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) {
      mark();
      return std::nullopt;
    }
    // Under UCX, servers and workers talk over UCX and the scheduler over ZeroMQ: wait on both.
    // What ZeroMQ holds goes first: the scheduler's messages cause what peers then send (a
    // hybrid job's start before the replies that follow it), and roles expect them in that order.
    int wake_fd = -1;
    std::optional<ReceivedParts> raw;
    if (ucx_) {
      raw = receive_raw(0.0);
      if (!raw) {
        if (auto m = receive_over_ucx()) {
          mark();
          return m;
        }
        if (!ucx_->arm()) continue;  // something arrived meanwhile: take it before waiting
        wake_fd = ucx_->event_fd();
      }
    }
    if (!raw) raw = receive_raw(left, wake_fd);
    if (!raw) {
      if (wake_fd >= 0) continue;  // UCX woke up, or the time is up (said at the top)
      // Nothing came for the whole wait: a stream whose connection closed can get no more parts.
      if (streams_->any_open()) drop_cut_off_streams();
      mark();
      return std::nullopt;
    }
    const auto sender = parse_node_identity(raw->identity);
    // Before any decoding, which would take memory for its values.
    if (auto why = oversize_parts(*raw, options_.max_message_bytes)) {
      reject(sender && *sender < book_.size() ? "node " + std::to_string(*sender) : printable(raw->identity), *why);
      continue;
    }
    if (self_ == kScheduler && !raw->identity.empty() && raw->identity[0] == 'r') {
      // A node registering after the job started: a restarted one, or one too many.
      try {
        Message reg;
        decode_parts(*raw, reg, options_.max_message_bytes, options_.max_range_keys, FrameChecksum::kVerify);
        if (reg.header.type == MsgType::kRegister) take_back(raw->identity, reg);
        else reject(printable(raw->identity), "expected a registration");
      } catch (const ProtocolError& e) {
        reject(printable(raw->identity), e.what());
      }
      continue;
    }
    const auto beating = sender ? std::nullopt : parse_node_identity(raw->identity, 'h');
    if (beating && *beating < book_.size() && *beating != self_) {
      // A node's heartbeat connection: heartbeats only, from the node it names.
      Message m;
      try {
        decode_parts(*raw, m, options_.max_message_bytes, options_.max_range_keys, FrameChecksum::kVerify);
      } catch (const ProtocolError& e) {
        reject("node " + std::to_string(*beating), e.what());
        continue;
      }
      if (m.header.type != MsgType::kHeartbeat || m.header.sender != *beating) {
        reject("node " + std::to_string(*beating), "its heartbeat connection carried " +
                                                       std::string(msg_type_name(m.header.type)));
        continue;
      }
      return m;
    }
    if (!sender || *sender >= book_.size() || *sender == self_) {
      reject(printable(raw->identity), "not a node of this job");
      continue;
    }
    auto m = take_from_node(std::move(*raw), *sender);
    if (!m) continue;
    if (auto delivered = accept_from_node(*sender, std::move(*m))) {
      mark();
      return delivered;
    }
  }
}

std::optional<Message> ZmqEnv::accept_from_node(NodeId sender, Message m) {
  if (m.header.sender != sender) {
    reject("node " + std::to_string(sender),
           "it claims to be node " + std::to_string(m.header.sender));
    return std::nullopt;
  }
  if (m.header.type == MsgType::kAddressBook && sender == kScheduler && self_ != kScheduler) {
    // The scheduler says where a restarted node now listens.
    try {
      const std::string what = "address update";
      const auto body = wire_json::parse_object(m.data, what);
      const auto& u = wire_json::member(body, "update", what);
      if (!u.is_object()) throw ProtocolError(what + ": \"update\" must be an object");
      const auto id = wire_json::integer_member<NodeId>(u, "id", what);
      if (id == 0 || id >= book_.size() || id == self_)
        throw ProtocolError(what + ": names node " + std::to_string(id) + ", which it cannot move");
      book_[id] = wire_json::string_member(u, "address", what);
      judge_checksums();  // the node may have moved to another machine
      peers_.erase(id);
      if (ucx_) ucx_->forget(id);  // the next send dials the new process
    } catch (const ProtocolError& e) {
      reject("node 0", e.what());
    }
    return std::nullopt;
  }
  if (m.header.type == MsgType::kRegister || m.header.type == MsgType::kAddressBook) {
    reject("node " + std::to_string(sender), "rendezvous message after the job started");
    return std::nullopt;
  }
  if (m.header.type == MsgType::kEvent) {  // for events.jsonl, never seen by roles
    record_node_event(sender, m);
    return std::nullopt;
  }
  if (m.header.type == MsgType::kSnapshot) note_clock(m.header.clock);
  return m;
}

void ZmqEnv::start_heartbeats(double interval_s) {
  if (book_.empty()) throw std::logic_error("start_heartbeats before the rendezvous");
  // The thread's socket is its own (ZeroMQ sockets are single-threaded); the context is shared.
  auto socket = std::make_shared<zmq::socket_t>(open_socket(context_, zmq::socket_type::dealer));
  socket->set(zmq::sockopt::routing_id, std::string("h").append(std::to_string(self_)));
  socket->set(zmq::sockopt::sndhwm, 4);  // beats that cannot go out are worthless later
  socket->set(zmq::sockopt::linger, 0);
  secure_client(*socket);
  connect_tcp(*socket, book_[0]);  // resolved already: join reached the scheduler there
  Message beat;
  beat.header.type = MsgType::kHeartbeat;
  beat.header.sender = self_;
  beat.header.receiver = kScheduler;
  const auto bytes = encode(beat);
  heartbeats_ = std::make_unique<HeartbeatThread>(interval_s, [socket, bytes] {
    socket->send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  });
}

std::optional<CpuUse> ZmqEnv::cpu_use() const {
  if (!cpu_meter_) return std::nullopt;
  return cpu_meter_->use();
}

double ZmqEnv::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ZmqEnv::sleep(double seconds) {
  if (seconds > 0) std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(seconds * 1e6)));
  mark();
}

}  // namespace pstwin::net

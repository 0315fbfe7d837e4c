#include "net/zmq_env.h"

#include <iostream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "runtime/errors.h"

namespace pstwin::net {

namespace {
constexpr NodeId kScheduler = 0;  // a job's node numbering (runtime/message.h, NodeId)
constexpr std::uint64_t kRoleStream = 0;  // the same stream SimEnv gives a node's role

int to_ms(double seconds) { return static_cast<int>(seconds * 1000.0); }

/// "5 s", "0.5 s": seconds as people write them.
std::string format_seconds(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

// Strings here are built with append: GCC 12 warns falsely (-Wrestrict) on "literal" + string.
std::string node_identity(NodeId id) { return std::string("n").append(std::to_string(id)); }

/// The node id in a data identity "n<id>" (or, with prefix 'h', a heartbeat identity "h<id>"),
/// or nullopt for anything else.
std::optional<NodeId> parse_node_identity(const std::string& identity, char prefix = 'n') {
  if (identity.size() < 2 || identity.size() > 11 || identity[0] != prefix) return std::nullopt;
  std::uint64_t id = 0;
  for (std::size_t i = 1; i < identity.size(); ++i) {
    if (identity[i] < '0' || identity[i] > '9') return std::nullopt;
    id = id * 10 + static_cast<std::uint64_t>(identity[i] - '0');
  }
  if (id > 0xffffffffULL) return std::nullopt;
  return static_cast<NodeId>(id);
}

/// Printable form of an identity that may hold arbitrary bytes.
std::string printable(const std::string& s) {
  std::string out;
  for (unsigned char c : s.substr(0, 32)) out += (c >= 32 && c < 127) ? static_cast<char>(c) : '?';
  return out;
}
}  // namespace

ZmqEnv::ZmqEnv(const ZmqOptions& options, std::uint64_t seed, MetricsSink& metrics)
    : options_(options),
      seed_(seed),
      metrics_(metrics),
      rng_(std::make_unique<Rng>(Rng::derive_seed(seed, 0, kRoleStream))),
      start_(std::chrono::steady_clock::now()) {
  if (options_.keys) authenticator_ = std::make_unique<ZapAuthenticator>(context_, options_.keys->public_z85);
  router_ = zmq::socket_t(context_, zmq::socket_type::router);
  router_.set(zmq::sockopt::linger, 0);
  router_.set(zmq::sockopt::rcvhwm, options_.high_water_mark);
  router_.set(zmq::sockopt::maxmsgsize, static_cast<std::int64_t>(options_.max_message_bytes));
  if (options_.keys) {
    router_.set(zmq::sockopt::curve_server, true);
    router_.set(zmq::sockopt::curve_secretkey, options_.keys->secret_z85);
    router_.set(zmq::sockopt::zap_domain, "pstwin");
  }
  try {
    router_.bind(options_.bind_endpoint);
  } catch (const zmq::error_t& e) {
    if (e.num() == EADDRINUSE)
      throw std::runtime_error("cannot listen at " + options_.bind_endpoint +
                               ": address already in use (another job or node is there)");
    throw std::runtime_error("cannot listen at " + options_.bind_endpoint + ": " + e.what());
  }
  endpoint_ = router_.get(zmq::sockopt::last_endpoint);
}

ZmqEnv::~ZmqEnv() { heartbeats_.reset(); }

void ZmqEnv::abandon_unsent_to_peers() {
  // Half a second still lets a live peer take what is on its way; a dead one holds nothing up.
  for (auto& [id, socket] : peers_)
    if (id != kScheduler) socket.set(zmq::sockopt::linger, 500);
}

std::string ZmqEnv::advertised(const std::string& host) const {
  // endpoint_ is "tcp://ADDRESS:PORT"; keep the port.
  const auto colon = endpoint_.rfind(':');
  return "tcp://" + host + endpoint_.substr(colon);
}

void ZmqEnv::secure_client(zmq::socket_t& s) const {
  if (!options_.keys) return;
  // Every node holds the job's one key pair: it proves membership to the server's ZAP check.
  s.set(zmq::sockopt::curve_serverkey, options_.keys->public_z85);
  s.set(zmq::sockopt::curve_publickey, options_.keys->public_z85);
  s.set(zmq::sockopt::curve_secretkey, options_.keys->secret_z85);
}

void ZmqEnv::became(NodeId id, std::vector<std::string> book) {
  self_ = id;
  book_ = std::move(book);
  rng_ = std::make_unique<Rng>(Rng::derive_seed(seed_, id, kRoleStream));
}

void ZmqEnv::reject(const std::string& from, const std::string& why) {
  ++rejected_;
  std::cerr << "pstwin[node " << self_ << "]: dropped a message from " << from << ": " << why
            << "\n";
}

std::optional<std::pair<std::string, zmq::message_t>> ZmqEnv::receive_raw(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    zmq::pollitem_t item{router_.handle(), 0, ZMQ_POLLIN, 0};
    zmq::poll(&item, 1, std::max(left, std::chrono::milliseconds(0)));
    if (!(item.revents & ZMQ_POLLIN)) return std::nullopt;
    std::vector<zmq::message_t> frames;
    do {
      zmq::message_t frame;
      if (!router_.recv(frame, zmq::recv_flags::dontwait)) break;
      frames.push_back(std::move(frame));
    } while (frames.back().more());
    if (frames.size() == 2) return std::make_pair(frames[0].to_string(), std::move(frames[1]));
    reject(frames.empty() ? "?" : printable(frames[0].to_string()),
           "expected one frame per message, got " + std::to_string(frames.size() - 1));
  }
}

void ZmqEnv::host_registration(std::uint32_t servers, std::uint32_t workers, double timeout_s) {
  self_ = kScheduler;
  const std::uint32_t nodes = 1 + servers + workers;
  std::vector<std::string> book(nodes);
  std::vector<std::string> identity_of(nodes);
  book[kScheduler] = endpoint_;
  std::uint32_t next_server = 1, next_worker = 1 + servers;
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  auto refuse = [this](const std::string& identity, const std::string& why) {
    refuse_registration(identity, why);
  };
  while (next_server <= servers || next_worker < nodes) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    auto raw = left > 0 ? receive_raw(left) : std::nullopt;
    if (!raw) {
      const std::string why =
          "only " + std::to_string(next_server - 1) + " of " + std::to_string(servers) +
          " servers and " + std::to_string(next_worker - 1 - servers) + " of " +
          std::to_string(workers) + " workers registered within " + format_seconds(timeout_s);
      for (NodeId id = 1; id < nodes; ++id)
        if (!identity_of[id].empty()) refuse(identity_of[id], "the job did not start: " + why);
      throw std::runtime_error(why);
    }
    const std::string& who = raw->first;
    Message m;
    try {
      m = decode(static_cast<const std::uint8_t*>(raw->second.data()), raw->second.size(),
                 options_.max_message_bytes);
    } catch (const ProtocolError& e) {
      reject(printable(who), e.what());
      continue;
    }
    if (m.header.type != MsgType::kRegister || who.empty() || who[0] != 'r') {
      reject(printable(who), "expected a registration, got " + std::string(msg_type_name(m.header.type)));
      continue;
    }
    std::string role, address;
    try {
      const auto j = nlohmann::json::parse(m.data);
      role = j.at("role").get<std::string>();
      address = j.at("address").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
      reject(printable(who), std::string("bad registration: ") + e.what());
      continue;
    }
    int index = -1;
    try {
      index = nlohmann::json::parse(m.data).value("index", -1);
    } catch (const nlohmann::json::exception&) {
    }
    // A launcher that knows which process is which (to inject failures into them) asks for the
    // index; others take the next free one.
    const NodeId first = role == "server" ? 1 : 1 + servers;
    const std::uint32_t count = role == "server" ? servers : workers;
    NodeId id = 0;
    if ((role == "server" || role == "worker") && index >= 0 && static_cast<std::uint32_t>(index) < count &&
        identity_of[first + index].empty())
      id = first + static_cast<NodeId>(index);
    else if ((role == "server" || role == "worker") && index < 0)
      for (NodeId n = first; n < first + count && id == 0; ++n)
        if (identity_of[n].empty()) id = n;
    if (id != 0) {
      if (role == "server") ++next_server;
      else ++next_worker;
    } else {
      const std::string why = role == "server" || role == "worker"
                                  ? (index >= 0 ? role + " index " + std::to_string(index) +
                                                      " is taken or does not exist"
                                                : "the job already has all its " + role + "s")
                                  : "unknown role '" + role + "'";
      reject(printable(who), "registration refused: " + why);
      refuse(who, "registration refused: " + why);
      continue;
    }
    book[id] = address;
    identity_of[id] = who;
  }
  became(0, book);
  servers_ = servers;
  workers_ = workers;
  for (NodeId id = 1; id < nodes; ++id) answer_registration(identity_of[id], id);
  // Time 0 of the job is the end of the rendezvous, on every node (each resets its clock when
  // the address book arrives, one network hop later), so start-up and data loading are not
  // counted and the servers' snapshot times agree with the scheduler's to within that hop.
  start_ = std::chrono::steady_clock::now();
}

void ZmqEnv::answer_registration(const std::string& identity, NodeId id) {
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.header.receiver = id;
  reply.data = nlohmann::json{{"id", id}, {"nodes", book_}}.dump();
  const auto bytes = encode(reply);
  router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(bytes), zmq::send_flags::none);
}

void ZmqEnv::take_back(const std::string& identity, const Message& registration) {
  std::string role, address;
  int index = -1;
  try {
    const auto j = nlohmann::json::parse(registration.data);
    role = j.at("role").get<std::string>();
    address = j.at("address").get<std::string>();
    index = j.value("index", -1);
    if (!j.value("rejoin", false)) {
      refuse_registration(identity, "the job has already started with all its nodes");
      reject(printable(identity), "registration after the job started");
      return;
    }
  } catch (const nlohmann::json::exception& e) {
    reject(printable(identity), std::string("bad registration: ") + e.what());
    return;
  }
  const std::uint32_t count = role == "server" ? servers_ : role == "worker" ? workers_ : 0;
  if (index < 0 || static_cast<std::uint32_t>(index) >= count) {
    refuse_registration(identity, "a restarted node must name its role and an index of this job");
    reject(printable(identity), "rejoin without a valid role and index");
    return;
  }
  const NodeId id = (role == "server" ? 1 : 1 + servers_) + static_cast<NodeId>(index);
  book_[id] = address;
  peers_.erase(id);  // the old connection leads to the dead process
  // Everyone else dials the new process from now on; told before the process hears back, so the
  // updates are on their way before it can send anything.
  Message update;
  update.header.type = MsgType::kAddressBook;
  update.data = nlohmann::json{{"update", {{"id", id}, {"address", address}}}}.dump();
  for (NodeId n = 1; n < book_.size(); ++n)
    if (n != id) send(n, update);
  answer_registration(identity, id);
}

void ZmqEnv::refuse_registration(const std::string& identity, const std::string& why) {
  // An address book that carries only an error: the node exits saying why, not timing out.
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.data = nlohmann::json{{"error", why}}.dump();
  const auto bytes = encode(reply);
  router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(bytes), zmq::send_flags::none);
}

void ZmqEnv::join(const std::string& scheduler_endpoint, const std::string& role,
                  const std::string& my_address, double timeout_s, int index, bool rejoin) {
  zmq::socket_t dealer(context_, zmq::socket_type::dealer);
  std::random_device entropy;
  std::string identity("r");
  identity.append(std::to_string(entropy())).append(std::to_string(entropy()));
  dealer.set(zmq::sockopt::routing_id, identity);
  dealer.set(zmq::sockopt::linger, 0);
  secure_client(dealer);
  dealer.connect(scheduler_endpoint);
  Message reg;
  reg.header.type = MsgType::kRegister;
  nlohmann::json body{{"role", role}, {"address", my_address}};
  if (index >= 0) body["index"] = index;
  if (rejoin) body["rejoin"] = true;
  reg.data = body.dump();
  const auto bytes = encode(reg);
  dealer.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  zmq::pollitem_t item{dealer.handle(), 0, ZMQ_POLLIN, 0};
  zmq::poll(&item, 1, std::chrono::milliseconds(to_ms(timeout_s)));
  zmq::message_t frame;
  if (!(item.revents & ZMQ_POLLIN) || !dealer.recv(frame, zmq::recv_flags::dontwait))
    throw std::runtime_error("cannot reach the scheduler at " + scheduler_endpoint + " within " +
                             format_seconds(timeout_s) +
                             " (is it running, and does this node have the job's key?)");
  Message reply = decode(static_cast<const std::uint8_t*>(frame.data()), frame.size(),
                         options_.max_message_bytes);
  if (reply.header.type != MsgType::kAddressBook)
    throw ProtocolError("scheduler answered registration with " +
                        std::string(msg_type_name(reply.header.type)));
  NodeId id;
  std::vector<std::string> book;
  try {
    const auto j = nlohmann::json::parse(reply.data);
    if (j.contains("error"))
      throw std::runtime_error("the scheduler at " + scheduler_endpoint + " turned this node away: " +
                               j["error"].get<std::string>());
    id = j.at("id").get<NodeId>();
    book = j.at("nodes").get<std::vector<std::string>>();
  } catch (const nlohmann::json::exception& e) {
    throw ProtocolError(std::string("bad address book from the scheduler: ") + e.what());
  }
  if (id == 0 || id >= book.size()) throw ProtocolError("address book gives an impossible id");
  book[kScheduler] = scheduler_endpoint;  // dial the scheduler the way this node already reached it
  became(id, std::move(book));
  start_ = std::chrono::steady_clock::now();  // the job's time 0 (see host_registration)
}

zmq::socket_t& ZmqEnv::peer(NodeId to) {
  auto it = peers_.find(to);
  if (it != peers_.end()) return it->second;
  if (to >= book_.size()) throw std::invalid_argument("send to unknown node " + std::to_string(to));
  zmq::socket_t s(context_, zmq::socket_type::dealer);
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
  s.connect(book_[to]);
  return peers_.emplace(to, std::move(s)).first->second;
}

void ZmqEnv::send(NodeId to, Message msg) {
  msg.header.sender = self_;
  msg.header.receiver = to;
  // Encoded straight into the frame ZeroMQ sends, saving a copy of the payload.
  zmq::message_t frame(encoded_size(msg));
  encode_into(msg, static_cast<std::uint8_t*>(frame.data()), frame.size());
  const std::size_t size = frame.size();
  if (!peer(to).send(frame, zmq::send_flags::none))
    throw std::runtime_error("node " + std::to_string(self_) + ": sending to node " +
                             std::to_string(to) + " at " + book_[to] + " timed out after " +
                             format_seconds(options_.send_timeout_s));
  bytes_sent_ += size;
  ++messages_sent_;
}

std::optional<Message> ZmqEnv::recv(double timeout_s) {
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  for (;;) {
    const double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) return std::nullopt;
    auto raw = receive_raw(left);
    if (!raw) return std::nullopt;
    const auto sender = parse_node_identity(raw->first);
    if (self_ == kScheduler && !raw->first.empty() && raw->first[0] == 'r') {
      // A node registering after the job started: a restarted one, or one too many.
      try {
        const Message reg = decode(static_cast<const std::uint8_t*>(raw->second.data()),
                                   raw->second.size(), options_.max_message_bytes);
        if (reg.header.type == MsgType::kRegister) take_back(raw->first, reg);
        else reject(printable(raw->first), "expected a registration");
      } catch (const ProtocolError& e) {
        reject(printable(raw->first), e.what());
      }
      continue;
    }
    const auto beating = sender ? std::nullopt : parse_node_identity(raw->first, 'h');
    if (beating && *beating < book_.size() && *beating != self_) {
      // A node's heartbeat connection: heartbeats only, from the node it names.
      Message m;
      try {
        m = decode(static_cast<const std::uint8_t*>(raw->second.data()), raw->second.size(),
                   options_.max_message_bytes);
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
      reject(printable(raw->first), "not a node of this job");
      continue;
    }
    Message m;
    try {
      m = decode(static_cast<const std::uint8_t*>(raw->second.data()), raw->second.size(),
                 options_.max_message_bytes);
    } catch (const ProtocolError& e) {
      reject("node " + std::to_string(*sender), e.what());
      continue;
    }
    if (m.header.sender != *sender) {
      reject("node " + std::to_string(*sender),
             "it claims to be node " + std::to_string(m.header.sender));
      continue;
    }
    if (m.header.type == MsgType::kAddressBook && *sender == kScheduler && self_ != kScheduler) {
      // The scheduler says where a restarted node now listens.
      try {
        const auto u = nlohmann::json::parse(m.data).at("update");
        const auto id = u.at("id").get<NodeId>();
        if (id == 0 || id >= book_.size() || id == self_) throw std::out_of_range("impossible id");
        book_[id] = u.at("address").get<std::string>();
        peers_.erase(id);
      } catch (const std::exception& e) {
        reject("node 0", std::string("bad address update: ") + e.what());
      }
      continue;
    }
    if (m.header.type == MsgType::kRegister || m.header.type == MsgType::kAddressBook) {
      reject("node " + std::to_string(*sender), "rendezvous message after the job started");
      continue;
    }
    return m;
  }
}

void ZmqEnv::start_heartbeats(double interval_s) {
  if (book_.empty()) throw std::logic_error("start_heartbeats before the rendezvous");
  // The thread's socket is its own (ZeroMQ sockets are single-threaded); the context is shared.
  auto socket = std::make_shared<zmq::socket_t>(context_, zmq::socket_type::dealer);
  socket->set(zmq::sockopt::routing_id, std::string("h").append(std::to_string(self_)));
  socket->set(zmq::sockopt::sndhwm, 4);  // beats that cannot go out are worthless later
  socket->set(zmq::sockopt::linger, 0);
  secure_client(*socket);
  socket->connect(book_[0]);
  Message beat;
  beat.header.type = MsgType::kHeartbeat;
  beat.header.sender = self_;
  beat.header.receiver = kScheduler;
  const auto bytes = encode(beat);
  heartbeats_ = std::make_unique<HeartbeatThread>(interval_s, [socket, bytes] {
    socket->send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  });
}

double ZmqEnv::now() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ZmqEnv::sleep(double seconds) {
  std::this_thread::sleep_for(std::chrono::microseconds(static_cast<long>(seconds * 1e6)));
}

}  // namespace pstwin::net

// ZmqEnv's rendezvous: the scheduler hands out node ids and the address book, nodes register
// (or rejoin a running job after a restart). The data path is in zmq_env.cc.
#include <iostream>
#include <random>
#include <stdexcept>
#include <thread>

#include <nlohmann/json.hpp>

#include "net/handshake_watch.h"
#include "net/tcp_address.h"
#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin::net {

namespace {

/// Reads a registration's body: {"role", "address", "index" (optional; -1 or absent: any free
/// one), "rejoin" (optional bool)}. Returns whether it asks to rejoin a running job. Throws
/// ProtocolError naming the field that is missing or of the wrong type or range.
bool read_registration(const Message& m, std::string& role, std::string& address, std::int64_t& index) {
  const std::string what = "registration";
  const auto j = wire_json::parse_object(m.data, what);
  role = wire_json::string_member(j, "role", what);
  address = wire_json::string_member(j, "address", what);
  index = j.contains("index") ? wire_json::integer_member<std::int32_t>(j, "index", what) : -1;
  if (!j.contains("rejoin")) return false;
  if (!j["rejoin"].is_boolean()) throw ProtocolError(what + ": \"rejoin\" must be true or false");
  return j["rejoin"].get<bool>();
}

}  // namespace

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
    std::int64_t index = -1;
    try {
      read_registration(m, role, address, index);
    } catch (const ProtocolError& e) {
      reject(printable(who), e.what());
      continue;
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
  became(0, book, servers);
  // Time 0 of the job is the end of the rendezvous, so start-up and data loading are not counted.
  // Every address book carries the job's clock, and each node sets its own from it (see now()).
  start_ = std::chrono::steady_clock::now();
  for (NodeId id = 1; id < nodes; ++id) answer_registration(identity_of[id], id);
}

void ZmqEnv::answer_registration(const std::string& identity, NodeId id) {
  Message reply;
  reply.header.type = MsgType::kAddressBook;
  reply.header.receiver = id;
  reply.data =
      nlohmann::json{{"id", id}, {"nodes", book_}, {"servers", layout_.servers}, {"time_s", now()}}.dump();
  const auto bytes = encode(reply);
  router_.send(zmq::buffer(identity), zmq::send_flags::sndmore);
  router_.send(zmq::buffer(bytes), zmq::send_flags::none);
}

void ZmqEnv::take_back(const std::string& identity, const Message& registration) {
  std::string role, address;
  std::int64_t index = -1;
  bool rejoin = false;
  try {
    rejoin = read_registration(registration, role, address, index);
  } catch (const ProtocolError& e) {
    reject(printable(identity), e.what());
    return;
  }
  if (!rejoin) {
    refuse_registration(identity, "the job has already started with all its nodes");
    reject(printable(identity), "registration after the job started");
    return;
  }
  const std::uint32_t count = role == "server" ? layout_.servers : role == "worker" ? layout_.workers : 0;
  if (index < 0 || static_cast<std::uint32_t>(index) >= count) {
    refuse_registration(identity, "a restarted node must name its role and an index of this job");
    reject(printable(identity), "rejoin without a valid role and index");
    return;
  }
  const NodeId id = role == "server" ? layout_.server(static_cast<std::uint32_t>(index)) : layout_.worker(static_cast<std::uint32_t>(index));
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
  zmq::socket_t dealer = open_socket(context_, zmq::socket_type::dealer);
  std::random_device entropy;
  std::string identity("r");
  identity.append(std::to_string(entropy())).append(std::to_string(entropy()));
  dealer.set(zmq::sockopt::routing_id, identity);
  dealer.set(zmq::sockopt::linger, 0);
  secure_client(dealer);
  // Watched from before the connection starts, so that a failure can be told apart from silence.
  HandshakeWatch watch(context_, dealer, identity);
  const std::string scheduler = "the scheduler at " + scheduler_endpoint;
  try {
    connect_tcp(dealer, scheduler_endpoint);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot reach " + scheduler + ": " + e.what());
  }
  Message reg;
  reg.header.type = MsgType::kRegister;
  nlohmann::json body{{"role", role}, {"address", my_address}};
  if (index >= 0) body["index"] = index;
  if (rejoin) body["rejoin"] = true;
  reg.data = body.dump();
  const auto bytes = encode(reg);
  dealer.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  zmq::message_t frame;
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    zmq::pollitem_t items[] = {{dealer.handle(), 0, ZMQ_POLLIN, 0},
                               {watch.events().handle(), 0, ZMQ_POLLIN, 0}};
    zmq::poll(items, 2, std::max(left, std::chrono::milliseconds(0)));
    if ((items[0].revents & ZMQ_POLLIN) && dealer.recv(frame, zmq::recv_flags::dontwait)) break;
    switch (watch.update()) {
      case HandshakeWatch::Outcome::kKeyRefused:
        throw std::runtime_error(scheduler + " refused this node's key: it does not hold the job's "
                                 "key pair (--key-file, the same file on every node)");
      case HandshakeWatch::Outcome::kSecurityMismatch:
        throw std::runtime_error(scheduler + " and this node disagree on security: one of them runs "
                                 "with --insecure and the other with a key file");
      case HandshakeWatch::Outcome::kBrokenOff:
        throw std::runtime_error(
            scheduler + " broke off the handshake " + std::to_string(HandshakeWatch::kBrokenHandshakes) +
            " times" +
            (options_.keys ? ": it holds another key pair than this node (every node needs the job's "
                             "key file)"
                           : " (is a pstwin scheduler of this job listening there?)"));
      case HandshakeWatch::Outcome::kHandshakeFailed:
        throw std::runtime_error(scheduler + " failed the connection's handshake (is a pstwin "
                                 "scheduler of this job listening there?)");
      default:
        break;
    }
    if (left.count() <= 0) {
      const bool answered = watch.outcome() != HandshakeWatch::Outcome::kNoConnection;
      throw std::runtime_error(
          "cannot reach " + scheduler + " within " + format_seconds(timeout_s) +
          (answered ? ": it accepted the connection but did not answer the registration"
                    : ": nothing accepted a connection there (is it running, at that address?)"));
    }
  }
  const auto arrived = std::chrono::steady_clock::now();
  Message reply = decode(static_cast<const std::uint8_t*>(frame.data()), frame.size(),
                         options_.max_message_bytes);
  if (reply.header.type != MsgType::kAddressBook)
    throw ProtocolError("scheduler answered registration with " +
                        std::string(msg_type_name(reply.header.type)));
  NodeId id;
  std::vector<std::string> book;
  std::uint32_t servers;
  double job_time_s;
  {
    const std::string what = "address book from the scheduler";
    const auto j = wire_json::parse_object(reply.data, what);
    if (j.contains("error"))
      throw std::runtime_error(scheduler + " turned this node away: " + wire_json::string_member(j, "error", what));
    id = wire_json::integer_member<NodeId>(j, "id", what);
    const auto& nodes = wire_json::member(j, "nodes", what);
    if (!nodes.is_array()) throw ProtocolError(what + ": \"nodes\" must be an array");
    for (const auto& a : nodes) {
      if (!a.is_string()) throw ProtocolError(what + ": each of \"nodes\" must be an address string");
      book.push_back(a.get<std::string>());
    }
    servers = wire_json::integer_member<std::uint32_t>(j, "servers", what);
    job_time_s = wire_json::number_member(j, "time_s", what);
  }
  if (id == 0 || id >= book.size()) throw ProtocolError("address book gives an impossible id");
  if (servers >= book.size()) throw ProtocolError("address book gives more servers than nodes");
  if (!(job_time_s >= 0.0) || job_time_s > 1e9)
    throw ProtocolError("address book gives an impossible job time");
  book[kScheduler] = scheduler_endpoint;  // dial the scheduler the way this node already reached it
  became(id, std::move(book), servers);
  // The job's clock, as the scheduler read it when it answered (see now()).
  start_ = arrived - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(job_time_s));
}

}  // namespace pstwin::net

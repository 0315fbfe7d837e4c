// ZmqEnv's rendezvous, node side: register with the scheduler, read data meanwhile, then wait
// for the address book (or register again after a restart). The scheduler side is in
// zmq_rendezvous.cc, the data path in zmq_env.cc.
#include <random>
#include <stdexcept>
#include <utility>

#include <nlohmann/json.hpp>

#include "net/handshake_watch.h"
#include "net/tcp_address.h"
#include "net/zmq_env.h"
#include "net/zmq_identity.h"
#include "runtime/errors.h"
#include "runtime/wire_json.h"

namespace pstwin::net {

void ZmqEnv::join(const std::string& scheduler_endpoint, const std::string& role,
                  const std::string& my_address, double timeout_s, int index, bool rejoin) {
  register_node(scheduler_endpoint, role, my_address, timeout_s, index, rejoin);
  if (!rejoin) await_address_book(timeout_s);
}

void ZmqEnv::register_node(const std::string& scheduler_endpoint, const std::string& role,
                           const std::string& my_address, double timeout_s, int index, bool rejoin,
                           const nlohmann::json& fingerprint, bool join) {
  registration_ = std::make_unique<zmq::socket_t>(open_socket(context_, zmq::socket_type::dealer));
  zmq::socket_t& dealer = *registration_;
  std::random_device entropy;
  std::string identity("r");
  identity.append(std::to_string(entropy())).append(std::to_string(entropy()));
  dealer.set(zmq::sockopt::routing_id, identity);
  dealer.set(zmq::sockopt::linger, 0);
  secure_client(dealer);
  // Watched from before the connection starts, so that a failure can be told apart from silence.
  watch_ = std::make_unique<HandshakeWatch>(context_, dealer, identity);
  scheduler_endpoint_ = scheduler_endpoint;
  try {
    connect_tcp(dealer, scheduler_endpoint);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error("cannot reach the scheduler at " + scheduler_endpoint + ": " + e.what());
  }
  Message reg;
  reg.header.type = MsgType::kRegister;
  nlohmann::json body{{"role", role}, {"address", my_address}};
  if (index >= 0) body["index"] = index;
  if (rejoin) body["rejoin"] = true;
  if (join) body["join"] = true;  // a server the scenario declares joining, not a restart
  if (!fingerprint.is_null()) body["fingerprint"] = fingerprint;
  reg.data = body.dump();
  const auto bytes = encode(reg);
  dealer.send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  const Message reply = await_reply(deadline, timeout_s, "did not answer the registration");
  if (rejoin || join) return;  // a running job answers with the address book
  const auto answer = wire_json::parse_object(reply.data, "answer to the registration");
  if (!answer.contains("accepted") || answer["accepted"] != true)
    throw ProtocolError("the scheduler answered the registration with neither acceptance nor error");
}

void ZmqEnv::await_address_book(double timeout_s) {
  if (!registration_) throw std::logic_error("await_address_book before register_node");
  Message ready;
  ready.header.type = MsgType::kRegister;
  ready.data = nlohmann::json{{"ready", true}}.dump();
  const auto bytes = encode(ready);
  registration_->send(zmq::buffer(bytes), zmq::send_flags::dontwait);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::microseconds(static_cast<long>(timeout_s * 1e6));
  await_reply(deadline, timeout_s, "did not send the address book (the other nodes still reading data?)");
  if (ucx_) reach_ucx_peers();
}

void ZmqEnv::report_not_ready(const std::string& why) {
  if (!registration_) return;
  Message failed;
  failed.header.type = MsgType::kRegister;
  failed.data = nlohmann::json{{"ready", false}, {"error", why}}.dump();
  const auto bytes = encode(failed);
  registration_->set(zmq::sockopt::linger, 1000);  // this process is about to exit: let it go out
  registration_->send(zmq::buffer(bytes), zmq::send_flags::dontwait);
}

Message ZmqEnv::await_reply(std::chrono::steady_clock::time_point deadline, double timeout_s,
                            const std::string& waiting_for) {
  zmq::socket_t& dealer = *registration_;
  HandshakeWatch& watch = *watch_;
  const std::string scheduler = "the scheduler at " + scheduler_endpoint_;
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
          (answered ? ": it accepted the connection but " + waiting_for
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
  nlohmann::json model;
  {
    const std::string what = "address book from the scheduler";
    const auto j = wire_json::parse_object(reply.data, what);
    if (j.contains("error"))
      throw RegistrationRefused(scheduler + " turned this node away: " + wire_json::string_member(j, "error", what));
    if (j.contains("accepted")) return reply;
    id = wire_json::integer_member<NodeId>(j, "id", what);
    const auto& nodes = wire_json::member(j, "nodes", what);
    if (!nodes.is_array()) throw ProtocolError(what + ": \"nodes\" must be an array");
    for (const auto& a : nodes) {
      if (!a.is_string()) throw ProtocolError(what + ": each of \"nodes\" must be an address string");
      book.push_back(a.get<std::string>());
    }
    servers = wire_json::integer_member<std::uint32_t>(j, "servers", what);
    job_time_s = wire_json::number_member(j, "time_s", what);
    model = j.value("model", nlohmann::json::object());
  }
  if (id == 0 || id >= book.size()) throw ProtocolError("address book gives an impossible id");
  if (servers >= book.size()) throw ProtocolError("address book gives more servers than nodes");
  if (!(job_time_s >= 0.0) || job_time_s > 1e9)
    throw ProtocolError("address book gives an impossible job time");
  if (!model.is_object()) throw ProtocolError("address book gives a model shape that is not an object");
  // Dial the scheduler the way this node already reached it; judge its frames' checksum by the
  // entry it wrote itself, as it does (ZmqEnv::checksum_with).
  std::string scheduler_entry = std::exchange(book[kScheduler], scheduler_endpoint_);
  became(id, std::move(book), servers, std::move(scheduler_entry));
  model_shape_ = std::move(model);
  // The job's clock, as the scheduler read it when it answered (see now()).
  start_ = arrived - std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                         std::chrono::duration<double>(job_time_s));
  watch_.reset();
  registration_.reset();
  return reply;
}

}  // namespace pstwin::net

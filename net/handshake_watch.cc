#include "net/handshake_watch.h"

#include <cstdint>
#include <cstring>

#include "net/tcp_address.h"

namespace pstwin::net {

HandshakeWatch::HandshakeWatch(zmq::context_t& context, zmq::socket_t& socket, const std::string& name)
    : socket_(socket) {
  const std::string address = "inproc://pstwin-watch-" + name;
  if (zmq_socket_monitor(socket.handle(), address.c_str(),
                         ZMQ_EVENT_CONNECTED | ZMQ_EVENT_HANDSHAKE_SUCCEEDED |
                             ZMQ_EVENT_HANDSHAKE_FAILED_AUTH | ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL |
                             ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL) != 0)
    throw zmq::error_t();
  events_ = open_socket(context, zmq::socket_type::pair);
  events_.set(zmq::sockopt::linger, 0);
  events_.connect(address);
}

HandshakeWatch::~HandshakeWatch() { zmq_socket_monitor(socket_.handle(), nullptr, 0); }

HandshakeWatch::Outcome HandshakeWatch::update() {
  for (;;) {
    // An event is two frames: 16-bit event and 32-bit value (host byte order), then the address.
    zmq::message_t head, address;
    if (!events_.recv(head, zmq::recv_flags::dontwait)) return outcome_;
    if (head.more()) (void)events_.recv(address, zmq::recv_flags::none);
    if (head.size() < 6 || refused()) continue;
    std::uint16_t event = 0;
    std::int32_t value = 0;
    std::memcpy(&event, head.data(), sizeof event);
    std::memcpy(&value, static_cast<const char*>(head.data()) + sizeof event, sizeof value);
    switch (event) {
      case ZMQ_EVENT_CONNECTED:
        if (outcome_ < Outcome::kConnected) outcome_ = Outcome::kConnected;
        break;
      case ZMQ_EVENT_HANDSHAKE_SUCCEEDED:
        outcome_ = Outcome::kAdmitted;
        break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_AUTH:
        outcome_ = Outcome::kKeyRefused;
        break;
      case ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL:
        outcome_ = value == ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH ? Outcome::kSecurityMismatch
                                                                      : Outcome::kHandshakeFailed;
        break;
      default:  // ZMQ_EVENT_HANDSHAKE_FAILED_NO_DETAIL: the peer broke the handshake off
        if (outcome_ != Outcome::kAdmitted && ++broken_ >= kBrokenHandshakes) outcome_ = Outcome::kBrokenOff;
        break;
    }
  }
}

}  // namespace pstwin::net

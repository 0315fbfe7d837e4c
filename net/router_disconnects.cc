#include "net/router_disconnects.h"

#include <cstdint>
#include <cstring>

#include "net/tcp_address.h"

namespace pstwin::net {

RouterDisconnects::RouterDisconnects(zmq::context_t& context, zmq::socket_t& router, const std::string& name)
    : router_(router) {
  const std::string address = "inproc://pstwin-disconnects-" + name;
  if (zmq_socket_monitor(router.handle(), address.c_str(), ZMQ_EVENT_DISCONNECTED) != 0) throw zmq::error_t();
  events_ = open_socket(context, zmq::socket_type::pair);
  events_.set(zmq::sockopt::linger, 0);
  events_.connect(address);
}

RouterDisconnects::~RouterDisconnects() { zmq_socket_monitor(router_.handle(), nullptr, 0); }

std::vector<int> RouterDisconnects::take() {
  std::vector<int> lost;
  for (;;) {
    // An event is two frames: 16-bit event and 32-bit value (the descriptor), then the address.
    zmq::message_t head, address;
    if (!events_.recv(head, zmq::recv_flags::dontwait)) return lost;
    if (head.more()) (void)events_.recv(address, zmq::recv_flags::none);
    if (head.size() < 6) continue;
    std::uint16_t event = 0;
    std::int32_t fd = -1;
    std::memcpy(&event, head.data(), sizeof event);
    std::memcpy(&fd, static_cast<const char*>(head.data()) + sizeof event, sizeof fd);
    if (event == ZMQ_EVENT_DISCONNECTED) lost.push_back(fd);
  }
}

int source_connection(const zmq::message_t& m) {
  return zmq_msg_get(const_cast<zmq_msg_t*>(m.handle()), ZMQ_SRCFD);
}

}  // namespace pstwin::net

#include "net/router_receive.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace pstwin::net {

std::optional<RoutedMessage> receive_routed(zmq::socket_t& router, double timeout_s) {
  // Up to INT_MAX ms (24 days): ZMQ_RCVTIMEO is an int, and -1 would mean forever.
  const double ms = std::ceil(std::max(timeout_s, 0.0) * 1e3);
  router.set(zmq::sockopt::rcvtimeo, ms >= INT_MAX ? INT_MAX : static_cast<int>(ms));
  RoutedMessage m;
  if (!router.recv(m.identity)) return std::nullopt;  // the time is up
  // A message's frames arrive together: once the first is here, the rest are too.
  bool more = m.identity.more();
  zmq::message_t extra;
  while (more) {
    zmq::message_t& into = m.frames == 0 ? m.payload : m.frames == 1 ? m.second : extra;
    if (!router.recv(into, zmq::recv_flags::dontwait)) break;
    ++m.frames;
    more = into.more();
  }
  return m;
}

}  // namespace pstwin::net

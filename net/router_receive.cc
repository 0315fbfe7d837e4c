#include "net/router_receive.h"

#include <algorithm>
#include <climits>
#include <cmath>

namespace pstwin::net {

RoutedMessage take_routed_frames(zmq::socket_t& router, zmq::message_t identity, std::size_t max_frames) {
  RoutedMessage m;
  m.identity = std::move(identity);
  // A message's frames arrive together: once the first is here, the rest are too.
  bool more = m.identity.more();
  zmq::message_t extra;
  while (more) {
    const bool kept = m.frames < max_frames;
    if (kept && m.frames > 0) m.rest.emplace_back();
    zmq::message_t& into = !kept ? extra : m.frames == 0 ? m.payload : m.rest.back();
    if (!router.recv(into, zmq::recv_flags::dontwait)) {
      if (kept && m.frames > 0) m.rest.pop_back();
      break;
    }
    ++m.frames;
    more = into.more();
  }
  return m;
}

std::optional<RoutedMessage> receive_routed(zmq::socket_t& router, double timeout_s, std::size_t max_frames) {
  // Up to INT_MAX ms (24 days): ZMQ_RCVTIMEO is an int, and -1 would mean forever.
  const double ms = std::ceil(std::max(timeout_s, 0.0) * 1e3);
  router.set(zmq::sockopt::rcvtimeo, ms >= INT_MAX ? INT_MAX : static_cast<int>(ms));
  zmq::message_t identity;
  if (!router.recv(identity)) return std::nullopt;  // the time is up
  return take_routed_frames(router, std::move(identity), max_frames);
}

}  // namespace pstwin::net

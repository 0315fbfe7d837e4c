// RouterDisconnects: the connections a ROUTER loses, from its socket monitor, so that a values
// stream whose sender went away mid-message is dropped rather than held (net/values_stream.h).
#pragma once

#include <string>
#include <vector>

#include <zmq.hpp>

namespace pstwin::net {

class RouterDisconnects {
 public:
  /// Starts watching `router` (open until this is destroyed). `name` must be unique in `context`
  /// (it names the monitor's inproc endpoint). Throws zmq::error_t if ZeroMQ cannot monitor it.
  RouterDisconnects(zmq::context_t& context, zmq::socket_t& router, const std::string& name);
  /// Stops the monitor; the router must still be open.
  ~RouterDisconnects();
  RouterDisconnects(const RouterDisconnects&) = delete;
  RouterDisconnects& operator=(const RouterDisconnects&) = delete;

  /// The descriptors of the connections lost since the last call (as a received message's
  /// ZMQ_SRCFD names its connection), oldest first. Never waits.
  std::vector<int> take();

 private:
  zmq::socket_t& router_;
  zmq::socket_t events_;
};

/// The descriptor of the connection `m` came over (ZMQ_SRCFD), or -1 when ZeroMQ does not say.
int source_connection(const zmq::message_t& m);

}  // namespace pstwin::net

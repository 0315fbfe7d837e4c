// A scheduler and one server over ZeroMQ after the rendezvous, and a socket posing as the
// scheduler that sends the server raw parts: for tests of what a ZmqEnv takes off the wire.
#pragma once

#include <cstdint>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include <zmq.hpp>

#include "net/tcp_address.h"
#include "net/zmq_env.h"
#include "tests/null_sink.h"

namespace pstwin::net::testing_support {

struct SchedulerAndServer {
  /// The scheduler listens at `scheduler_bind` (on loopback: the two are nodes of one machine; at
  /// "*", as under launch --hostfile, its entry names no machine, so their frames carry the
  /// checksum as between machines); the server, on loopback, dials it at `dial_host`.
  explicit SchedulerAndServer(const std::string& scheduler_bind, const std::string& dial_host = "127.0.0.1") {
    ZmqOptions o;
    o.linger_s = 0;
    ZmqOptions at = o;
    at.bind_endpoint = scheduler_bind;
    scheduler = std::make_unique<ZmqEnv>(at, 1, sink);
    server = std::make_unique<ZmqEnv>(o, 1, sink);
    auto hosting = std::async(std::launch::async, [&] { scheduler->host_registration(1, 0, 10.0); });
    server->join(tcp_endpoint(dial_host, parse_tcp_endpoint(scheduler->endpoint()).port), "server",
                 server->endpoint(), 10.0);
    hosting.get();
  }

  /// Sends `parts` as one message to the server from a socket posing as the scheduler (identity
  /// n0), so they get past the identity check (the scheduler itself then cannot connect to the
  /// server: the identity is taken).
  void send_as_scheduler(const std::vector<std::vector<std::uint8_t>>& parts) {
    if (!posing) {
      poser.set(zmq::sockopt::routing_id, "n0");
      poser.set(zmq::sockopt::linger, 0);
      poser.connect(server->endpoint());
      posing = true;
    }
    for (std::size_t i = 0; i < parts.size(); ++i)
      poser.send(zmq::buffer(parts[i]), i + 1 < parts.size() ? zmq::send_flags::sndmore : zmq::send_flags::none);
  }

  pstwin::testing_support::NullSink sink;
  std::unique_ptr<ZmqEnv> scheduler, server;
  zmq::context_t ctx;
  zmq::socket_t poser{ctx, zmq::socket_type::dealer};
  bool posing = false;
};

}  // namespace pstwin::net::testing_support

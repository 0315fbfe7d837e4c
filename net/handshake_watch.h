// HandshakeWatch: what became of the connection a socket dials (ZeroMQ's socket monitor), so
// that a node that cannot register says why: nothing answered, its key was refused, or the two
// ends disagree on security.
#pragma once

#include <string>

#include <zmq.hpp>

namespace pstwin::net {

class HandshakeWatch {
 public:
  /// Handshakes broken off in a row after which the watch calls it kBrokenOff (ZeroMQ retries
  /// every 100 ms by default, so this takes a few tenths of a second).
  static constexpr int kBrokenHandshakes = 3;

  /// How far the connection got; later values mean further, except that the three refusals are
  /// final.
  enum class Outcome {
    kNoConnection,      ///< no TCP connection yet (nothing listening, unreachable, still trying)
    kConnected,         ///< TCP connected, the ZeroMQ handshake not finished
    kAdmitted,          ///< handshake done: the peer took this node in
    kKeyRefused,        ///< the peer's authentication (ZAP) refused this node's CURVE key
    kSecurityMismatch,  ///< one end uses CURVE and the other none (--insecure on one side only)
    /// The peer broke the connection off during the handshake kBrokenHandshakes times and never
    /// completed one: under CURVE, what a peer holding another key pair does (it cannot read
    /// this node's greeting).
    kBrokenOff,
    kHandshakeFailed,   ///< another protocol failure in the handshake (not a pstwin node, ...)
  };

  /// Starts watching `socket`, which must not have connected yet. `name` must be unique in
  /// `context` (it names the monitor's inproc endpoint). Throws zmq::error_t if ZeroMQ cannot
  /// monitor the socket.
  HandshakeWatch(zmq::context_t& context, zmq::socket_t& socket, const std::string& name);
  /// Stops the monitor; `socket` must still be open.
  ~HandshakeWatch();
  HandshakeWatch(const HandshakeWatch&) = delete;
  HandshakeWatch& operator=(const HandshakeWatch&) = delete;

  /// The socket the events arrive on, to poll for ZMQ_POLLIN beside others.
  zmq::socket_t& events() { return events_; }
  /// Reads every event that has arrived, without waiting, and returns the outcome so far.
  Outcome update();
  Outcome outcome() const { return outcome_; }
  /// Whether the outcome is a refusal that trying again will not change.
  bool refused() const { return outcome_ >= Outcome::kKeyRefused; }

 private:
  zmq::socket_t& socket_;
  zmq::socket_t events_;
  Outcome outcome_ = Outcome::kNoConnection;
  int broken_ = 0;
};

}  // namespace pstwin::net

// Taking one routed message off a ROUTER socket in a blocking recv: the receive half of ZmqEnv's
// data path (DESIGN.md, "The hot path").
#pragma once

#include <cstddef>
#include <optional>

#include <zmq.hpp>

namespace pstwin::net {

/// One message as a ROUTER delivers it: the sender's routing identity, its first two frames
/// after the identity (a pstwin message's header part and, when it has values, its values part:
/// wire version 6), and how many frames followed the identity (1 or 2 for every message a pstwin
/// node sends; any other count is the sender's error, and the frames after the second were
/// discarded).
struct RoutedMessage {
  zmq::message_t identity;
  zmq::message_t payload;
  zmq::message_t second;
  std::size_t frames = 0;
};

/// The next message `router` holds, waiting for it at most timeout_s seconds (>= 0; rounded up to
/// a whole millisecond, ZeroMQ's unit, so that a wait never turns into a loop of zero-length ones)
/// in a blocking recv: it returns as soon as the message is there, and nullopt once the time is
/// up. Sets the socket's ZMQ_RCVTIMEO. Why not zmq_poll and a non-blocking recv: the blocking recv
/// waits on the socket's own mailbox, one system call less per message, the wait plain ZeroMQ
/// code does. REQUIRES: `router` is a ROUTER, used by this thread only. Throws zmq::error_t as
/// recv does (a closed context, an interrupted wait).
std::optional<RoutedMessage> receive_routed(zmq::socket_t& router, double timeout_s);

}  // namespace pstwin::net

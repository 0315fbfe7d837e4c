// Taking one routed message off a ROUTER socket in a blocking recv: the receive half of ZmqEnv's
// data path (DESIGN.md, "The hot path").
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include <zmq.hpp>

namespace pstwin::net {

/// One message as a ROUTER delivers it: the sender's routing identity, its first frame after the
/// identity (a pstwin message's header part), the frames after that (its values parts: wire
/// version 7), at most max_frames - 1 of them, and how many frames followed the identity in all
/// (frames past max_frames were discarded: the sender's error).
struct RoutedMessage {
  zmq::message_t identity;
  zmq::message_t payload;
  std::vector<zmq::message_t> rest;
  std::size_t frames = 0;
};

/// The next message `router` holds, waiting for it at most timeout_s seconds (>= 0; rounded up to
/// a whole millisecond, ZeroMQ's unit, so that a wait never turns into a loop of zero-length ones)
/// in a blocking recv: it returns as soon as the message is there, and nullopt once the time is
/// up. Sets the socket's ZMQ_RCVTIMEO. Why not zmq_poll and a non-blocking recv: the blocking recv
/// waits on the socket's own mailbox, one system call less per message, the wait plain ZeroMQ
/// code does. REQUIRES: `router` is a ROUTER, used by this thread only; max_frames >= 1. Throws
/// zmq::error_t as recv does (a closed context, an interrupted wait).
std::optional<RoutedMessage> receive_routed(zmq::socket_t& router, double timeout_s, std::size_t max_frames = 2);

/// Takes the frames of a message whose identity frame (`identity`, whose `more` flag is read)
/// was just received: the rest of a RoutedMessage, with the same bound. Never waits: a message's
/// frames arrive together.
RoutedMessage take_routed_frames(zmq::socket_t& router, zmq::message_t identity, std::size_t max_frames);

}  // namespace pstwin::net

// The largest message a node sends or takes (ZmqOptions::max_message_bytes, 1 GiB by default),
// on both ends: a sender refuses a larger one with an error naming it, and a receiver drops one
// with a line naming its size and sender, counted as the other wire-safety drops are.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "net/zmq_parts.h"
#include "runtime/message.h"

namespace pstwin::net {

/// ZeroMQ's own per-part limit (ZMQ_MAXMSGSIZE) for a ROUTER that takes messages of at most
/// `max_message_bytes`: twice that, saturating. ZeroMQ cuts a connection over its limit without
/// telling the socket's owner; between the two limits a part reaches oversize_parts(), which says
/// so. Returns -1 (no limit) when twice does not fit an int64.
std::int64_t zmq_part_limit(std::size_t max_message_bytes);

/// Why a received message is over `max_message_bytes` ("N bytes, over the M-byte message
/// limit"), or nullopt when it is not. Looks at the parts' sizes only, before any decoding.
std::optional<std::string> oversize_parts(const ReceivedParts& parts, std::size_t max_message_bytes);

/// The error a sender throws instead of sending `msg` of `size` bytes over `max_message_bytes`:
/// names the message type, sender, receiver, key range, size and limit, and the fix (more
/// servers, so that each key range is smaller).
std::string oversize_send_error(const Message& msg, std::size_t size, std::size_t max_message_bytes);

}  // namespace pstwin::net

// Names ZmqEnv gives nodes on the wire (socket identities) and the small conversions its files
// share: the data path (zmq_env.cc) and the rendezvous (zmq_rendezvous.cc).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "runtime/message.h"

namespace pstwin::net {

/// The scheduler's node id in every job (runtime/message.h, NodeId).
inline constexpr NodeId kScheduler = 0;

/// Seconds as ZeroMQ's millisecond socket options take them (truncated).
int to_ms(double seconds);

/// "5 s", "0.5 s": seconds as people write them.
std::string format_seconds(double s);

/// The data socket identity of node `id`: "n<id>".
std::string node_identity(NodeId id);

/// The node id in a data identity "n<id>" (or, with prefix 'h', a heartbeat identity "h<id>"),
/// or nullopt for anything else (no digits, not decimal, above 2^32 - 1).
std::optional<NodeId> parse_node_identity(const std::string& identity, char prefix = 'n');

/// Printable form of an identity that may hold arbitrary bytes: its first 32 bytes, '?' for
/// each byte outside printable ASCII.
std::string printable(const std::string& s);

}  // namespace pstwin::net

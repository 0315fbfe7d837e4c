// A node's entry in the job's address book: its ZeroMQ endpoint and, under --transport ucx, its
// UCX worker address (DESIGN.md, "The real environments").
#pragma once

#include <string>

namespace pstwin::net {

/// A node's address in the address book: its ZeroMQ endpoint and, under UCX, its worker address:
/// "tcp://HOST:PORT" or "tcp://HOST:PORT#ucx=HEX".
struct NodeAddress {
  std::string zmq;  ///< "tcp://HOST:PORT"
  std::string ucx;  ///< hex worker address; empty when the node runs no UCX
};
/// Splits an address book entry (see NodeAddress). Never throws (but for std::bad_alloc): an
/// entry without "#ucx=" is all ZeroMQ endpoint, whatever it holds.
NodeAddress split_node_address(const std::string& address);
/// Joins them again ("tcp://...#ucx=HEX"; just `zmq` when `ucx` is empty).
std::string join_node_address(const NodeAddress& address);

}  // namespace pstwin::net

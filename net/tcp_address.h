// Addresses of ZeroMQ's tcp:// transport as pstwin uses them: parsed with clear errors, host
// names resolved here (so that a name that does not resolve says so), IPv4 and IPv6 alike.
#pragma once

#include <string>

#include <zmq.hpp>

namespace pstwin::net {

/// A "tcp://HOST:PORT" endpoint, split.
struct TcpEndpoint {
  std::string host;  ///< a name, an IPv4 address, an IPv6 address (without its brackets) or "*"
  std::string port;  ///< 1..65535, or "*" (any free port, when binding)
};

/// Splits "tcp://HOST:PORT". HOST is a name, an IPv4 address, an IPv6 address in brackets
/// ("[::1]") or "*" (every interface); PORT is 1..65535 or "*". Throws std::invalid_argument
/// saying what is wrong, without repeating the endpoint, e.g. for "tcp://::1:5570": "put IPv6
/// literals in brackets, as in tcp://[::1]:5570".
TcpEndpoint parse_tcp_endpoint(const std::string& endpoint);

/// `host`'s first IPv4 address, else its first IPv6 one, written numerically. IPv4 first because
/// that is what a node listening at "*" or at an IPv4 address accepts, and what ZeroMQ dialled
/// before pstwin turned IPv6 on. Throws std::runtime_error "cannot resolve host H (why)".
std::string resolve_host(const std::string& host);

/// "tcp://HOST:PORT", with an IPv6 address in brackets ("::1" and "[::1]" both give "[::1]").
std::string tcp_endpoint(const std::string& host, const std::string& port);

/// Whether `host` (brackets allowed) is a loopback address or "localhost".
bool is_loopback_host(const std::string& host);

/// Whether `host` (brackets allowed) is an IPv6 address.
bool is_ipv6_host(const std::string& host);

/// A socket of `type` that speaks IPv6 as well as IPv4 (ZMQ_IPV6: without it ZeroMQ refuses IPv6
/// addresses with "No such device"). Every socket pstwin opens comes from here.
zmq::socket_t open_socket(zmq::context_t& context, zmq::socket_type type);

/// Binds `socket` to `endpoint` and returns the endpoint it listens at, port resolved, an IPv4
/// address written as IPv4 ("tcp://127.0.0.1:41234", not ZeroMQ's "[::ffff:127.0.0.1]"). HOST may
/// also be an interface name ("eth0") or a host name (bound at its address: its first IPv4 one,
/// else its first IPv6 one). Throws std::runtime_error "cannot listen at ENDPOINT: " followed by
/// one of: the parse error above; "cannot resolve host H (why)"; "H is not an address of this
/// machine"; "address already in use (another job or node is there)"; ZeroMQ's own message.
std::string bind_tcp(zmq::socket_t& socket, const std::string& endpoint);

/// Connects `socket` to `endpoint`, a host name resolved here to its first IPv4 address, else its
/// first IPv6 one (the family a node listening at the default "*" or at an IPv4 address accepts;
/// ZeroMQ would dial the IPv6 one first). Throws std::runtime_error with the parse error above, or
/// "cannot resolve host H (why)", or "a port of * cannot be dialled".
void connect_tcp(zmq::socket_t& socket, const std::string& endpoint);

}  // namespace pstwin::net

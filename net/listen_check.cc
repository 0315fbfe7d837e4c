#include "net/listen_check.h"

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include <zmq.hpp>

#include "net/tcp_address.h"

namespace pstwin::net {

namespace {
constexpr const char* kHostAlone = ": give the host alone";
}  // namespace

std::string host_only_error(const std::string& host) {
  if (host.empty()) return "empty: give an address, an interface or a host name (* for every interface)";
  if (std::any_of(host.begin(), host.end(), [](unsigned char c) { return std::isspace(c); }))
    return "white space in a host";
  if (host.find("://") != std::string::npos) return "an endpoint, not a host" + std::string(kHostAlone);
  if (host == "*" || is_ipv6_host(host)) return "";
  if (host.front() == '[') {
    const auto close = host.find(']');
    if (close == std::string::npos) return "'[' without ']' around an IPv6 address";
    const std::string inner = host.substr(1, close - 1);
    if (!is_ipv6_host(inner)) return "[" + inner + "] is not an IPv6 address";
    return "a port ('" + host.substr(close + 1 + (close + 1 < host.size())) + "') does not belong there" + kHostAlone;
  }
  if (const auto colon = host.rfind(':'); colon != std::string::npos)
    return "a port ('" + host.substr(colon + 1) + "') does not belong there" + kHostAlone;
  return "";
}

std::string dial_host_error(const std::string& host) {
  if (host.empty()) return "empty: give a name or address other machines reach this one by";
  if (std::string why = host_only_error(host); !why.empty()) return why;
  if (host == "*") return "* names no machine to dial: give this machine's name or address";
  const bool bracketed = host.front() == '[';
  try {
    resolve_host(bracketed ? host.substr(1, host.size() - 2) : host);
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

void check_listen_here(const std::string& endpoint) {
  zmq::context_t context(1);
  zmq::socket_t socket = open_socket(context, zmq::socket_type::router);
  socket.set(zmq::sockopt::linger, 0);
  try {
    bind_tcp(socket, endpoint);
  } catch (const std::runtime_error& e) {
    throw std::invalid_argument(e.what());
  }
}

}  // namespace pstwin::net

#include "net/tcp_address.h"

#include <arpa/inet.h>
#include <net/if.h>
#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <memory>
#include <stdexcept>

namespace pstwin::net {

namespace {

constexpr const char* kScheme = "tcp://";

std::string without_brackets(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
  return host;
}

/// Whether `host` is written as a numeric address (IPv4, or IPv6 with an optional %scope).
bool is_numeric(const std::string& host) {
  addrinfo hints{};
  hints.ai_flags = AI_NUMERICHOST;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (getaddrinfo(host.c_str(), nullptr, &hints, &found) != 0) return false;
  freeaddrinfo(found);
  return true;
}

/// An IPv4 address as ZeroMQ reports it on an IPv6 socket ("::ffff:127.0.0.1"), as IPv4.
std::string unmapped(const std::string& host) {
  const std::string prefix = "::ffff:";
  if (host.rfind(prefix, 0) != 0) return host;
  const std::string v4 = host.substr(prefix.size());
  in_addr a{};
  return inet_pton(AF_INET, v4.c_str(), &a) == 1 ? v4 : host;
}

}  // namespace

std::string resolve_host(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int rc = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (rc != 0)
    throw std::runtime_error("cannot resolve host " + host + " (" +
                             (rc == EAI_SYSTEM ? std::string(std::strerror(errno)) : gai_strerror(rc)) + ")");
  std::unique_ptr<addrinfo, decltype(&freeaddrinfo)> owner(found, &freeaddrinfo);
  const addrinfo* chosen = nullptr;
  for (const addrinfo* a = found; a && !chosen; a = a->ai_next)
    if (a->ai_family == AF_INET) chosen = a;
  for (const addrinfo* a = found; a && !chosen; a = a->ai_next)
    if (a->ai_family == AF_INET6) chosen = a;
  if (!chosen) throw std::runtime_error("cannot resolve host " + host + " (no IPv4 or IPv6 address)");
  char text[NI_MAXHOST] = {};
  if (getnameinfo(chosen->ai_addr, chosen->ai_addrlen, text, sizeof text, nullptr, 0, NI_NUMERICHOST) != 0)
    throw std::runtime_error("cannot resolve host " + host + " (its address cannot be written)");
  return text;
}

TcpEndpoint parse_tcp_endpoint(const std::string& endpoint) {
  if (endpoint.empty()) throw std::invalid_argument("empty: give tcp://HOST:PORT");
  if (endpoint.rfind(kScheme, 0) != 0)
    throw std::invalid_argument("must look like tcp://HOST:PORT");
  const std::string rest = endpoint.substr(std::string(kScheme).size());
  TcpEndpoint e;
  std::string after_host;
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) throw std::invalid_argument("'[' without ']' around the IPv6 address");
    e.host = rest.substr(1, close - 1);
    if (!is_ipv6_host(e.host)) throw std::invalid_argument("[" + e.host + "] is not an IPv6 address");
    after_host = rest.substr(close + 1);
  } else {
    const auto colon = rest.rfind(':');
    if (colon == std::string::npos) throw std::invalid_argument("no port: must look like tcp://HOST:PORT");
    e.host = rest.substr(0, colon);
    after_host = rest.substr(colon);
    if (e.host.find(':') != std::string::npos)
      throw std::invalid_argument("put IPv6 literals in brackets, as in " +
                                  tcp_endpoint(e.host, after_host.substr(1)));
  }
  if (e.host.empty()) throw std::invalid_argument("no host (* listens on every interface)");
  if (after_host.size() < 2 || after_host.front() != ':')
    throw std::invalid_argument("no port: must look like tcp://HOST:PORT");
  e.port = after_host.substr(1);
  if (e.port != "*") {
    const bool digits = e.port.size() <= 5 &&
                        std::all_of(e.port.begin(), e.port.end(), [](char c) { return c >= '0' && c <= '9'; });
    if (!digits || std::stoi(e.port) < 1 || std::stoi(e.port) > 65535)
      throw std::invalid_argument("port '" + e.port + "' is not 1..65535 or *");
  }
  return e;
}

std::string tcp_endpoint(const std::string& host, const std::string& port) {
  const std::string bare = without_brackets(host);
  const bool v6 = bare.find(':') != std::string::npos;
  return kScheme + (v6 ? "[" + bare + "]" : bare) + ":" + port;
}

bool is_loopback_host(const std::string& host) {
  const std::string bare = without_brackets(host);
  if (bare == "localhost") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, bare.c_str(), &v4) == 1) return (ntohl(v4.s_addr) >> 24) == 127;
  in6_addr v6{};
  return inet_pton(AF_INET6, bare.c_str(), &v6) == 1 && IN6_IS_ADDR_LOOPBACK(&v6);
}

bool is_ipv6_host(const std::string& host) {
  const std::string bare = without_brackets(host);
  return bare.find(':') != std::string::npos && is_numeric(bare);
}

zmq::socket_t open_socket(zmq::context_t& context, zmq::socket_type type) {
  zmq::socket_t s(context, type);
  s.set(zmq::sockopt::ipv6, true);
  return s;
}

std::string bind_tcp(zmq::socket_t& socket, const std::string& endpoint) {
  const std::string failed = "cannot listen at " + endpoint + ": ";
  TcpEndpoint e;
  std::string address;  // what ZeroMQ binds: "*", a numeric address or an interface name
  try {
    e = parse_tcp_endpoint(endpoint);
    // ZeroMQ binds numeric addresses and interface names only: a host name is resolved here.
    const bool as_is = e.host == "*" || is_numeric(e.host) || if_nametoindex(e.host.c_str()) != 0;
    address = as_is ? e.host : resolve_host(e.host);
  } catch (const std::exception& error) {
    throw std::runtime_error(failed + error.what());
  }
  try {
    socket.bind(tcp_endpoint(address, e.port));
  } catch (const zmq::error_t& error) {
    if (error.num() == EADDRINUSE)
      throw std::runtime_error(failed + "address already in use (another job or node is there)");
    if (error.num() == EADDRNOTAVAIL)
      throw std::runtime_error(failed + e.host + (address == e.host ? "" : " (" + address + ")") +
                               " is not an address of this machine");
    throw std::runtime_error(failed + error.what());
  }
  const TcpEndpoint bound = parse_tcp_endpoint(socket.get(zmq::sockopt::last_endpoint));
  return tcp_endpoint(unmapped(bound.host), bound.port);
}

void connect_tcp(zmq::socket_t& socket, const std::string& endpoint) {
  TcpEndpoint e;
  try {
    e = parse_tcp_endpoint(endpoint);
  } catch (const std::invalid_argument& error) {
    throw std::runtime_error(endpoint + ": " + error.what());
  }
  if (e.port == "*") throw std::runtime_error(endpoint + ": a port of * cannot be dialled");
  socket.connect(tcp_endpoint(is_numeric(e.host) ? e.host : resolve_host(e.host), e.port));
}

}  // namespace pstwin::net

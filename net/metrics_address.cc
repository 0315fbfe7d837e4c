#include "net/metrics_address.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "net/live_metrics.h"

namespace pstwin::net {

void check_metrics_address_here(const std::string& address) {
  const auto [host, port] = parse_metrics_address(address);
  const auto bad = [&](const std::string& why) {
    return std::invalid_argument("metrics address '" + address + "': " + why);
  };
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE;
  addrinfo* found = nullptr;
  const std::string service = std::to_string(port);
  if (const int rc = ::getaddrinfo(host.c_str(), service.c_str(), &hints, &found); rc != 0)
    throw bad("cannot resolve host " + host + " (" + ::gai_strerror(rc) + ")");
  // Bind as the server will (SO_REUSEADDR, which lets a port in TIME_WAIT be bound again).
  int error = 0;
  for (addrinfo* a = found; a; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) {
      error = errno;
      continue;
    }
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    const bool bound = ::bind(fd, a->ai_addr, a->ai_addrlen) == 0;
    error = bound ? 0 : errno;
    ::close(fd);
    if (bound) break;
  }
  ::freeaddrinfo(found);
  if (error == 0) return;
  if (error == EADDRNOTAVAIL) throw bad("no interface of this machine has address " + host);
  if (error == EADDRINUSE) throw bad("port " + service + " is taken (another job or program serves there)");
  throw bad(std::string("cannot listen there: ") + std::strerror(error));
}

}  // namespace pstwin::net

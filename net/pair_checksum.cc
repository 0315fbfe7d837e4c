#include "net/pair_checksum.h"

#include <arpa/inet.h>

#include <stdexcept>

#include "net/node_address.h"
#include "net/tcp_address.h"

namespace pstwin::net {
namespace {

// A host that names every interface rather than one machine: "*" as given, or the unspecified
// address ZeroMQ reports for a socket bound to "*" (a scheduler's own entry is what it bound).
bool names_every_interface(const std::string& host) {
  if (host == "*") return true;
  in_addr v4{};
  if (inet_pton(AF_INET, host.c_str(), &v4) == 1) return v4.s_addr == INADDR_ANY;
  in6_addr v6{};
  return inet_pton(AF_INET6, host.c_str(), &v6) == 1 && IN6_IS_ADDR_UNSPECIFIED(&v6);
}

}  // namespace

FrameChecksum pair_frame_checksum(const std::string& self_address, const std::string& peer_address) {
  try {
    const std::string a = parse_tcp_endpoint(split_node_address(self_address).zmq).host;
    const std::string b = parse_tcp_endpoint(split_node_address(peer_address).zmq).host;
    if (names_every_interface(a) || names_every_interface(b)) return FrameChecksum::kVerify;
    const bool one_machine = a == b || (is_loopback_host(a) && is_loopback_host(b));
    return one_machine ? FrameChecksum::kSkip : FrameChecksum::kVerify;
  } catch (const std::invalid_argument&) {
    return FrameChecksum::kVerify;
  }
}

}  // namespace pstwin::net

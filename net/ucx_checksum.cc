#include "net/ucx_checksum.h"

#include <stdexcept>

#include "net/tcp_address.h"
#include "net/ucx_data_plane.h"

namespace pstwin::net {

FrameChecksum ucx_frame_checksum(const std::string& self_address, const std::string& peer_address) {
  try {
    const std::string a = parse_tcp_endpoint(split_node_address(self_address).zmq).host;
    const std::string b = parse_tcp_endpoint(split_node_address(peer_address).zmq).host;
    // "*" names no machine: a node's book entry is where it was bound, resolved (bind_tcp).
    if (a == "*" || b == "*") return FrameChecksum::kVerify;
    const bool one_machine = a == b || (is_loopback_host(a) && is_loopback_host(b));
    return one_machine ? FrameChecksum::kSkip : FrameChecksum::kVerify;
  } catch (const std::invalid_argument&) {
    return FrameChecksum::kVerify;
  }
}

}  // namespace pstwin::net

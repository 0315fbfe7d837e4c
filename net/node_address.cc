#include "net/node_address.h"

namespace pstwin::net {
namespace {

constexpr const char* kUcxMark = "#ucx=";

}  // namespace

NodeAddress split_node_address(const std::string& address) {
  const auto at = address.find(kUcxMark);
  if (at == std::string::npos) return {address, ""};
  return {address.substr(0, at), address.substr(at + std::string(kUcxMark).size())};
}

std::string join_node_address(const NodeAddress& address) {
  return address.ucx.empty() ? address.zmq : address.zmq + kUcxMark + address.ucx;
}

}  // namespace pstwin::net

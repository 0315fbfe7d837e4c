#include "runtime/hash_ring.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>
#include <string>

#include <openssl/evp.h>

namespace pstwin {

std::uint64_t ring_position(const char* label) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(label, std::strlen(label), digest, &len, EVP_sha256(), nullptr);
  std::uint64_t p = 0;
  for (int i = 0; i < 8; ++i) p = p << 8 | digest[i];
  return p;
}

HashRing::HashRing(const std::vector<std::uint32_t>& servers, std::uint32_t virtual_nodes)
    : servers_(static_cast<std::uint32_t>(servers.size())) {
  if (virtual_nodes == 0) throw std::invalid_argument("hash ring: virtual_nodes must be at least 1");
  if (servers.empty()) throw std::invalid_argument("hash ring: no servers");
  std::vector<std::uint32_t> sorted = servers;
  std::sort(sorted.begin(), sorted.end());
  if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
    throw std::invalid_argument("hash ring: a server is listed twice");
  points_.reserve(servers.size() * virtual_nodes);
  for (std::uint32_t s : servers)
    for (std::uint32_t v = 0; v < virtual_nodes; ++v) {
      const std::string label = "server/" + std::to_string(s) + "/vnode/" + std::to_string(v);
      points_.emplace_back(ring_position(label.c_str()), s);
    }
  // Ties (two equal 64-bit positions) are broken by server index, so the order is total.
  std::sort(points_.begin(), points_.end());
}

std::vector<std::uint32_t> HashRing::owners(std::uint64_t block, std::uint32_t count) const {
  const std::string label = "block/" + std::to_string(block);
  const std::uint64_t at = ring_position(label.c_str());
  auto it = std::lower_bound(points_.begin(), points_.end(), std::make_pair(at, std::uint32_t{0}));
  std::vector<std::uint32_t> out;
  const std::uint32_t want = std::min(count, servers_);
  for (std::size_t step = 0; out.size() < want && step < points_.size(); ++step, ++it) {
    if (it == points_.end()) it = points_.begin();
    if (std::find(out.begin(), out.end(), it->second) == out.end()) out.push_back(it->second);
  }
  return out;
}

}  // namespace pstwin

// HashRing: consistent hashing of key blocks onto servers, with virtual nodes (Karger et al.
// 1997). Used by the "consistent_hash" partition (runtime/key_placement.h).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

namespace pstwin {

/// The 64-bit ring position of an ASCII label: the first 8 bytes, big-endian, of its SHA-256
/// (OpenSSL's EVP_sha256). A cryptographic hash is slower than an integer mixer but spreads any
/// label evenly and is the same on every machine and in every language (Python's hashlib gives
/// the same points), so a ring can be checked by hand.
std::uint64_t ring_position(const char* label);

/// A ring of `virtual_nodes` points per server. Server s's points are the ring positions of
/// "server/<s>/vnode/<v>" for v in [0, virtual_nodes); block b sits at the position of
/// "block/<b>". A block belongs to the first server point at or after its position, wrapping
/// round. A server's points do not depend on which other servers are on the ring, so adding or
/// removing one server moves only the blocks whose owner it becomes or was.
class HashRing {
 public:
  /// The ring of the servers `servers` (indices; distinct, any order).
  /// Throws std::invalid_argument when virtual_nodes is 0 or `servers` is empty or repeats one.
  HashRing(const std::vector<std::uint32_t>& servers, std::uint32_t virtual_nodes);

  /// The first `count` distinct servers met walking clockwise from block `block`'s position:
  /// its owner, then where its replicas go. Returns fewer when the ring has fewer servers.
  std::vector<std::uint32_t> owners(std::uint64_t block, std::uint32_t count) const;
  /// owners(block, 1)[0].
  std::uint32_t owner(std::uint64_t block) const { return owners(block, 1).front(); }

 private:
  std::vector<std::pair<std::uint64_t, std::uint32_t>> points_;  ///< (position, server), sorted
  std::uint32_t servers_ = 0;
};

}  // namespace pstwin

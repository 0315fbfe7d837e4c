// Key placement: how the key space is cut into key ranges and which servers hold each range,
// under the three partition schemes of a scenario's "partition" section (docs/DESIGN.md,
// "Partitioning").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/partition.h"

namespace pstwin {

/// How keys are spread over servers.
enum class PartitionScheme : std::uint8_t {
  kRange = 0,           ///< "range": one contiguous key range per server (range_partition)
  kConsistentHash = 1,  ///< "consistent_hash": blocks of keys placed by a HashRing
  kBalanced = 2,        ///< "balanced": blocks placed by their access counts, heaviest first
};

/// "range", "consistent_hash" or "balanced".
const char* partition_scheme_name(PartitionScheme s);

/// A job's partition: the scheme and its settings. Under kConsistentHash and kBalanced the key
/// ranges are blocks of `block_keys` keys (the last one shorter), so a dense model still moves
/// and serves contiguous slices; under kRange the settings are unused.
struct PartitionSpec {
  PartitionScheme scheme = PartitionScheme::kRange;
  std::uint32_t virtual_nodes = 100;  ///< kConsistentHash: ring points per server, >= 1
  std::uint64_t block_keys = 256;     ///< keys per block, >= 1
  /// kBalanced: by block, the server index that leads it (balanced_owners). Empty otherwise.
  std::vector<std::uint32_t> block_owner;
  /// kConsistentHash: the last `joining_servers` servers are not on the ring at the start; they
  /// join during the run (a scenario's "join" failures).
  std::uint32_t joining_servers = 0;
};

/// The job's key ranges, by range index: range_partition(num_keys, servers) under kRange (one per
/// server, possibly empty), else ceil(num_keys / block_keys) blocks in key order.
/// Throws std::invalid_argument when servers or block_keys is 0.
std::vector<KeyRange> key_ranges(std::uint64_t num_keys, std::uint32_t servers, const PartitionSpec& p);

/// By range index (of key_ranges(num_keys, servers, p)): the `replication` server indices that
/// hold it, primary first. kRange: range r on servers r, r+1, ... (mod servers). kConsistentHash:
/// the owner of block r on HashRing(0..servers-1, virtual_nodes), backups on the next distinct
/// servers of the ring. kBalanced: p.block_owner[r], backups on the next server indices.
/// Throws std::invalid_argument when replication is 0 or exceeds servers, or block_owner does not
/// have one valid server index per block.
std::vector<std::vector<std::uint32_t>> range_holders(std::uint64_t num_keys, std::uint32_t servers,
                                                      std::uint32_t replication, const PartitionSpec& p);

/// Under kConsistentHash, by range: the `replication` holders of each block on the ring of the
/// servers `present` (indices), primary first. Throws std::invalid_argument as HashRing does,
/// or when p is not kConsistentHash.
std::vector<std::vector<std::uint32_t>> ring_holders(std::uint64_t num_keys, const std::vector<std::uint32_t>& present,
                                                     std::uint32_t replication, const PartitionSpec& p);

/// kBalanced's placement: by block, a server index such that the summed weight of each server's
/// blocks is even. Greedy "longest processing time first" (Graham 1969): blocks by weight
/// descending (ties: lower block first) each go to the lightest server so far (ties: lower
/// index); within 4/3 of the best possible maximum load. Throws std::invalid_argument when
/// servers is 0.
std::vector<std::uint32_t> balanced_owners(const std::vector<double>& block_weights, std::uint32_t servers);

/// The weight of each block of `block_keys` keys: the sum of `key_accesses` over its keys, or,
/// with no access counts (empty: a dense model, every key read each clock), its key count.
/// REQUIRES key_accesses empty or of num_keys entries; block_keys >= 1.
std::vector<double> block_weights(std::uint64_t num_keys, std::uint64_t block_keys,
                                  const std::vector<std::uint64_t>& key_accesses);

}  // namespace pstwin

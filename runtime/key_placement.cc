#include "runtime/key_placement.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "runtime/hash_ring.h"
#include "runtime/count_text.h"

namespace pstwin {

const char* partition_scheme_name(PartitionScheme s) {
  switch (s) {
    case PartitionScheme::kRange: return "range";
    case PartitionScheme::kConsistentHash: return "consistent_hash";
    case PartitionScheme::kBalanced: return "balanced";
  }
  return "?";
}

std::vector<KeyRange> key_ranges(std::uint64_t num_keys, std::uint32_t servers, const PartitionSpec& p) {
  if (p.scheme == PartitionScheme::kRange) return range_partition(num_keys, servers);
  if (servers == 0) throw std::invalid_argument("key_ranges: servers must be at least 1");
  if (p.block_keys == 0) throw std::invalid_argument("key_ranges: block_keys must be at least 1");
  std::vector<KeyRange> ranges;
  ranges.reserve(num_keys / p.block_keys + 1);
  for (Key begin = 0; begin < num_keys; begin += p.block_keys)
    ranges.push_back(KeyRange{begin, std::min<Key>(begin + p.block_keys, num_keys)});
  return ranges;
}

std::vector<std::vector<std::uint32_t>> range_holders(std::uint64_t num_keys, std::uint32_t servers,
                                                      std::uint32_t replication, const PartitionSpec& p) {
  if (replication == 0 || replication > servers)
    throw std::invalid_argument("replication must be in [1, " + std::to_string(servers) + "], got " +
                                std::to_string(replication));
  const std::size_t ranges = key_ranges(num_keys, servers, p).size();
  std::vector<std::vector<std::uint32_t>> holders(ranges);
  if (p.scheme == PartitionScheme::kConsistentHash) {
    if (p.joining_servers >= servers)
      throw std::invalid_argument("hash partition: " + std::to_string(p.joining_servers) + " of " +
                                  count_text(servers, "server") + " join later; one must be there");
    std::vector<std::uint32_t> present(servers - p.joining_servers);
    std::iota(present.begin(), present.end(), 0u);
    return ring_holders(num_keys, present, replication, p);
  }
  if (p.scheme == PartitionScheme::kBalanced && p.block_owner.size() != ranges)
    throw std::invalid_argument("balanced partition: " + count_text(p.block_owner.size(), "block owner") +
                                " for " + count_text(ranges, "block"));
  for (std::size_t r = 0; r < ranges; ++r) {
    const std::uint32_t first =
        p.scheme == PartitionScheme::kBalanced ? p.block_owner[r] : static_cast<std::uint32_t>(r);
    if (first >= servers)
      throw std::invalid_argument("balanced partition: block " + std::to_string(r) + " on server " +
                                  std::to_string(first) + " of " + std::to_string(servers));
    for (std::uint32_t k = 0; k < replication; ++k) holders[r].push_back((first + k) % servers);
  }
  return holders;
}

std::vector<std::vector<std::uint32_t>> ring_holders(std::uint64_t num_keys, const std::vector<std::uint32_t>& present,
                                                     std::uint32_t replication, const PartitionSpec& p) {
  if (p.scheme != PartitionScheme::kConsistentHash)
    throw std::invalid_argument("ring_holders: the partition is not consistent_hash");
  const HashRing ring(present, p.virtual_nodes);
  const std::size_t ranges = key_ranges(num_keys, 1, p).size();
  std::vector<std::vector<std::uint32_t>> holders(ranges);
  for (std::size_t r = 0; r < ranges; ++r) holders[r] = ring.owners(r, replication);
  return holders;
}

std::vector<std::uint32_t> balanced_owners(const std::vector<double>& block_weights, std::uint32_t servers) {
  if (servers == 0) throw std::invalid_argument("balanced_owners: servers must be at least 1");
  std::vector<std::size_t> order(block_weights.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return block_weights[a] > block_weights[b]; });
  std::vector<double> load(servers, 0.0);
  std::vector<std::uint32_t> owner(block_weights.size(), 0);
  for (std::size_t b : order) {
    // min_element returns the first of equal loads: the lower server index.
    const auto lightest = static_cast<std::uint32_t>(std::min_element(load.begin(), load.end()) - load.begin());
    owner[b] = lightest;
    load[lightest] += block_weights[b];
  }
  return owner;
}

std::vector<double> block_weights(std::uint64_t num_keys, std::uint64_t block_keys,
                                  const std::vector<std::uint64_t>& key_accesses) {
  std::vector<double> w((num_keys + block_keys - 1) / block_keys, 0.0);
  for (std::uint64_t k = 0; k < num_keys; ++k)
    w[k / block_keys] += key_accesses.empty() ? 1.0 : static_cast<double>(key_accesses[k]);
  return w;
}

}  // namespace pstwin

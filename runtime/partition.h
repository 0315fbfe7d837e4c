// Range partitioning of the key space over servers.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/message.h"

namespace pstwin {

/// A half-open key range [begin, end).
struct KeyRange {
  Key begin = 0;
  Key end = 0;
  std::uint64_t size() const { return end - begin; }
  bool contains(Key k) const { return k >= begin && k < end; }
  friend bool operator==(const KeyRange&, const KeyRange&) = default;
};

/// Splits keys [0, num_keys) into `num_servers` contiguous ranges whose sizes differ by at most
/// one (the first num_keys % num_servers ranges get the extra key). Ranges are in server order,
/// cover every key exactly once, and may be empty when num_keys < num_servers.
/// Throws std::invalid_argument if num_servers == 0.
std::vector<KeyRange> range_partition(std::uint64_t num_keys, std::uint32_t num_servers);

/// Index of the range holding `key` in a partition made by range_partition (binary search).
/// Throws std::out_of_range if no range holds it.
std::uint32_t server_of(const std::vector<KeyRange>& ranges, Key key);

}  // namespace pstwin

// Range partitioning of the key space over servers.
#include "runtime/partition.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pstwin {

std::vector<KeyRange> range_partition(std::uint64_t num_keys, std::uint32_t num_servers) {
  if (num_servers == 0) {
    throw std::invalid_argument("range_partition: num_servers must be at least 1");
  }
  const std::uint64_t base = num_keys / num_servers;
  const std::uint64_t extra = num_keys % num_servers;  // the first `extra` ranges get one more
  std::vector<KeyRange> ranges(num_servers);
  Key begin = 0;
  for (std::uint32_t s = 0; s < num_servers; ++s) {
    const std::uint64_t size = base + (s < extra ? 1 : 0);
    ranges[s] = KeyRange{begin, begin + size};
    begin += size;
  }
  return ranges;
}

std::uint32_t server_of(const std::vector<KeyRange>& ranges, Key key) {
  // Ranges are contiguous and in key order, so the holder is the first range ending after `key`;
  // empty ranges before it end at or before `key` and are skipped.
  const auto it = std::partition_point(ranges.begin(), ranges.end(),
                                       [key](const KeyRange& r) { return r.end <= key; });
  if (it == ranges.end() || !it->contains(key)) {
    throw std::out_of_range("server_of: no server range holds key " + std::to_string(key));
  }
  return static_cast<std::uint32_t>(it - ranges.begin());
}

}  // namespace pstwin

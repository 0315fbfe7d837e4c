// Range partitioning: full coverage, balance, and server_of against a linear scan.
#include "runtime/partition.h"

#include <gtest/gtest.h>

#include <stdexcept>

namespace pstwin {
namespace {

// The reference server_of: try every range in order.
std::uint32_t linear_owner(const std::vector<KeyRange>& ranges, Key key) {
  for (std::uint32_t s = 0; s < ranges.size(); ++s) {
    if (ranges[s].contains(key)) return s;
  }
  throw std::out_of_range("no owner");
}

TEST(Partition, CoversEveryKeyOnceWithBalancedSizes) {
  std::vector<std::uint32_t> server_counts;
  for (std::uint32_t s = 1; s <= 17; ++s) server_counts.push_back(s);
  server_counts.push_back(64);
  for (std::uint64_t num_keys : {0ull, 1ull, 7ull, 100ull, 1000003ull}) {
    for (std::uint32_t num_servers : server_counts) {
      SCOPED_TRACE(testing::Message() << num_keys << " keys, " << num_servers << " servers");
      const std::vector<KeyRange> ranges = range_partition(num_keys, num_servers);
      ASSERT_EQ(ranges.size(), num_servers);
      // Contiguous, in order, from 0 to num_keys: every key is covered exactly once.
      Key next = 0;
      std::uint64_t min_size = num_keys, max_size = 0;
      for (std::uint32_t s = 0; s < num_servers; ++s) {
        ASSERT_EQ(ranges[s].begin, next) << "server " << s;
        ASSERT_LE(ranges[s].begin, ranges[s].end) << "server " << s;
        next = ranges[s].end;
        min_size = std::min(min_size, ranges[s].size());
        max_size = std::max(max_size, ranges[s].size());
        // The first num_keys % num_servers ranges hold the extra key.
        EXPECT_EQ(ranges[s].size(), num_keys / num_servers + (s < num_keys % num_servers ? 1 : 0));
      }
      EXPECT_EQ(next, num_keys);
      EXPECT_LE(max_size - min_size, 1u);

      for (Key k = 0; k < num_keys; ++k) {
        ASSERT_EQ(server_of(ranges, k), linear_owner(ranges, k)) << "key " << k;
      }
      EXPECT_THROW(server_of(ranges, num_keys), std::out_of_range);
    }
  }
}

TEST(Partition, ZeroServersThrows) {
  EXPECT_THROW(range_partition(10, 0), std::invalid_argument);
  EXPECT_THROW(range_partition(0, 0), std::invalid_argument);
}

TEST(Partition, ServerOfOnEmptyPartitionThrows) {
  EXPECT_THROW(server_of({}, 0), std::out_of_range);
}

TEST(Partition, HugeKeySpace) {
  const std::uint64_t n = std::uint64_t{1} << 63;
  const std::vector<KeyRange> ranges = range_partition(n, 3);
  EXPECT_EQ(ranges.back().end, n);
  EXPECT_EQ(server_of(ranges, n - 1), 2u);
  EXPECT_EQ(server_of(ranges, 0), 0u);
}

}  // namespace
}  // namespace pstwin

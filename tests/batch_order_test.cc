// A worker's walk over its partition: shuffled passes, one mini-batch after another.
#include "runtime/roles/batch_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <utility>

namespace pstwin {
namespace {

using Rows = std::vector<std::uint32_t>;

TEST(NextShuffledBatch, WalksOneShuffledPassAfterAnotherAndBatchesCrossPasses) {
  // A partition of five rows, batches of two. Each pass is the Fisher-Yates shuffle of the order
  // the last pass left (written out here with a second stream of the same seed).
  Rows order = {5, 6, 7, 8, 9};
  std::size_t cursor = 0;
  Rng rng(3), expected_rng(3);
  Rows expected = order;
  const auto shuffle = [&] {
    for (std::size_t i = expected.size(); i > 1; --i) std::swap(expected[i - 1], expected[expected_rng.below(i)]);
  };
  shuffle();
  const Rows first_pass = expected;
  EXPECT_EQ(next_shuffled_batch(order, cursor, 2, rng), (Rows{first_pass[0], first_pass[1]}));
  EXPECT_EQ(next_shuffled_batch(order, cursor, 2, rng), (Rows{first_pass[2], first_pass[3]}));
  // The third batch takes the pass's last row, then the first of the next pass.
  const Rows third = next_shuffled_batch(order, cursor, 2, rng);
  shuffle();
  EXPECT_EQ(third, (Rows{first_pass[4], expected[0]}));
  EXPECT_EQ(cursor, 1u);
  EXPECT_EQ(order, expected);
  // A pass visits every row once.
  Rows sorted = first_pass;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(sorted, (Rows{5, 6, 7, 8, 9}));
  // Rows in storage order would be fetched ahead by the hardware: this stream's first pass is not.
  EXPECT_NE(first_pass, (Rows{5, 6, 7, 8, 9}));
  Rows none;
  EXPECT_TRUE(next_shuffled_batch(none, cursor, 3, rng).empty());
}

}  // namespace
}  // namespace pstwin

// calibrate's kernel timing walks the data as a worker does: a new mini-batch each step.
#include <gtest/gtest.h>

#include "cli/calibrate_kernels.h"

namespace pstwin::cli {
namespace {

using Rows = std::vector<std::uint32_t>;

TEST(CalibrateKernels, EachStepTakesTheNextBatchOfTheShardWrappingRoundAtItsEnd) {
  // A worker's shard of five rows, in its order; batches of two. Timing one batch again and
  // again found it in cache, where a worker's next batch is rows it has not touched since the
  // last pass over its shard.
  const Rows shard = {5, 6, 7, 8, 9};
  std::size_t next = 0;
  EXPECT_EQ(next_batch_rows(shard, 2, next), (Rows{5, 6}));
  EXPECT_EQ(next_batch_rows(shard, 2, next), (Rows{7, 8}));
  EXPECT_EQ(next_batch_rows(shard, 2, next), (Rows{9, 5}));
  EXPECT_EQ(next, 1u);
  // A batch as large as the shard is the whole shard, from where the walk stands.
  EXPECT_EQ(next_batch_rows(shard, 5, next), (Rows{6, 7, 8, 9, 5}));
  EXPECT_EQ(next, 1u);
  EXPECT_TRUE(next_batch_rows({}, 3, next).empty());
}

}  // namespace
}  // namespace pstwin::cli

// calibrate's kernel timing starts each call as a node's step starts: after a wait.
#include <gtest/gtest.h>

#include "cli/calibrate_kernels.h"
#include "kernels/backend.h"

namespace pstwin::cli {
namespace {

TEST(CalibrateKernels, EveryCallStartsAfterANodesWait) {
  // A worker's step follows its wait for the pull replies, the scheduler's evaluation its wait for
  // the snapshots: every call, the unmeasured first one of each size included, starts after a
  // NodeWait. The shipped models are dense: one wait per call.
  const auto cpu = make_cpu_backend();
  NodeWait wait(1 << 16, 0.0);  // no sleep: the test counts, it does not time
  const std::vector<KernelTiming> steps = time_kernels({}, *cpu, 0.0, wait);
  std::size_t calls = 0;
  for (const KernelTiming& k : steps) calls += static_cast<std::size_t>(k.calls) + 1;
  EXPECT_EQ(steps.size(), 15u);  // logistic, softmax, mlp at 16, 32, 64, 128, 256 rows
  EXPECT_EQ(wait.passes(), calls);

  const std::size_t before = wait.passes();
  const std::vector<KernelTiming> evals = time_evaluations({}, *cpu, 0.0, wait);
  ASSERT_EQ(evals.size(), 9u);  // three models, a quarter, half and all of their rows
  calls = 0;
  for (const KernelTiming& k : evals) {
    calls += static_cast<std::size_t>(k.calls) + 1;
    EXPECT_TRUE(k.evaluation);
    EXPECT_GT(k.flops, 0);
  }
  EXPECT_EQ(wait.passes() - before, calls);
  // 512 training rows and a test set of 512: 128 + 128, 256 + 256, 512 + 512 rows evaluated.
  EXPECT_EQ(evals[0].batch, 256u);
  EXPECT_EQ(evals[1].batch, 512u);
  EXPECT_EQ(evals[2].batch, 1024u);
  EXPECT_EQ(evals[0].model, "logistic");
}

}  // namespace
}  // namespace pstwin::cli

// End to end on Fashion-MNIST: scenarios/fmnist-mlp.json (an MLP with one hidden layer of 128,
// Adam on the servers). Needs Debian's dataset-fashion-mnist package; skipped without it.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(FmnistMlp, BspReachesTestAccuracyOfAtLeast086) {
  if (!std::filesystem::exists("/usr/share/datasets/fashion-mnist/t10k-images-idx3-ubyte.gz"))
    GTEST_SKIP() << "Fashion-MNIST not found in /usr/share/datasets/fashion-mnist "
                    "(Debian package dataset-fashion-mnist)";
  const std::string dir = fresh_dir();
  // The shipped scenario as is, BSP only (the variant the goal is about; ASP and SSP would
  // triple the run time).
  const auto r = run_pstwin("simulate " PSTWIN_SOURCE_DIR "/scenarios/fmnist-mlp.json --quiet --out " +
                            dir + " --set '/variants=[{\"name\": \"bsp\"}]'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto bsp = read_json(dir + "/bsp/summary.json");
  EXPECT_TRUE(bsp["completed"].get<bool>());
  EXPECT_FALSE(bsp["diverged"].get<bool>());
  EXPECT_GE(bsp["final_test_metric"].get<double>(), 0.86);
  EXPECT_FALSE(bsp["time_to_target_s"].is_null()) << "the 0.86 target was never reached";
}

}  // namespace
}  // namespace pstwin

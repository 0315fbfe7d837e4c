// End to end on real data: scenarios/a9a-stragglers.json (needs ../shared/data beside the
// checkout; skipped without it).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(A9aStragglers, BspReachesTheLiteratureAccuracyAndSspGetsThereFirst) {
  if (!std::filesystem::exists(PSTWIN_SOURCE_DIR "/../shared/data/a9a/a9a"))
    GTEST_SKIP() << "a9a not found beside the checkout (../shared/data/a9a)";
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("simulate " PSTWIN_SOURCE_DIR "/scenarios/a9a-stragglers.json --quiet --out " + dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto bsp = read_json(dir + "/bsp/summary.json");
  const auto ssp = read_json(dir + "/ssp3/summary.json");
  // About 85% is what L2-regularised logistic regression reaches on a9a.t (LIBSVM authors).
  EXPECT_GE(bsp["final_test_metric"].get<double>(), 0.84);
  ASSERT_FALSE(bsp["time_to_target_s"].is_null());
  ASSERT_FALSE(ssp["time_to_target_s"].is_null());
  EXPECT_LT(ssp["time_to_target_s"].get<double>(), bsp["time_to_target_s"].get<double>());
  EXPECT_LT(ssp["sim_time_s"].get<double>(), bsp["sim_time_s"].get<double>());
}

}  // namespace
}  // namespace pstwin

// End to end on real ratings: scenarios/movielens-mf.json, matrix factorisation with sparse pulls
// and pushes (needs ../shared/data/movielens-small beside the checkout; skipped without it).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(MovielensMf, BspReachesTheRmseGoalAndPushesOnlyTouchedRows) {
  if (!std::filesystem::exists(PSTWIN_SOURCE_DIR "/../shared/data/movielens-small/ratings.csv"))
    GTEST_SKIP() << "MovieLens not found beside the checkout (../shared/data/movielens-small)";
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("simulate " PSTWIN_SOURCE_DIR "/scenarios/movielens-mf.json --out " +
                            dir);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("final test rmse"), std::string::npos) << r.output;
  const auto bsp = read_json(dir + "/bsp/summary.json");
  EXPECT_EQ(bsp["metric"], "rmse");
  // Biased MF reaches about 0.86-0.90 held-out RMSE on MovieLens small; the issue asks <= 0.92.
  EXPECT_LE(bsp["final_test_metric"].get<double>(), 0.92);
  // RMSE is lower-is-better, so the target (0.88) counts as reached when the RMSE falls to it.
  ASSERT_FALSE(bsp["time_to_target_s"].is_null());
  double first_at_target = -1;
  std::istringstream rows(read_file(dir + "/bsp/metrics.csv"));
  std::string line;
  std::getline(rows, line);  // time_s,clock,updates,train_loss,test_loss,test_metric,...
  while (first_at_target < 0 && std::getline(rows, line)) {
    double f[6];
    ASSERT_EQ(std::sscanf(line.c_str(), "%lf,%lf,%lf,%lf,%lf,%lf", f, f + 1, f + 2, f + 3, f + 4, f + 5), 6);
    if (f[5] <= 0.88) first_at_target = f[0];
  }
  EXPECT_GT(first_at_target, 0.0);
  EXPECT_NEAR(bsp["time_to_target_s"].get<double>(), first_at_target, 1e-6);  // csv: 9 digits
  for (const char* v : {"asp", "ssp3"}) {
    const auto s = read_json(dir + "/" + v + "/summary.json");
    EXPECT_LE(s["final_test_metric"].get<double>(), 0.92) << v;
    EXPECT_LT(s["sim_time_s"].get<double>(), bsp["sim_time_s"].get<double>()) << v;
  }

  // Whole-shard traffic would move the whole model (610 users + 9,724 items, rows of 21 floats)
  // twice per worker and clock: 8 workers x 800 clocks x 2 x 868 KB = 11 GB. Touched rows of a
  // 256-rating batch are at most 512 of them, so the job must stay far below that.
  const double model_bytes = (610.0 + 9724.0) * 21 * 4;
  const double whole_shard_bytes = 8 * 800 * 2 * model_bytes;
  EXPECT_LT(bsp["bytes_sent"].get<double>(), whole_shard_bytes / 10);
}

}  // namespace
}  // namespace pstwin

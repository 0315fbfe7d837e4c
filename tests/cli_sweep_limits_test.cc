// What a sweep refuses before it plans anything: a grid past the documented limit (a trial's
// --seeds 1000000000 allocated without bound before running) and seeds past 2^64 - 1 (a base
// seed of 2^64 - 1 with two seeds wrapped around to 0).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "cli/sweep_limits.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

cli::GridAxis axis(const std::string& pointer, std::size_t values) {
  cli::GridAxis a{pointer, {}};
  for (std::size_t i = 0; i < values; ++i) a.values.push_back(std::to_string(i));
  return a;
}

TEST(SweepLimits, AGridPastTheLimitIsRefusedNamingTheFlagsTheCountAndTheLimit) {
  EXPECT_EQ(cli::sweep_size_problem({axis("/a", 2)}, 1000000000, 3),
            "--grid (2 points) x --seeds 1000000000 x 3 variants = 6000000000 runs, more than the 10000 a sweep "
            "takes; give fewer --grid values or --seeds, or split the grid into sweeps of their own --out");
  EXPECT_EQ(cli::sweep_size_problem({axis("/a", 10), axis("/b", 11), axis("/c", 100)}, 1, 1).substr(0, 62),
            "--grid (10 x 11 x 100 = 11000 points) x --seeds 1 x 1 variant ");
  // The limit itself is allowed: 10 x 10 points x 100 seeds x 1 variant.
  EXPECT_EQ(cli::sweep_size_problem({axis("/a", 10), axis("/b", 10)}, 100, 1), "");
  EXPECT_EQ(cli::kMaxSweepRuns, 10000u);
}

TEST(SweepLimits, ACountPast64BitsIsSaidAsSuchNotWrapped) {
  // 2^64 points: counted without wrapping to 0 (which would pass the limit).
  const std::vector<cli::GridAxis> axes(64, axis("/a", 2));
  const std::string why = cli::sweep_size_problem(axes, 1, 1);
  EXPECT_NE(why.find(" = more than 18446744073709551615 runs, more than the 10000"), std::string::npos) << why;
}

TEST(SweepLimits, SeedsThatWouldPassTheLargestSeedAreRefused) {
  EXPECT_EQ(cli::seed_range_problem(18446744073709551615ULL, 1), "");
  EXPECT_EQ(cli::seed_range_problem(18446744073709551614ULL, 2), "");
  EXPECT_EQ(cli::seed_range_problem(18446744073709551615ULL, 2),
            "--seeds 2 from the scenario's seed 18446744073709551615 would pass 2^64 - 1, the largest seed, and "
            "wrap around to 0; give fewer --seeds or a smaller base seed (--set /seed=18446744073709551614 at most)");
}

// End to end: refused before the output folder is made and before any run. Bounded by
// `timeout`, since without the check the first grid runs 60000 simulations.
TEST(CliSweepLimits, AHugeGridIsRefusedUpFront) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));  // variants bsp, asp, ssp2
  const auto r = run_shell("timeout 60 " + std::string(PSTWIN_BINARY) + " sweep " + dir +
                           "/toy.json --quiet --out " + dir + "/out --grid /cluster/workers=2 --seeds 20000 2>&1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("pstwin sweep: --grid (1 point) x --seeds 20000 x 3 variants = 60000 runs, more than the "
                           "10000 a sweep takes",
                           0),
            0u)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(CliSweepLimits, SeedsPastTheLargestAreRefusedNamingTheFlag) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 10;
  write_json(dir + "/toy.json", s);
  const auto r = run_pstwin("sweep " + dir + "/toy.json --quiet --out " + dir +
                            "/out --grid /cluster/workers=2 --seeds 2 --set /seed=18446744073709551615");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("pstwin sweep: --seeds 2 from the scenario's seed 18446744073709551615 would pass 2^64 - 1",
                           0),
            0u)
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

}  // namespace
}  // namespace pstwin

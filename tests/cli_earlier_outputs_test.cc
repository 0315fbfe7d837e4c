// A run into a folder that holds another run's outputs leaves none of them describing it.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(EarlierOutputs, ASimulationIntoALaunchedRunsFolderLeavesNoneOfItsLiveFilesButItsCheckpoints) {
  // A trial simulated into a copy of a launched run's folder: bsp/ kept the launch's metrics.url
  // (a dead address), address_book.json and scheduler.endpoint beside the new summary.
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", toy_scenario(dir));
  const std::string bsp = dir + "/out/bsp";
  std::filesystem::create_directories(bsp + "/checkpoints");
  for (const char* file : {"address_book.json", "scheduler.endpoint", "metrics.url", "checkpoints/range-0.ckpt"})
    std::ofstream(bsp + "/" + file) << "the launched run's\n";
  const auto r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* file : {"address_book.json", "scheduler.endpoint", "metrics.url"})
    EXPECT_FALSE(std::filesystem::exists(bsp + "/" + file)) << file;
  EXPECT_TRUE(std::filesystem::exists(bsp + "/checkpoints/range-0.ckpt")) << "a checkpoint is state to resume from";
  EXPECT_TRUE(std::filesystem::exists(bsp + "/summary.json"));
}

}  // namespace
}  // namespace pstwin

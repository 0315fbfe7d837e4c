// What `validate --set ...` says about a bad scenario, as a fresh user's trial met it: each error
// blames what brought the value, and gives the same advice for the same slip everywhere.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

/// `pstwin validate DIR/toy.json ARGS`: the toy scenario (2000 training rows, batches of 32).
CommandResult validate_toy(const std::string& dir, const std::string& args) {
  write_json(dir + "/toy.json", toy_scenario(dir));
  return run_pstwin("validate " + dir + "/toy.json " + args);
}

bool has(const CommandResult& r, const std::string& text) { return r.output.find(text) != std::string::npos; }

TEST(CliSetErrors, AnIncludedFilesTypoBlamesTheSetThatNamedTheFile) {
  const std::string dir = fresh_dir();
  std::filesystem::create_directories(dir + "/bad");
  write_json(dir + "/bad/cal-typo.json", json::parse(R"({"worker": {"device": {"flopz": "1Tf"}}})"));
  const std::string file = dir + "/bad/cal-typo.json";  // a --set's path is read from here, not dir
  const auto r = validate_toy(dir, "--set /cluster/include=" + file + " --set /cluster/worker=null "
                                   "--set /cluster/server=null");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "unknown key \"flopz\" (did you mean \"flops\"?)")) << r.output;
  EXPECT_TRUE(has(r, "(the value of --set /cluster/include=" + file + ")")) << r.output;
  EXPECT_FALSE(has(r, "(the value of --set /cluster/worker=null)")) << r.output;
}

TEST(CliSetErrors, AClashElsewhereNamesTheSetThatMadeIt) {
  const std::string dir = fresh_dir();
  // 2000 rows over 1000 workers: 2 each, fewer than a batch of 32.
  const auto r = validate_toy(dir, "--set /seed=5 --set /cluster/workers=1e3");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "/training/batch_size: a batch of 32 examples is larger than a worker's partition")) << r.output;
  EXPECT_TRUE(has(r, " (a clash made by --set /cluster/workers=1e3: without it this error does not arise)\n"))
      << r.output;
}

TEST(CliSetErrors, EpochsOverAFilesIterationsSaysToRemoveThem) {
  const std::string dir = fresh_dir();
  const auto r = validate_toy(dir, "--set /training/epochs=1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "give \"iterations\" or \"epochs\", not both")) << r.output;
  EXPECT_TRUE(has(r, "; to replace the file's iterations, add --set /training/iterations=null\n")) << r.output;
  EXPECT_EQ(validate_toy(dir, "--set /training/epochs=1 --set /training/iterations=null").exit_code, 0);
}

TEST(CliSetErrors, AMisspeltLastKeyGetsADidYouMeanInASetAndInTheFile) {
  const std::string dir = fresh_dir();
  auto r = validate_toy(dir, "--set /training/learnig_rate=0.1");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "/training/learnig_rate: unknown key \"learnig_rate\" (did you mean \"learning_rate\"?)"))
      << r.output;
  json s = toy_scenario(dir);
  s["cluster"]["wroker"] = 1;
  write_json(dir + "/typo.json", s);
  r = run_pstwin("validate " + dir + "/typo.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "/cluster/wroker: unknown key \"wroker\" (did you mean \"worker\"?)")) << r.output;
}

TEST(CliSetErrors, AKeyWhereAListIsAdvisesAnIndex) {
  const std::string dir = fresh_dir();
  const auto r = validate_toy(dir, "--set /consistency/asp/mode=ssp");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  // The toy's variants are bsp, asp and ssp: "asp" names element 1.
  EXPECT_TRUE(has(r, "/consistency is a list, whose elements are given by index, not by a key (\"asp\"): give an "
                     "index from 0 to 2, as in --set '/consistency/1/mode=\"ssp\"'"))
      << r.output;
}

TEST(CliSetErrors, AnIntegerTooLargeIsEchoedAsWritten) {
  const std::string dir = fresh_dir();
  const auto r = validate_toy(dir, "--set /cluster/workers=18446744073709551616");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(has(r, "got 18446744073709551616: too large")) << r.output;
  EXPECT_FALSE(has(r, "e+19")) << r.output;
}

}  // namespace
}  // namespace pstwin

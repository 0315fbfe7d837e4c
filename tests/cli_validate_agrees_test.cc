// What `validate` passes, `simulate` runs: the checks that need the data's row count or the
// model's metric are made by both, with one message. And the command line's own mistakes say
// what is wrong first, and which flag it came from.
#include <gtest/gtest.h>

#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

struct Refusal {
  std::string sets;     // --set flags that make the toy scenario wrong
  std::string message;  // what both commands must say
};

// The toy scenario has 2000 training rows over 4 workers: partitions of 500 rows.
TEST(ValidateAgrees, BothCommandsRefuseWhatOnlyTheDataOrTheModelShowsIsWrong) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const Refusal refusals[] = {
      {"--set /training/iterations=null --set /training/epochs=1e12",
       "/training/epochs: 1000000000000 epochs of 2000 rows are over a billion iterations per worker"},
      {"--set /training/target_metric=80",
       "/training/target_metric: a target accuracy must be in (0, 1] (a fraction, not a percentage), got 80"},
      {"--set /training/batch_size=501",
       "/training/batch_size: a batch of 501 examples is larger than a worker's partition (2000 training rows in " +
           dir + "/train.svm over 4 workers: 500 for the smallest)"},
  };
  for (const auto& [sets, message] : refusals) {
    for (const std::string& command : {std::string("validate"), "simulate --quiet --out " + dir + "/out"}) {
      const auto r = run_pstwin(command + " " + dir + "/toy.json " + sets);
      EXPECT_EQ(r.exit_code, 2) << command << " " << sets << "\n" << r.output;
      EXPECT_NE(r.output.find(message), std::string::npos) << command << " " << sets << "\n" << r.output;
    }
  }
  // The largest batch that fits is taken.
  const auto fits = run_pstwin("validate " + dir + "/toy.json --set /training/batch_size=500");
  EXPECT_EQ(fits.exit_code, 0) << fits.output;
}

TEST(ValidateAgrees, ARemovedKeyIsPrintedAsRemoved) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("validate " + dir + "/toy.json --set /training/iterations=null --set /training/epochs=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("set: /training/iterations = (removed)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("; 2000 rows for 4 workers"), std::string::npos) << r.output;
}

TEST(CommandLine, AScenarioErrorFromSetNamesTheFlag) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("validate " + dir + "/toy.json --set /cluster/workers=abc");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/cluster/workers: expected a positive integer, got string \"abc\" "
                          "(the value of --set /cluster/workers=abc)"),
            std::string::npos)
      << r.output;
  // An error in the file itself names no flag.
  auto s = toy_scenario(dir);
  s["training"]["batch_size"] = 0;
  write_json(dir + "/zero.json", s);
  const auto file = run_pstwin("validate " + dir + "/zero.json --set /cluster/workers=2");
  EXPECT_EQ(file.exit_code, 2) << file.output;
  EXPECT_EQ(file.output.find("--set"), std::string::npos) << file.output;
}

TEST(CommandLine, AnUnknownFlagShowsTheSynopsisAndWhereTheRestIs) {
  const auto r = run_pstwin("simulate x.json --bogus");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.rfind("pstwin: unrecognised option '--bogus'\nusage: pstwin simulate SCENARIO.json", 0), 0u)
      << r.output;
  EXPECT_NE(r.output.find("Run 'pstwin simulate --help' for every option."), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("simulate options"), std::string::npos) << r.output;  // the option list
}

TEST(CommandLine, VersionAndHelpTakeNoArguments) {
  for (const char* command : {"--version", "version", "--help", "help"}) {
    const auto r = run_pstwin(std::string(command) + " --bogus");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("takes no arguments, got '--bogus'"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace pstwin

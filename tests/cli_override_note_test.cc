// A bad value the command line gave is said to come from there, by every command the same way
// (cli/override_note.h). A trial's sweep said "invalid scenario ... /training/batch_size: ..."
// with no word of the --set that put the value there, where simulate says "(the value of --set
// ...)".
#include <gtest/gtest.h>

#include <filesystem>

#include "cli/override_note.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(OverrideNote, NamesTheLastOverrideAtOrAboveThePointer) {
  const std::vector<cli::ScenarioOverride> given = {{"--set", "/training={\"batch_size\":5}"},
                                                    {"--set", "/cluster/workers=0"},
                                                    {"--grid", "/training/batch_size=600"},
                                                    {"PSTWIN_SET", "/seed=x"}};
  EXPECT_EQ(cli::override_note(given, "/training/batch_size"), " (the value of --grid /training/batch_size=600)");
  EXPECT_EQ(cli::override_note(given, "/training/learning_rate"),
            " (the value of --set /training={\"batch_size\":5})");
  EXPECT_EQ(cli::override_note(given, "/cluster/workers"), " (the value of --set /cluster/workers=0)");
  EXPECT_EQ(cli::override_note(given, "/seed"), " (the value of PSTWIN_SET=/seed=x)");
  EXPECT_EQ(cli::override_note(given, "/cluster/servers"), "");
  EXPECT_EQ(cli::override_note(given, "/cluster/workers_per_host"), "");  // a longer key is not under it
}

TEST(OverrideNote, SweepSaysWhichSetOrGridValueAPointFailedOn) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));  // 2000 training rows
  // 600 examples a batch fits 2 workers' partitions (1000 rows), not 4's (500).
  auto r = run_pstwin("sweep " + dir + "/toy.json --out " + dir + "/out --set /training/batch_size=600 " +
                      "--grid /cluster/workers=2,4");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/training/batch_size: a batch of 600 examples is larger than a worker's partition"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("(the value of --set /training/batch_size=600)\n"), std::string::npos) << r.output;
  r = run_pstwin("sweep " + dir + "/toy.json --out " + dir + "/out --grid /training/batch_size=16,600");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("(the value of --grid /training/batch_size=600)\n"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

}  // namespace
}  // namespace pstwin

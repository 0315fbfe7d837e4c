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
  // No override at the pointer: each one in effect is named, since the error may be their clash.
  const std::string all = " (with --set /training={\"batch_size\":5}, --set /cluster/workers=0, "
                          "--grid /training/batch_size=600, PSTWIN_SET=/seed=x in effect)";
  EXPECT_EQ(cli::override_note(given, "/cluster/servers"), all);
  EXPECT_EQ(cli::override_note(given, "/cluster/workers_per_host"), all);  // a longer key is not under it
  EXPECT_EQ(cli::override_note({}, "/cluster/servers"), "");
}

// A trial: an included file's unknown key was blamed on "--set /cluster/worker=null", which
// happened to sit above the merged pointer; the --set that named the file brought the value.
TEST(OverrideNote, AnIncludedFilesErrorIsBlamedOnTheOverrideThatNamedTheFile) {
  const std::vector<cli::ScenarioOverride> given = {{"--set", "/cluster/include=bad/cal-typo.json"},
                                                    {"--set", "/cluster/worker=null"},
                                                    {"--set", "/cluster/server=null"}};
  const std::string message = "/cluster/worker/device/flopz: in the included file \"bad/cal-typo.json\" at "
                              "/worker/device/flopz: unknown key \"flopz\"";
  EXPECT_EQ(cli::override_note(given, "/cluster/worker/device/flopz", message),
            " (the value of --set /cluster/include=bad/cal-typo.json)");
  // The scenario's own include: the message names the file, and no --set is to blame.
  EXPECT_EQ(cli::override_note({given[1], given[2]}, "/cluster/worker/device/flopz", message), "");
}

// Told by trying the scenario without each override: only those that make the error are named.
TEST(OverrideNote, AClashElsewhereNamesTheOverridesThatMadeIt) {
  const std::vector<cli::ScenarioOverride> given = {{"--set", "/seed=4"}, {"--set", "/cluster/workers=1e3"}};
  const std::string message = "/training/batch_size: a batch of 64 examples is larger than a worker's partition";
  const cli::ErrorWithout without = [&](std::size_t left_out) { return left_out == 1 ? "" : message; };
  EXPECT_EQ(cli::override_note(given, "/training/batch_size", message, without),
            " (a clash made by --set /cluster/workers=1e3: without it this error does not arise)");
  // The file's own error, whatever is given: nothing to add.
  const cli::ErrorWithout same = [&](std::size_t) { return message; };
  EXPECT_EQ(cli::override_note(given, "/training/batch_size", message, same), "");
}

// A trial: --set /training/epochs=1 on a file with iterations gave "give iterations or epochs,
// not both" with no word of the way out the README gives.
TEST(OverrideNote, BothRunLengthsSayWhichToRemove) {
  const std::string message = "/training/iterations: give \"iterations\" or \"epochs\", not both";
  const cli::ErrorWithout valid = [](std::size_t) { return std::string(); };
  EXPECT_EQ(cli::override_note({{"--set", "/training/epochs=1"}}, "/training/iterations", message, valid),
            " (a clash made by --set /training/epochs=1: without it this error does not arise); to replace the "
            "file's iterations, add --set /training/iterations=null");
  EXPECT_EQ(cli::override_note({{"PSTWIN_SET", "/training/iterations=5"}}, "/training/iterations", message),
            " (the value of PSTWIN_SET=/training/iterations=5); to replace the file's epochs, add "
            "PSTWIN_SET=/training/epochs=null");
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

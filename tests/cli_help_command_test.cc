// `pstwin help COMMAND` and a missing scenario, as a fresh user meets them: the trial's `pstwin
// help simulate` was refused ("takes no arguments"), and `pstwin simulate` alone named
// --scenario, a flag the user never saw when the scenario is given as the first argument.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(HelpCommand, HelpOfACommandIsThatCommandsHelp) {
  for (const std::string command : {"simulate", "sweep", "launch", "node", "keygen", "calibrate", "validate"}) {
    const auto help = run_pstwin("help " + command);
    const auto own = run_pstwin(command + " --help");
    EXPECT_EQ(help.exit_code, 0) << command << "\n" << help.output;
    EXPECT_EQ(help.output, own.output) << command;
    EXPECT_NE(help.output.find("usage: pstwin " + command), std::string::npos) << help.output;
  }
  const auto version = run_pstwin("help version");
  EXPECT_EQ(version.exit_code, 0) << version.output;
  EXPECT_NE(version.output.find("usage: pstwin --version"), std::string::npos) << version.output;
}

// A trial's `pstwin help help` was refused as an unknown command.
TEST(HelpCommand, HelpOfHelpIsHelpsOwnUsage) {
  for (const std::string asked : {"help", "--help", "-h"}) {
    const auto r = run_pstwin("help " + asked);
    EXPECT_EQ(r.exit_code, 0) << asked << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("usage: pstwin help [COMMAND]", 0), 0u) << asked << "\n" << r.output;
  }
}

TEST(HelpCommand, HelpOfAnUnknownCommandListsTheCommands) {
  const auto r = run_pstwin("help nosuch");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin help: there is no command 'nosuch'; the commands are simulate sweep launch node "
                          "keygen calibrate validate version help\n"),
            std::string::npos)
      << r.output;
  const auto two = run_pstwin("help simulate sweep");
  EXPECT_EQ(two.exit_code, 2) << two.output;
}

TEST(HelpCommand, AMissingScenarioIsSaidBothWaysItCanBeGiven) {
  for (const std::string command : {"simulate", "sweep", "launch", "validate"}) {
    const auto r = run_pstwin(command);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("pstwin " + command + ": no scenario given: give SCENARIO.json after the command, or --scenario "
                            "SCENARIO.json\n"),
              std::string::npos)
        << command << "\n" << r.output;
  }
  // node reads it from the environment too.
  const auto node = run_pstwin("node --role worker --scheduler tcp://127.0.0.1:9 --insecure");
  EXPECT_EQ(node.exit_code, 2) << node.output;
  EXPECT_NE(node.output.find("give SCENARIO.json after the command, or --scenario SCENARIO.json, or set "
                             "PSTWIN_SCENARIO\n"),
            std::string::npos)
      << node.output;
}

}  // namespace
}  // namespace pstwin

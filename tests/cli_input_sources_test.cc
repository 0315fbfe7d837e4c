// Where a value came from, said when it is wrong, and one rule for empty PSTWIN_ variables
// (README, "Environment variables"). A trial's PSTWIN_OUT=/proc/nope got an error that did not
// name the variable; PSTWIN_RESUME= read "no such folder"; PSTWIN_SET= was refused while an
// empty switch meant off; and `simulate` took no notice of a PSTWIN_OUT it never reads.
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(InputSources, AnOutputFolderFromPstwinOutThatCannotBeMadeNamesTheVariable) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin_env("PSTWIN_OUT=/proc/nope",
                                "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: cannot create output folder /proc/nope (from PSTWIN_OUT): "),
            std::string::npos)
      << r.output;
  // Given as the flag, the message is as it was: the user typed it.
  const auto flag = run_pstwin("node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --out /proc/nope " +
                               dir + "/s.json");
  EXPECT_EQ(flag.exit_code, 2) << flag.output;
  EXPECT_NE(flag.output.find("cannot create output folder /proc/nope: "), std::string::npos) << flag.output;
}

TEST(InputSources, AScenarioFromPstwinScenarioIsNamedWithItsVariable) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin_env("PSTWIN_SCENARIO=" + dir + "/missing.json",
                                "node --role worker --scheduler tcp://127.0.0.1:9 --insecure");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("invalid scenario " + dir + "/missing.json (from PSTWIN_SCENARIO): "), std::string::npos)
      << r.output;
  // The command line wins, and is not said to come from the variable.
  const auto given = run_pstwin_env("PSTWIN_SCENARIO=" + dir + "/other.json",
                                    "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir +
                                        "/missing.json");
  EXPECT_NE(given.output.find("invalid scenario " + dir + "/missing.json: "), std::string::npos) << given.output;
}

TEST(InputSources, ANodeVariableTheCommandDoesNotReadIsSaidToBeIgnored) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  for (const std::string command : {"simulate", "validate", "sweep"}) {
    const auto r = run_pstwin_env("PSTWIN_OUT=/proc/nope", command + " " + dir + "/missing.json");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("pstwin " + command + ": warning: PSTWIN_OUT is for pstwin node; " + command +
                            " takes its options from the command line, so it is ignored"),
              std::string::npos)
        << r.output;
  }
}

TEST(InputSources, AnEmptyValueVariableIsRefusedAsEmptyNamingIt) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string worker = "node --role worker --scheduler tcp://127.0.0.1:9 --insecure " + dir + "/s.json";
  for (const std::string variable : {"PSTWIN_RESUME", "PSTWIN_CHECKPOINT_DIR", "PSTWIN_TRANSPORT", "PSTWIN_VARIANT",
                                     "PSTWIN_CONNECT_TIMEOUT", "PSTWIN_INDEX"}) {
    const auto r = run_pstwin_env(variable + "=", worker);
    EXPECT_EQ(r.exit_code, 2) << variable << ": " << r.output;
    EXPECT_NE(r.output.find("pstwin node: " + variable + " is set but empty: give it a value, or unset it"),
              std::string::npos)
        << r.output;
  }
  // The same folder given empty on the command line is refused as empty too.
  const auto flag = run_pstwin(worker + " --resume ''");
  EXPECT_EQ(flag.exit_code, 2) << flag.output;
  EXPECT_NE(flag.output.find("pstwin node: --resume is empty: give the checkpoint folder to resume from"),
            std::string::npos)
      << flag.output;
}

TEST(InputSources, AnEmptyListOrSwitchVariableGivesNone) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  // PSTWIN_SET= gives no override, PSTWIN_QUIET= is off: the node runs, and finds no scheduler.
  const auto r = run_pstwin_env("PSTWIN_SET= PSTWIN_QUIET= PSTWIN_REJOIN=",
                                "node --role worker --scheduler tcp://127.0.0.1:9 --insecure --connect-timeout 0.3 " +
                                    dir + "/s.json");
  EXPECT_EQ(r.output.find("PSTWIN_SET"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("empty"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("cannot reach the scheduler at tcp://127.0.0.1:9"), std::string::npos) << r.output;
  // PSTWIN_SIMGRID_CFG= gives no SimGrid option.
  const auto v = run_pstwin_env("PSTWIN_SIMGRID_CFG=", "validate " + dir + "/s.json");
  EXPECT_EQ(v.exit_code, 0) << v.output;
}

}  // namespace
}  // namespace pstwin

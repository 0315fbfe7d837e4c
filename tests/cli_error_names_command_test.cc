// Every command's error lines name the command, whichever shared check found the fault: a
// trial's `pstwin simulate` said "pstwin: invalid scenario ..." where launch's own checks said
// "pstwin launch: ...", and flag errors read "pstwin: --port ..." beside "pstwin node: --device".
#include <gtest/gtest.h>

#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(ErrorNamesCommand, ABadScenarioIsRefusedByEachCommandUnderItsOwnName) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["training"]["batch_size"] = 0;
  write_json(dir + "/bad.json", s);
  const std::string bad = dir + "/bad.json";
  const std::pair<std::string, std::string> cases[] = {
      {"simulate", "simulate --quiet --out " + dir + "/sim " + bad},
      {"validate", "validate " + bad},
      {"launch", "launch --insecure --out " + dir + "/launch " + bad},
      {"sweep", "sweep --grid /seed=1,2 --out " + dir + "/sweep " + bad},
      {"node", "node --role worker --scheduler tcp://127.0.0.1:1 --insecure " + bad},
      {"calibrate", "calibrate --quick --out " + dir + "/cal.json " + bad},
  };
  for (const auto& [command, args] : cases) {
    const auto r = run_pstwin(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("pstwin " + command + ": invalid scenario " + bad + ": /training/batch_size: ", 0), 0u)
        << args << "\n" << r.output;
  }
}

TEST(ErrorNamesCommand, AFlagErrorNamesItsCommand) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::pair<std::string, std::string> cases[] = {
      {"simulate", "simulate --bogus " + dir + "/toy.json"},
      {"sweep", "sweep --bogus " + dir + "/toy.json"},
      {"validate", "validate --bogus " + dir + "/toy.json"},
      {"launch", "launch --bogus " + dir + "/toy.json"},
      {"calibrate", "calibrate --bogus"},
  };
  for (const auto& [command, args] : cases) {
    const auto r = run_pstwin(args);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.output;
    EXPECT_EQ(r.output.rfind("pstwin " + command + ": unrecognised option '--bogus'", 0), 0u) << args << "\n" << r.output;
  }
}

}  // namespace
}  // namespace pstwin

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

// A variant is a run of its own: what its "set" makes wrong, validate finds as simulate and
// launch do, with one message at the variant's own setting. A trial's validate checked the
// data, the servers and the target of the base scenario alone, and simulate checked the servers
// and the target only for the first variant of each data set, so it ran the others.
TEST(ValidateAgrees, EachVariantIsCheckedAsARunOfItsOwn) {
  const std::string dir = fresh_dir();
  const Refusal refusals[] = {
      {R"({"/training/target_metric": 80})",
       "/variants/1/set/~1training~1target_metric: a target accuracy must be in (0, 1] (a fraction, not a "
       "percentage), got 80"},
      {R"({"/cluster/servers": 30})",
       "/variants/1/set/~1cluster~1servers: 30 servers for a model of 21 keys; every server needs at least one"},
      {R"({"/cluster/workers": 3000})",
       "/variants/1/set/~1cluster~1workers: 3000 workers but only 2000 training rows in " + dir + "/train.svm"},
      {R"({"/data/train": ")" + dir + R"(/missing.svm"})",
       "bad data at /data/train: " + dir + "/missing.svm: cannot open: No such file or directory (variant b)"},
  };
  for (const auto& [set, message] : refusals) {
    auto s = toy_scenario(dir);
    s.erase("consistency");
    s["variants"] = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}, {"set", nlohmann::json::parse(set)}}});
    write_json(dir + "/v.json", s);
    for (const std::string& command : {std::string("validate"), "simulate --quiet --out " + dir + "/sim",
                                       "launch --transport inproc --out " + dir + "/inproc"}) {
      const auto r = run_pstwin(command + " " + dir + "/v.json");
      EXPECT_EQ(r.exit_code, 2) << command << " " << set << "\n" << r.output;
      EXPECT_NE(r.output.find(message), std::string::npos) << command << " " << set << "\n" << r.output;
      // Each command names itself, whichever check found the fault.
      EXPECT_EQ(r.output.rfind("pstwin " + command.substr(0, command.find(' ')) + ": ", 0), 0u) << r.output;
    }
  }
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
  EXPECT_EQ(r.output.rfind("pstwin simulate: unrecognised option '--bogus'\nusage: pstwin simulate SCENARIO.json", 0), 0u)
      << r.output;
  EXPECT_NE(r.output.find("Run 'pstwin simulate --help' for every option."), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("simulate options"), std::string::npos) << r.output;  // the option list
}

TEST(CommandLine, VersionAndHelpTakeNoArguments) {
  for (const char* command : {"--version", "version"}) {
    const auto r = run_pstwin(std::string(command) + " --bogus");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("takes no arguments, got '--bogus'"), std::string::npos) << r.output;
  }
  // help takes a command (HelpCommand), and says when it is none.
  for (const char* command : {"--help", "help"}) {
    const auto r = run_pstwin(std::string(command) + " --bogus");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("there is no command '--bogus'"), std::string::npos) << r.output;
  }
}

}  // namespace
}  // namespace pstwin

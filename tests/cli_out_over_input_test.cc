// An --out that is, or would overwrite, a file the same command reads is refused before anything
// is written, naming the flag (a trial's `calibrate --out OUT/.pstwin.lock` and `calibrate
// S.json --out S.json` were taken).
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

TEST(CliOutOverInput, CalibrateRefusesTheLockFileAndItsOwnScenario) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string scenario_text = read_file(dir + "/toy.json");
  auto r = run_pstwin("calibrate --quick --out " + dir + "/.pstwin.lock");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("pstwin calibrate: --out " + dir + "/.pstwin.lock: that is the name of the output lock's "
                          "own file"),
            0u)
      << r.output;
  r = run_pstwin("calibrate --quick " + dir + "/toy.json --out " + dir + "/./toy.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("pstwin calibrate: --out " + dir + "/./toy.json: that is a scenario (" + dir +
                          "/toy.json), which this command reads; writing there would overwrite it"),
            0u)
      << r.output;
  EXPECT_EQ(read_file(dir + "/toy.json"), scenario_text);
  EXPECT_FALSE(fs::exists(dir + "/.pstwin.lock"));  // refused before its folder was locked
}

TEST(CliOutOverInput, EveryRunRefusesAnOutputFolderOverItsInputs) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  fs::create_directories(dir + "/runs/bsp");
  write_json(dir + "/runs/bsp/toy.json", toy_scenario(dir + "/runs/bsp"));
  std::ofstream(dir + "/hosts") << "localhost slots=8\n";
  const std::string inside = "the scenario (" + dir + "/runs/bsp/toy.json) is inside that folder";
  struct Case {
    std::string command, says;
  };
  for (const Case& c : std::vector<Case>{
           {"simulate " + dir + "/toy.json --quiet --out " + dir + "/toy.json",
            "pstwin simulate: --out " + dir + "/toy.json: that is the scenario"},
           {"simulate " + dir + "/runs/bsp/toy.json --quiet --out " + dir + "/runs",
            "pstwin simulate: --out " + dir + "/runs: " + inside},
           {"sweep " + dir + "/runs/bsp/toy.json --quiet --grid /training/batch_size=16 --out " + dir + "/runs",
            "pstwin sweep: --out " + dir + "/runs: " + inside},
           {"launch " + dir + "/toy.json --hostfile " + dir + "/hosts --out " + dir + "/hosts",
            "pstwin launch: --out " + dir + "/hosts: that is --hostfile"},
           {"node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --variant bsp --connect-timeout 1 --out " +
                dir + "/runs " + dir + "/runs/bsp/toy.json",
            "pstwin node: --out " + dir + "/runs: " + inside},
           {"calibrate --quick --out " + dir + "/out/calibrated.json " + dir + "/out/calibration.csv",
            "pstwin calibrate: --out " + dir + "/out/calibrated.json: a scenario (" + dir +
                "/out/calibration.csv) would be overwritten by the file this command writes beside --out"}}) {
    if (c.command.find("/out/calibration.csv") != std::string::npos) {
      fs::create_directories(dir + "/out");
      std::ofstream(dir + "/out/calibration.csv") << "{}\n";
    }
    const auto r = run_pstwin(c.command);
    EXPECT_EQ(r.exit_code, 2) << c.command << "\n" << r.output;
    // (launch may warn of a loaded machine first)
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.command << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir + "/runs/.pstwin.lock"));
  EXPECT_TRUE(fs::is_regular_file(dir + "/toy.json"));
}

// launch writes the job key into OUT/<variant> and gives it to the scheduler it starts there:
// a key file inside the output folder is no file a run overwrites.
TEST(CliOutOverInput, AKeyFileInsideTheOutputFolderIsTaken) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 10;
  write_json(dir + "/toy.json", s);
  const auto r = run_pstwin("launch " + dir + "/toy.json --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(dir + "/o/bsp/job.key"));
  EXPECT_TRUE(fs::exists(dir + "/o/bsp/summary.json"));
}

TEST(CliOutOverInput, AnEmptyOutIsRefusedAsEmpty) {
  // It resolved to the working folder, and a trial was told its scenario lay "inside that
  // folder" when it lay elsewhere.
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  for (const std::string command : {"simulate", "sweep", "launch"}) {
    const auto r = run_pstwin(command + " " + dir + "/toy.json --out ''" +
                              (command == "sweep" ? " --grid /training/batch_size=16" : ""));
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("--out is empty: give a folder to write to"), std::string::npos) << command << "\n" << r.output;
  }
}

}  // namespace
}  // namespace pstwin

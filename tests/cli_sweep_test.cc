// pstwin sweep as a user meets it: the runs of a grid, resuming, sweep.csv, and bad grids.
#include <gtest/gtest.h>

#include <map>

#include "cli/sweep_grid.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

/// The modification time of every summary.json under `out`, by run folder.
std::map<std::string, fs::file_time_type> summary_times(const std::string& out) {
  std::map<std::string, fs::file_time_type> times;
  for (const auto& e : fs::recursive_directory_iterator(out))
    if (e.path().filename() == "summary.json")
      times[fs::relative(e.path().parent_path(), out).string()] = fs::last_write_time(e.path());
  return times;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(CliSweep, RunsTheGridOnceAndOnlyWhatIsMissingWhenRunAgain) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));  // variants bsp, asp, ssp2
  const std::string sweep = "sweep " + dir + "/toy.json --quiet --jobs 2 --out " + dir +
                            "/out --grid /cluster/workers=2,4 --grid /training/batch_size=16,32";
  const auto first = run_pstwin(sweep);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("12 runs; 0 already complete in " + dir + "/out, running 12"), std::string::npos)
      << first.output;
  const auto times = summary_times(dir + "/out");
  ASSERT_EQ(times.size(), 12u);
  for (const char* run : {"cluster.workers=2_training.batch_size=16_seed=3/bsp",
                          "cluster.workers=4_training.batch_size=32_seed=3/ssp2"}) {
    ASSERT_TRUE(times.count(run)) << run;
    const auto summary = read_json(dir + "/out/" + run + "/summary.json");
    EXPECT_TRUE(summary["completed"].get<bool>());
  }
  EXPECT_EQ(read_json(dir + "/out/cluster.workers=4_training.batch_size=32_seed=3/asp/summary.json")["workers"], 4);

  const auto csv = lines_of(read_file(dir + "/out/sweep.csv"));
  ASSERT_EQ(csv.size(), 13u);
  EXPECT_EQ(csv[0], "/cluster/workers,/training/batch_size,seed,variant,mode,metric,target_metric,"
                    "time_to_target_s,last_test_metric,bytes_sent,sim_time_s,wall_time_s,status,run");
  EXPECT_EQ(csv[1].substr(0, csv[1].find(",bsp,") + 5), "2,16,3,bsp,");
  EXPECT_EQ(csv[12].substr(0, csv[12].find(",ssp2,") + 6), "4,32,3,ssp2,");
  for (std::size_t i = 1; i < csv.size(); ++i) EXPECT_NE(csv[i].find(",ok,"), std::string::npos) << csv[i];

  // Run again: everything is complete, nothing runs and no run folder is written.
  const auto second = run_pstwin(sweep);
  ASSERT_EQ(second.exit_code, 0) << second.output;
  EXPECT_NE(second.output.find("12 already complete in " + dir + "/out, running 0"), std::string::npos)
      << second.output;
  EXPECT_EQ(summary_times(dir + "/out"), times);
  EXPECT_EQ(lines_of(read_file(dir + "/out/sweep.csv")).size(), 13u);

  // An interrupted sweep: one run folder is gone, and only it runs again.
  const std::string gone = "cluster.workers=4_training.batch_size=16_seed=3/asp";
  fs::remove_all(dir + "/out/" + gone);
  const auto third = run_pstwin(sweep);
  ASSERT_EQ(third.exit_code, 0) << third.output;
  EXPECT_NE(third.output.find("11 already complete in " + dir + "/out, running 1"), std::string::npos)
      << third.output;
  auto after = summary_times(dir + "/out");
  ASSERT_TRUE(after.count(gone));
  after.erase(gone);
  auto before = times;
  before.erase(gone);
  EXPECT_EQ(after, before);
}

TEST(CliSweep, AFolderOfOtherSettingsIsRefusedNotReused) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string sweep = "sweep " + dir + "/toy.json --quiet --out " + dir + "/out --grid /cluster/workers=2";
  ASSERT_EQ(run_pstwin(sweep).exit_code, 0);
  const auto times = summary_times(dir + "/out");
  const auto r = run_pstwin(sweep + " --set /training/iterations=20");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find(dir + "/out/cluster.workers=2_seed=3/bsp/summary.json records a run of other "
                          "settings (/training/iterations differs)"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(summary_times(dir + "/out"), times);
}

// A trial's sweep kept the runs of a variant that includes a cluster file after the file
// changed: the file's figures count among the settings a kept run must match.
TEST(CliSweep, AVariantsIncludedFileThatChangedIsNotReused) {
  const std::string dir = fresh_dir();
  nlohmann::json s = synthetic_scenario(1e4, 1e6);
  s["training"]["iterations"] = 5;
  s.erase("consistency");
  s["variants"] = nlohmann::json::parse(R"([{"name": "plain"},
      {"name": "cal", "set": {"/cluster/include": "cal.json", "/cluster/worker": null}}])");
  write_json(dir + "/s.json", s);
  nlohmann::json cal = {{"worker", s["cluster"]["worker"]}};
  write_json(dir + "/cal.json", cal);
  const std::string sweep = "sweep " + dir + "/s.json --quiet --out " + dir + "/out --grid /cluster/workers=2";
  const auto first = run_pstwin(sweep);
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_EQ(read_json(dir + "/out/cluster.workers=2_seed=1/cal/summary.json")["config"]["cluster"]["worker"]["link"]
                ["bandwidth"], "10Gbps");
  const auto times = summary_times(dir + "/out");

  cal["worker"]["link"]["bandwidth"] = "1Gbps";
  write_json(dir + "/cal.json", cal);
  const auto second = run_pstwin(sweep);
  EXPECT_EQ(second.exit_code, 2) << second.output;
  EXPECT_NE(second.output.find("cluster.workers=2_seed=1/cal/summary.json records a run of other settings "
                               "(/cluster/worker/link/bandwidth differs)"),
            std::string::npos) << second.output;
  EXPECT_EQ(summary_times(dir + "/out"), times);  // refused, not rerun over the old run
}

TEST(CliSweep, SeedsRunEachPointWithTheScenarioSeedPlusK) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);  // seed 3
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "asp"}])");
  write_json(dir + "/toy.json", s);
  const auto r = run_pstwin("sweep " + dir + "/toy.json --quiet --seeds 2 --out " + dir +
                            "/out --grid /cluster/workers=2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto csv = lines_of(read_file(dir + "/out/sweep.csv"));
  ASSERT_EQ(csv.size(), 3u);
  EXPECT_EQ(csv[1].substr(0, 9), "2,3,asp,a");
  EXPECT_EQ(csv[2].substr(0, 9), "2,4,asp,a");
  EXPECT_EQ(read_json(dir + "/out/cluster.workers=2_seed=4/asp/summary.json")["config"]["seed"], 4);
}

TEST(CliSweep, AGridOverAPointerTheScenarioLacksFailsBeforeAnythingRuns) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  for (const char* grid : {"/cluster/wrokers=2,4", "/clustr/workers=2,4"}) {
    const auto r = run_pstwin("sweep " + dir + "/toy.json --out " + dir + "/out --grid /training/batch_size=16 --grid " + grid);
    EXPECT_EQ(r.exit_code, 2) << r.output;
    const std::string pointer = std::string(grid).substr(0, std::string(grid).find('='));
    EXPECT_NE(r.output.find(": " + pointer + ": "), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/out"));
  }
  for (const char* bad : {"--grid /cluster/workers", "--grid /cluster/workers=2,,4", "--grid /cluster/workers=2,2",
                          "--grid /cluster/workers=2 --grid /cluster/workers=4", "--seeds 0",
                          // no grid at all; a key of the whole comparison; a bad SimGrid option
                          "", "--grid /name=a,b", "--grid /cluster/workers=2 --cfg=network/latency-factor:-1"}) {
    const auto r = run_pstwin("sweep " + dir + "/toy.json --out " + dir + "/out " + bad);
    EXPECT_EQ(r.exit_code, 2) << bad << "\n" << r.output;
    EXPECT_FALSE(fs::exists(dir + "/out"));
  }
}

// A fresh user swept /training/learning_rate over variants that set it themselves: sweep.csv
// showed the grid's rates for runs that used their own.
TEST(CliSweep, AGridOverAPointerAVariantSetsIsRefusedNamingBoth) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s.erase("consistency");
  s["variants"] = nlohmann::json::parse(R"([{"name": "bsp"},
      {"name": "asp", "consistency": {"mode": "asp"}, "set": {"/training/learning_rate": 0.05}}])");
  write_json(dir + "/toy.json", s);
  for (const char* grid : {"/training/learning_rate=0.01,0.2", "/training={}"}) {
    const auto r = run_pstwin("sweep " + dir + "/toy.json --out " + dir + "/out --grid " + std::string(grid));
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_NE(r.output.find("variant \"asp\" sets /training/learning_rate itself"), std::string::npos) << r.output;
    EXPECT_FALSE(fs::exists(dir + "/out"));
  }
}

TEST(SweepGrid, ValuesSplitAtCommasOutsideJson) {
  const auto axis = cli::parse_grid_axis("/cluster/worker/link=\"10Gbps\", {\"a\":[1,2]},[3,4],x");
  EXPECT_EQ(axis.pointer, "/cluster/worker/link");
  EXPECT_EQ(axis.values, (std::vector<std::string>{"\"10Gbps\"", "{\"a\":[1,2]}", "[3,4]", "x"}));
  EXPECT_EQ(cli::folder_safe("\"10Gbps\""), "10Gbps");
  EXPECT_EQ(cli::folder_safe("[3,4]"), "3_4");
  EXPECT_EQ(cli::grid_points({cli::parse_grid_axis("/a=1,2"), cli::parse_grid_axis("/b=x,y,z")}).size(), 6u);
  EXPECT_EQ(cli::grid_points({}).size(), 1u);
}

}  // namespace
}  // namespace pstwin

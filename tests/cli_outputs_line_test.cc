// The "outputs:" line after a run names the files it wrote (a trial found trace.json and
// link_load.csv left out), and launch takes --quiet as simulate, sweep and node do.
#include <gtest/gtest.h>

#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

json small_bsp(const std::string& dir) {
  json s = toy_scenario(dir);
  s["consistency"] = json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 10;
  s["training"]["eval_every"] = 5;
  s.erase("stragglers");
  return s;
}

TEST(CliOutputsLine, SimulateNamesTheTraceAndTheLinkLoads) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", small_bsp(dir));
  const auto r = run_pstwin("simulate " + dir + "/s.json --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  ASSERT_TRUE(std::filesystem::exists(dir + "/out/bsp/trace.json"));
  ASSERT_TRUE(std::filesystem::exists(dir + "/out/bsp/link_load.csv"));
  EXPECT_NE(r.output.find("outputs: " + dir + "/out/ (comparison.csv, <variant>/metrics.csv, summary.json, "
                          "events.jsonl, trace.json, link_load.csv)\n"),
            std::string::npos)
      << r.output;
}

// launch rejected --quiet ("unrecognised option"); it now means what it means elsewhere: no
// progress lines. A launched job writes a trace and no link loads.
TEST(CliOutputsLine, LaunchTakesQuietAndNamesOnlyWhatItWrote) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", small_bsp(dir));
  auto r = run_pstwin("launch " + dir + "/s.json --transport inproc --quiet --out " + dir + "/out");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("launch: bsp ("), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("outputs: " + dir + "/out/ (comparison.csv, <variant>/metrics.csv, summary.json, "
                          "events.jsonl, trace.json)\n"),
            std::string::npos)
      << r.output;
  // Without --quiet the line per variant is there: the switch is what removed it.
  r = run_pstwin("launch " + dir + "/s.json --transport inproc --out " + dir + "/out2");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("launch: bsp (inproc, 2 servers, 4 workers)"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin

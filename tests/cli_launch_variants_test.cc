// pstwin launch on a scenario with "variants": every node of a variant runs the scenario the
// variant resolves to (node --variant), and the stopping rule ends the real job too.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(LaunchVariants, EachVariantRunsItsOwnOverridesAndStopsAtTheTarget) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s.erase("consistency");
  s["training"]["stop_at_target"] = true;
  s["training"]["target_metric"] = 0.7;
  s["variants"] = nlohmann::json::parse(R"([
    {"name": "bsp"},
    {"name": "asp-2w", "consistency": {"mode": "asp"},
     "set": {"/training/learning_rate": 0.05, "/cluster/workers": 2, "/stragglers": []}}])");
  write_json(dir + "/v.json", s);
  for (const std::string transport : {"zmq", "inproc"}) {
    const std::string out = dir + "/" + transport;
    const auto r = run_pstwin("launch " + dir + "/v.json --insecure --transport " + transport + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    const auto bsp = read_json(out + "/bsp/summary.json");
    const auto asp = read_json(out + "/asp-2w/summary.json");
    EXPECT_EQ(bsp["workers"], 4) << transport;
    EXPECT_EQ(asp["workers"], 2) << transport;
    EXPECT_EQ(asp["mode"], "asp") << transport;
    EXPECT_DOUBLE_EQ(asp["config"]["training"]["learning_rate"].get<double>(), 0.05) << transport;
    for (const auto& summary : {bsp, asp}) {
      EXPECT_EQ(summary["stop_reason"], "target_metric") << transport << summary.dump(2);
      EXPECT_GE(summary["final_test_metric"].get<double>(), 0.7) << transport;
      EXPECT_LT(summary["final_clock"].get<int>(), 60) << transport;  // before its 60 iterations
    }
  }
}

}  // namespace
}  // namespace pstwin

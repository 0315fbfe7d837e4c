// SimGrid's own options through the command line: simulate --cfg=NAME:VALUE and a scenario's
// simulation.cfg reach SimGrid's engine, and options SimGrid refuses are bad input (status 2).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

/// The toy logistic problem, BSP only: gradients are tiny, so latency dominates the network.
nlohmann::json bsp_toy(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  return s;
}

/// Simulates `scenario` with `extra` flags in dir/<tag>; returns its BSP summary.
nlohmann::json run_bsp(const std::string& dir, const nlohmann::json& scenario, const std::string& tag,
                       const std::string& extra = "") {
  write_json(dir + "/" + tag + ".json", scenario);
  const auto r = run_pstwin("simulate " + dir + "/" + tag + ".json --quiet --out " + dir + "/" + tag +
                            " " + extra);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return read_json(dir + "/" + tag + "/bsp/summary.json");
}

TEST(CliSimGridCfg, OptionsReachTheEngineFromTheFlagAndTheScenario) {
  const std::string dir = fresh_dir();
  const auto scenario = bsp_toy(dir);
  const auto lv08 = run_bsp(dir, scenario, "default");
  const double t = lv08["sim_time_s"].get<double>();
  ASSERT_GT(t, 0.0);

  // CM02 has none of LV08's correction factors (latency x13.01, bandwidth x0.97): every message
  // of this job of small messages arrives sooner, so the same BSP run ends sooner (here at 0.61
  // of LV08's time, the rest being computation), with the same parameters.
  const auto cm02 = run_bsp(dir, scenario, "cm02", "--cfg=network/model:CM02");
  EXPECT_LT(cm02["sim_time_s"].get<double>(), 0.8 * t);
  EXPECT_EQ(cm02["params_sha256"], lv08["params_sha256"]);

  // The same option from the scenario's list does exactly what the flag does.
  auto listed = scenario;
  listed["simulation"]["cfg"] = {"network/model:CM02"};
  const auto from_list = run_bsp(dir, listed, "listed");
  EXPECT_EQ(from_list["sim_time_s"], cm02["sim_time_s"]);
  EXPECT_EQ(from_list["params_sha256"], cm02["params_sha256"]);
  // A flag comes after the list: SimGrid keeps the last value of a name.
  const auto overridden = run_bsp(dir, listed, "overridden", "--cfg network/model:LV08");
  EXPECT_EQ(overridden["sim_time_s"], lv08["sim_time_s"]);

  // Threads instead of SimGrid's raw contexts change how actors switch, not what they do.
  const auto threads = run_bsp(dir, scenario, "threads", "--cfg=contexts/factory:thread");
  EXPECT_EQ(threads["params_sha256"], lv08["params_sha256"]);
  EXPECT_EQ(threads["sim_time_s"], lv08["sim_time_s"]);
}

TEST(CliSimGridCfg, RefusedOptionsAreBadInputNamingTheOption) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", bsp_toy(dir));
  const std::string toy = dir + "/toy.json";
  const struct {
    std::string flag;
    std::string message;
  } cases[] = {
      {"--cfg=no/such-option:1",
       "--cfg=no/such-option:1: SimGrid has no option named \"no/such-option\""},
      {"--cfg=maxmin/precision:fast",
       "--cfg=maxmin/precision:fast: SimGrid refused the value \"fast\": invalid double"},
      {"--cfg=network/model:Foo",
       "--cfg=network/model:Foo: Model 'Foo' is invalid! Valid models are: LV08, Constant, "
       "SMPI, IB, CM02, ns-3."},
      {"--cfg=network/model", "--cfg=network/model: expected NAME:VALUE"},
  };
  for (const auto& c : cases) {
    for (const std::string& command : {"simulate --out " + dir + "/out", std::string("validate")}) {
      const auto r = run_pstwin(command + " " + toy + " " + c.flag);
      EXPECT_EQ(r.exit_code, 2) << command << " " << c.flag << "\n" << r.output;
      EXPECT_TRUE(contains(r.output, "pstwin " + command.substr(0, command.find(' ')) + ": " + c.message))
          << command << " " << c.flag << "\n" << r.output;
      EXPECT_FALSE(contains(r.output, "Backtrace")) << r.output;
    }
    // Refused before anything ran: no output folder.
    EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << c.flag;
  }
}

TEST(CliSimGridCfg, ScenarioListIsCheckedLikeTheFlag) {
  const std::string dir = fresh_dir();
  auto s = bsp_toy(dir);
  s["simulation"]["cfg"] = {"network/model:CM02", "network/modle:CM02"};
  write_json(dir + "/typo.json", s);
  s["simulation"]["cfg"] = {"contexts/factory"};
  write_json(dir + "/syntax.json", s);
  s["simulation"]["cfg"] = {"network/model:CM02", "contexts/factory:thread"};
  write_json(dir + "/good.json", s);
  for (const std::string& command : {"simulate --out " + dir + "/out", std::string("validate")}) {
    auto r = run_pstwin(command + " " + dir + "/typo.json");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "typo.json: /simulation/cfg/1: SimGrid has no option named "
                                   "\"network/modle\"; under network/ it has "))
        << r.output;
    r = run_pstwin(command + " " + dir + "/syntax.json");
    EXPECT_EQ(r.exit_code, 2) << r.output;
    EXPECT_TRUE(contains(r.output, "syntax.json: /simulation/cfg/0: expected NAME:VALUE")) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
  // PSTWIN_SIMGRID_CFG cleared: the sanitizer runs set it, and its items would come first.
  auto r = run_pstwin_env("PSTWIN_SIMGRID_CFG=", "validate " + dir + "/good.json --cfg=maxmin/precision:1e-6");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "SimGrid options: network/model:CM02 contexts/factory:thread "
                                 "maxmin/precision:1e-6"))
      << r.output;
}

// The environment's options are the first part of the same list, checked the same way.
TEST(CliSimGridCfg, EnvironmentOptionsComeFirstAndAreChecked) {
  const std::string dir = fresh_dir();
  auto s = bsp_toy(dir);
  s["simulation"]["cfg"] = {"network/model:CM02"};
  write_json(dir + "/s.json", s);
  auto r = run_pstwin_env("PSTWIN_SIMGRID_CFG='contexts/factory:thread network/crosstraffic:0'",
                          "validate " + dir + "/s.json --cfg=maxmin/precision:1e-6");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "SimGrid options: contexts/factory:thread network/crosstraffic:0 "
                                 "network/model:CM02 maxmin/precision:1e-6"))
      << r.output;
  r = run_pstwin_env("PSTWIN_SIMGRID_CFG=network/latency-factor:-1", "simulate --out " + dir + "/out " + dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "pstwin simulate: PSTWIN_SIMGRID_CFG: network/latency-factor:-1: network/latency-factor "
                                 "takes a positive number"))
      << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

TEST(CliSimGridCfg, HelpNamesTheFlagAndTheUsefulOptions) {
  const auto r = run_pstwin("simulate --help");
  EXPECT_EQ(r.exit_code, 0);
  for (const char* part : {"--cfg NAME:VALUE", "contexts/factory:thread|ucontext|raw|boost",
                           "network/model:LV08|CM02|SMPI|IB", "network/crosstraffic:0|1",
                           "network/TCP-gamma:BYTES", "maxmin/precision:X", "surf/precision:X"})
    EXPECT_TRUE(contains(r.output, part)) << part << "\n" << r.output;
}

}  // namespace
}  // namespace pstwin

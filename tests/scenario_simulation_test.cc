// "simulation" (runtime/scenario/simulation_section.h): SimGrid options as a scenario lists them,
// and the spelling check that the scenario, simulate's --cfg and validate share.
#include <gtest/gtest.h>

#include <string>

#include "runtime/scenario/scenario.h"
#include "runtime/scenario/simulation_section.h"
#include "tests/scenario_test_support.h"

namespace pstwin {
namespace {

using nlohmann::json;
using testing_support::error_message;
using testing_support::error_pointer;

json timing_scenario() {
  return json::parse(R"({
    "name": "sim", "seed": 1,
    "model": {"type": "synthetic", "parameters": 1000, "flops_per_iteration": 1e6},
    "training": {"iterations": 10},
    "consistency": [{"mode": "bsp"}],
    "cluster": {"workers": 2, "servers": 1,
                "worker": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}},
                "server": {"device": "cpu", "link": {"bandwidth": "10Gbps", "latency": "10us"}}}
  })");
}

TEST(ScenarioSimulation, AbsentSectionMeansNoOptions) {
  EXPECT_TRUE(parse_scenario(timing_scenario()).simulation.cfg.empty());
  json s = timing_scenario();
  s["simulation"] = json::object();
  EXPECT_TRUE(parse_scenario(s).simulation.cfg.empty());
  s["simulation"]["cfg"] = json::array();
  EXPECT_TRUE(parse_scenario(s).simulation.cfg.empty());
}

TEST(ScenarioSimulation, OptionsAreKeptInOrderAsWritten) {
  json s = timing_scenario();
  // A value may hold ':' itself (SimGrid's factor lists do); the first ':' ends the name.
  s["simulation"]["cfg"] = {"network/model:CM02", "contexts/factory:thread",
                            "smpi/bw-factor:65472:0.94;0:0.81", "network/model:LV08"};
  const auto cfg = parse_scenario(s).simulation.cfg;
  ASSERT_EQ(cfg.size(), 4u);
  EXPECT_EQ(cfg[0], "network/model:CM02");
  EXPECT_EQ(cfg[1], "contexts/factory:thread");
  EXPECT_EQ(cfg[2], "smpi/bw-factor:65472:0.94;0:0.81");
  EXPECT_EQ(cfg[3], "network/model:LV08");
}

TEST(ScenarioSimulation, SpellingErrorsNameTheEntryAndWhatIsWrong) {
  const struct {
    json cfg;
    std::string pointer;
    std::string says;
  } cases[] = {
      {{"network/model:CM02", "nocolon"}, "/simulation/cfg/1", "no ':' in \"nocolon\""},
      {{":CM02"}, "/simulation/cfg/0", "no NAME before the ':'"},
      {{"network/model:"}, "/simulation/cfg/0", "no VALUE after \"network/model:\""},
      {{"network model:CM02"}, "/simulation/cfg/0", "has a ' '"},
      {{"network/model:CM02 maxmin/precision:1e-6"}, "/simulation/cfg/0", "white space"},
      {{"network/model:help"}, "/simulation/cfg/0", "\"help\" is not a value"},
      {{"network/model:CM02", 3}, "/simulation/cfg/1", "expected a non-empty string, got 3"},
      {"network/model:CM02", "/simulation/cfg", "expected an array"},
      // SimGrid takes any double here; a negative factor made messages arrive before they left.
      {{"network/latency-factor:-1"}, "/simulation/cfg/0",
       "network/latency-factor takes a positive number (or SIZE:NUMBER pieces joined by ';'), got \"-1\""},
      {{"network/bandwidth-factor:0"}, "/simulation/cfg/0", "got \"0\" in \"0\""},
      {{"network/bandwidth-factor:65472:0.94;0:-2"}, "/simulation/cfg/0", "got \"-2\" in"},
      {{"maxmin/precision:nan"}, "/simulation/cfg/0", "maxmin/precision takes a positive number"},
      {{"surf/precision:-inf"}, "/simulation/cfg/0", "got \"-inf\""},
  };
  for (const auto& c : cases) {
    json s = timing_scenario();
    s["simulation"]["cfg"] = c.cfg;
    EXPECT_EQ(error_pointer(s), c.pointer) << c.cfg;
    EXPECT_NE(error_message(s).find(c.says), std::string::npos) << error_message(s);
  }
  json s = timing_scenario();
  s["simulation"] = {{"config", json::array()}};
  EXPECT_EQ(error_pointer(s), "/simulation/config");
  s["simulation"] = json::array();
  EXPECT_EQ(error_pointer(s), "/simulation");
}

TEST(ScenarioSimulation, SyntaxCheckAcceptsSimGridsSpellings) {
  for (const char* ok : {"network/model:CM02", "network/TCP-gamma:65536", "maxmin/precision:1e-6",
                         "contexts/factory:thread", "tracing/smpi/format/ti-one-file:yes",
                         "help-nostop:1", "network/crosstraffic:0", "network/latency-factor:13.01",
                         "network/bandwidth-factor:65472:0.940694;15424:0.697866;0:0.5"})
    EXPECT_EQ(simgrid_option_syntax_error(ok), "") << ok;
  // Which names and values SimGrid accepts is not this check's question.
  EXPECT_EQ(simgrid_option_syntax_error("no/such/option:7"), "");
  EXPECT_NE(simgrid_option_syntax_error(""), "");
  EXPECT_NE(simgrid_option_syntax_error("network/model\tx:1"), "");
}

}  // namespace
}  // namespace pstwin

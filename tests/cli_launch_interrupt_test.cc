// A launcher over ZeroMQ stopped by the user's SIGINT: it waits for its local nodes before it
// ends (and lets go of its lock on OUT), and the job says it was stopped by SIGINT, the signal the
// user sent, not the SIGTERM a launcher used to forward.
#include <gtest/gtest.h>

#include <string>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(LaunchInterrupt, SigintWaitsForTheNodesAndIsTheReasonTheJobGives) {
  const std::string dir = fresh_dir();
  auto scenario = toy_scenario(dir);
  scenario["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  scenario["training"]["iterations"] = 1000000;  // far longer than the test waits
  write_json(dir + "/long.json", scenario);
  // Only the launcher gets the signal, as with `kill -INT PID`. Looked at as soon as it ended.
  const std::string out = run_script(
      "$PSTWIN launch " + dir + "/long.json --insecure --out " + dir + "/out >/dev/null 2>&1 & LP=$!; "
      "for i in $(seq 1 3000); do [ -s " + dir + "/out/bsp/metrics.csv ] && break; sleep 0.01; done; "
      "sleep 0.5; kill -INT $LP; wait $LP; echo rc=$?; "
      "ps -eo args | grep -c '^[^ ]*pstwin node .*" + dir + "/long.json'; "
      "[ -e " + dir + "/out/bsp/summary.json ] && echo summary").output;
  EXPECT_EQ(out, "rc=130\n0\nsummary\n") << "launcher status, nodes left running, summary written";
  const auto s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_NE(s["reason"].get<std::string>().find("stopped by SIGINT"), std::string::npos) << s["reason"];
}

}  // namespace
}  // namespace pstwin

// Every command refuses, before anything starts, a scenario whose largest message would exceed
// the wire's 1 GiB limit (runtime/wire_limit_check.h), naming the pointer, the size, the limit
// and the fix. Nothing is allocated at that size: the check reads the scenario only.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

// scale-synthetic.json with 280M float32 parameters on one server: one key range's push is
// 1120000124 bytes. Two workers, and short timeouts below, so that a command that failed to
// refuse it ends soon (its messages dropped) rather than hold the test for minutes.
const std::string kTooLarge = PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json --set /model/parameters=280000000 "
                                                "--set /cluster/servers=1 --set /cluster/workers=2";
const std::string kSaid =
    "/cluster/servers: a push or pull reply of one key range (280000000 keys x 1 float32) would be 1120000124 "
    "bytes, over the wire's limit of 1073741824 bytes per message; use at least 2 servers";

TEST(CliWireLimit, ValidateSimulateLaunchAndNodeRefuseAKeyRangeTooLargeForOneMessage) {
  const std::string dir = fresh_dir();
  for (const std::string& command :
       {std::string("validate"), "simulate --quiet --out " + dir + "/sim",
        "launch --insecure --connect-timeout 5 --stall-timeout 5 --out " + dir + "/zmq",
        "launch --transport inproc --stall-timeout 5 --out " + dir + "/inproc",
        std::string("node --role server --insecure --scheduler tcp://127.0.0.1:9 --connect-timeout 5")}) {
    const auto r = run_pstwin(command + " " + kTooLarge);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(kSaid), std::string::npos) << command << "\n" << r.output;
  }
  for (const char* out : {"/sim", "/zmq", "/inproc"}) EXPECT_FALSE(std::filesystem::exists(dir + out)) << out;
}

TEST(CliWireLimit, TheServersItNamesAreEnough) {
  const auto r = run_pstwin("validate " + kTooLarge + " --set /cluster/servers=2");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

// A sweep checks every grid point before any runs, naming the point; not one child per point.
TEST(CliWireLimit, SweepRefusesAGridPointTooLargeBeforeAnythingRuns) {
  const std::string dir = fresh_dir();
  const auto r = run_pstwin("sweep " PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json --grid "
                            "/model/parameters=1000,300000000 --set /cluster/servers=1 --set /cluster/workers=2 "
                            "--out " + dir + "/sweep");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("at model.parameters=300000000_seed=1: /cluster/servers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("/cluster/servers: a push or pull reply"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("running"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/sweep")) << r.output;
}

// A variant whose own "set" makes the message too large is blamed there, not on the base.
TEST(CliWireLimit, AVariantTooLargeIsBlamedOnItsOwnSetting) {
  const std::string dir = fresh_dir();
  auto s = read_json(PSTWIN_SOURCE_DIR "/scenarios/scale-synthetic.json");
  s["model"]["parameters"] = 300000000;
  s["cluster"]["servers"] = 2;
  s["cluster"]["workers"] = 2;
  s.erase("consistency");
  s["variants"] = nlohmann::json::array({{{"name", "a"}}, {{"name", "b"}, {"set", {{"/cluster/servers", 1}}}}});
  write_json(dir + "/v.json", s);
  const auto r = run_pstwin("validate " + dir + "/v.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("/variants/1/set/~1cluster~1servers: a push or pull reply"), std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace pstwin

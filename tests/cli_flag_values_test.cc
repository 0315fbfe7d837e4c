// Flag values as a user relies on them: a negative number in an unsigned flag is refused naming
// the flag (Boost read a trial's `--port -1` as 4294967295), a bad value from a PSTWIN_ variable
// names the variable that held it, not a flag never written, and `--metrics-address none` means
// "no metrics endpoint" for every transport.
#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// A fresh folder holding toy.json: the toy scenario, BSP only, 10 iterations (a short job).
std::string write_short_toy() {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 10;
  write_json(dir + "/toy.json", s);
  return dir;
}

TEST(CliFlagValues, ANegativeValueOfAnUnsignedFlagIsRefusedNamingTheFlag) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  for (const std::string port : {"--port -1", "--port=-7"}) {
    const auto r = run_pstwin("launch " + dir + "/toy.json " + port + " --out " + dir + "/o");
    EXPECT_EQ(r.exit_code, 2) << port << "\n" << r.output;
    EXPECT_EQ(r.output.find("pstwin launch: --port must not be negative (it counts from 0), got -"), 0u) << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/o"));
}

// Boost said only "the argument ('5000000000') for option '--seeds' is invalid" of a number past
// its flag's type; then the range named was int's (-2147483648 to ...) for flags that count
// from 0 or 1: the range named is the flag's own, and a value below it is refused as it is read.
TEST(CliFlagValues, ANumberPastItsFlagsRangeIsTooLargeOrTooSmallWithThatRange) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string toy = dir + "/toy.json --out " + dir + "/o";
  struct Case {
    std::string args, says;
  };
  for (const Case& c : std::vector<Case>{
           {"sweep " + toy + " --grid /seed=1 --seeds 5000000000",
            "pstwin sweep: --seeds is too large: 5000000000 (it takes 1 to 2147483647)"},
           {"sweep " + toy + " --grid /seed=1 --seeds 0", "pstwin sweep: --seeds is too small: 0 (it takes 1 to 2147483647)"},
           {"sweep " + toy + " --grid /seed=1 --jobs -1", "pstwin sweep: --jobs is too small: -1 (it takes 1 to 2147483647)"},
           {"simulate " + toy + " --jobs 99999999999999999999999",
            "pstwin simulate: --jobs is too large: 99999999999999999999999 (it takes 1 to 2147483647)"},
           {"simulate " + toy + " --jobs=-5000000000",
            "pstwin simulate: --jobs is too small: -5000000000 (it takes 1 to 2147483647)"},
           {"simulate " + toy + " --jobs -0", "pstwin simulate: --jobs is too small: 0 (it takes 1 to 2147483647)"},
           {"launch " + toy + " --port 5000000000", "pstwin launch: --port is too large: 5000000000 (it takes 0 to 65535)"},
           {"launch " + toy + " --port 65536", "pstwin launch: --port is too large: 65536 (it takes 0 to 65535)"}}) {
    const auto r = run_pstwin(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find(c.says + "\n"), 0u) << c.args << "\n" << r.output;
  }
  const auto r = run_pstwin_env("PSTWIN_INDEX=5000000000",
                                "node --role worker --scheduler tcp://127.0.0.1:1 --insecure --variant bsp " + dir +
                                    "/toy.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("pstwin node: PSTWIN_INDEX is too large: 5000000000 (it takes 0 to 2147483647)\n"), 0u)
      << r.output;
  const auto below = run_pstwin("node --role worker --scheduler tcp://127.0.0.1:1 --insecure --variant bsp --index -1 " +
                                dir + "/toy.json");
  EXPECT_EQ(below.exit_code, 2) << below.output;
  EXPECT_EQ(below.output.find("pstwin node: --index is too small: -1 (it takes 0 to 2147483647)\n"), 0u) << below.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/o"));
}

// `--port -0` was refused as negative: zero written with a minus sign is zero.
TEST(CliFlagValues, MinusZeroIsZero) {
  const std::string dir = write_short_toy();
  const auto r = run_pstwin("launch " + dir + "/toy.json --transport inproc --port -0 --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/o/bsp/summary.json"));
}

// "1 servers": every count in a message agrees with its noun (runtime/count_text.h).
TEST(CliFlagValues, CountsOfOneAreSingular) {
  const std::string dir = write_short_toy();
  auto s = read_json(dir + "/toy.json");
  s["cluster"]["workers"] = 1;
  s["cluster"]["servers"] = 1;
  s["stragglers"] = nlohmann::json::array();
  write_json(dir + "/one.json", s);
  const auto valid = run_pstwin("validate " + dir + "/one.json");
  EXPECT_EQ(valid.exit_code, 0) << valid.output;
  EXPECT_NE(valid.output.find("is valid: 1 worker, 1 server, model logistic"), std::string::npos) << valid.output;
  EXPECT_NE(valid.output.find(" rows for 1 worker\n"), std::string::npos) << valid.output;
  const auto launched = run_pstwin("launch " + dir + "/one.json --transport inproc --out " + dir + "/o");
  EXPECT_EQ(launched.exit_code, 0) << launched.output;
  EXPECT_NE(launched.output.find("launch: bsp (inproc, 1 server, 1 worker)"), std::string::npos) << launched.output;
  EXPECT_NE(launched.output.find("scenario toy: 1 worker, 1 server"), std::string::npos) << launched.output;
}

TEST(CliFlagValues, ABadValueFromTheEnvironmentNamesItsVariable) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string node = "node --role worker --scheduler tcp://127.0.0.1:1 --insecure --variant bsp " + dir + "/toy.json";
  struct Case {
    std::string env, says;
  };
  for (const Case& c : std::vector<Case>{
           {"PSTWIN_DEVICE=gpu", "pstwin node: PSTWIN_DEVICE must be auto, cpu or cuda, not 'gpu'"},
           {"PSTWIN_STALL_TIMEOUT=abc",
            "pstwin node: PSTWIN_STALL_TIMEOUT='abc' is not a valid value for --stall-timeout"},
           {"PSTWIN_STALL_TIMEOUT=-5", "pstwin node: PSTWIN_STALL_TIMEOUT must be a positive, finite number"},
           {"PSTWIN_INDEX=x1", "pstwin node: PSTWIN_INDEX='x1' is not a valid value for --index"}}) {
    const auto r = run_pstwin_env(c.env, node);
    EXPECT_EQ(r.exit_code, 2) << c.env << "\n" << r.output;
    EXPECT_EQ(r.output.find(c.says), 0u) << c.env << "\n" << r.output;
  }
  // The command line still wins over the variable, and then is what is named.
  const auto r = run_pstwin_env("PSTWIN_DEVICE=cpu", node + " --device gpu");
  EXPECT_EQ(r.output.find("pstwin node: --device must be"), 0u) << r.output;
}

TEST(CliFlagValues, MetricsAddressNoneIsAcceptedInProcess) {
  const std::string dir = write_short_toy();
  const auto r = run_pstwin("launch " + dir + "/toy.json --transport inproc --metrics-address none --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/o/bsp/summary.json"));
  // (An address is still refused: CliMetricsAddress.InProcessJobsServeNoMetricsSoTheFlagIsRefused.)
}

// glibc ignores a MALLOC_*_ value that is not a number; launch says so once, not once more for
// each node it starts.
TEST(CliFlagValues, AMallocVariableGlibcIgnoresIsSaidOnce) {
  const std::string dir = write_short_toy();
  const auto r = run_pstwin_env("MALLOC_MMAP_THRESHOLD_=abc", "launch " + dir + "/toy.json --insecure --out " + dir + "/o");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  const std::string note = "MALLOC_MMAP_THRESHOLD_='abc' is not a number, so glibc ignored it";
  const auto first = r.output.find("pstwin launch: " + note);
  EXPECT_NE(first, std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(note, first + note.size()), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin

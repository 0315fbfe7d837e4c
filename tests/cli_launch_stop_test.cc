// Jobs that end at once rather than wait out a timeout: a node whose UCX starts but reaches no
// peer fails as the job starts, naming UCX's reason.
#include <gtest/gtest.h>

#include <regex>
#include <string>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using json = nlohmann::json;
using namespace testing_support;

TEST(LaunchStop, UcxThatReachesNoPeerFailsAsTheJobStartsNamingTheNodeAndUcxsReason) {
  // UCX_TLS=self starts, but reaches only its own process: every server and worker fails as it
  // gets the address book, instead of dropping every message until the stall timeout (here
  // 10 s, so that a job that waits for it fails this test rather than hangs it).
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const auto r = run_pstwin_env("UCX_TLS=self", "launch " + dir + "/s.json --out " + dir +
                                                    "/out --transport ucx --insecure --connect-timeout 30 "
                                                    "--stall-timeout 10");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  std::smatch said;
  ASSERT_TRUE(std::regex_search(r.output, said,
                                std::regex("node [0-9]+: UCX cannot reach node [0-9]+ at tcp://[^ ]+: Destination is "
                                           "unreachable \\(UCX_TLS=self; ")))
      << r.output;
  std::smatch node;
  ASSERT_TRUE(std::regex_search(r.output, node,
                                std::regex("pstwin launch: ((server|worker):[0-9]+) exited with status 1[ ,].*stopping "
                                           "the job")))
      << r.output;
  const json s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(s["completed"].get<bool>());
  EXPECT_EQ(s["reason"].get<std::string>().rfind(node[1].str() + " exited with status 1", 0), 0u) << s["reason"];
}

}  // namespace
}  // namespace pstwin

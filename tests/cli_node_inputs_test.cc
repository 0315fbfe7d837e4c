// What `pstwin node` is given is checked as it starts: a --resume folder with nothing to resume
// from is refused at once (a trial's scheduler waited for its nodes first), and --quiet keeps
// the scheduler's stderr quiet (a trial's still said where its live metrics were).
#include <gtest/gtest.h>

#include <filesystem>

#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

std::string scheduler(const std::string& dir) {
  // Without the check, the scheduler waits this long for its nodes, then fails otherwise (exit 1).
  return "node --role scheduler --scheduler 'tcp://127.0.0.1:*' --insecure --connect-timeout 3 --out " + dir +
         "/out " + dir + "/s.json";
}

TEST(NodeInputs, AResumeFolderWithNothingToResumeFromIsRefusedAtOnce) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  std::filesystem::create_directories(dir + "/empty");
  write_json(dir + "/file", nlohmann::json::object());
  struct Case {
    std::string env, args, says;
  };
  for (const Case& c : std::vector<Case>{
           {"", "--resume " + dir + "/nodir", "pstwin node: --resume " + dir + "/nodir: no such folder"},
           {"", "--resume " + dir + "/file", "pstwin node: --resume " + dir + "/file: not a folder"},
           {"", "--resume " + dir + "/empty", "pstwin node: --resume " + dir + "/empty: no complete checkpoint in it"},
           {"PSTWIN_RESUME=" + dir + "/nodir", "", "pstwin node: PSTWIN_RESUME " + dir + "/nodir: no such folder"}}) {
    const auto r = run_pstwin_env(c.env, scheduler(dir) + " " + c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.says), std::string::npos) << c.args << "\n" << r.output;
  }
  // A worker too: every node resumes from the folder.
  const auto r = run_pstwin("node --role worker --scheduler tcp://127.0.0.1:9 --insecure --resume " + dir + "/nodir " +
                            dir + "/s.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("pstwin node: --resume " + dir + "/nodir: no such folder"), std::string::npos) << r.output;
  EXPECT_FALSE(std::filesystem::exists(dir + "/out")) << "refused before the output folder is taken";
}

TEST(NodeInputs, QuietSchedulerSaysNothingOfItsLiveMetricsButStillWritesTheirUrl) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  const std::string node = "node --role scheduler --scheduler 'tcp://127.0.0.1:*' --insecure --connect-timeout 0.3 "
                           "--metrics-address 127.0.0.1:0 " + dir + "/s.json --out " + dir + "/";
  const auto loud = run_pstwin(node + "loud");
  EXPECT_NE(loud.output.find("live metrics at http://127.0.0.1:"), std::string::npos) << loud.output;
  const auto quiet = run_pstwin(node + "quiet --quiet");
  EXPECT_EQ(quiet.output.find("live metrics"), std::string::npos) << quiet.output;
  EXPECT_EQ(read_file(dir + "/quiet/metrics.url").rfind("http://127.0.0.1:", 0), 0u);
}

}  // namespace
}  // namespace pstwin

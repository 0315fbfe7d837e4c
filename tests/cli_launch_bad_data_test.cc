// `pstwin launch` on a data file that is bad past what the cheap check reads (runtime/
// data_check.h): the node that meets the bad line ends the job at once, and launch exits 2 naming
// the file and line.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "runtime/data_check.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

TEST(LaunchBadData, ABadLineDeepInsideEndsTheJobAtOnceWithStatus2NamingFileAndLine) {
  const std::string dir = fresh_dir();
  nlohmann::json s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  // 60,000 rows (about 2 MB), line 50,001 bad: past the first MiB that launch checks up front.
  write_toy_libsvm(dir + "/train.svm", 60000, 7);
  std::istringstream rows(read_file(dir + "/train.svm"));
  std::ostringstream bad;
  std::size_t line = 0, bytes_before = 0;
  for (std::string row; std::getline(rows, row);) {
    if (++line == 50001) {
      row = "+1 3:1 oops";
    } else if (line < 50001) {
      bytes_before += row.size() + 1;
    }
    bad << row << "\n";
  }
  ASSERT_GT(bytes_before, kDataCheckBytes);
  std::ofstream(dir + "/train.svm") << bad.str();
  write_json(dir + "/s.json", s);
  // Timeouts far longer than the job should last: a node waiting one out would say so.
  const auto r = run_pstwin("launch " + dir + "/s.json --connect-timeout 60 --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("train.svm:50001: expected index:value, got 'oops'"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("within 60 s"), std::string::npos) << r.output;  // nobody timed out
  const auto summary = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(summary["completed"].get<bool>());
  EXPECT_NE(summary["reason"].get<std::string>().find("train.svm:50001"), std::string::npos) << summary["reason"];
}

}  // namespace
}  // namespace pstwin

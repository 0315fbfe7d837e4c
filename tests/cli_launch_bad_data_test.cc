// `pstwin launch` on data that is bad past what it reads before the nodes start: the node that
// meets it ends the job at once, and launch exits 2 naming the file. Launch reads a LIBSVM or
// ratings file whole before it starts a node (to size the model: runtime/data_check.h,
// cli/run_checks.h), so such a file's bad line is refused up front, as simulate refuses it; an
// IDX pair's images are the part it leaves to the nodes (the headers and labels give the size).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

std::string be32(std::uint32_t v) {
  return std::string{static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
}

// The toy scenario on an IDX pair of 8 images of 2 x 2 pixels whose images file is cut short:
// its header and labels are fine, its 32 pixel bytes are 20.
nlohmann::json truncated_idx_scenario(const std::string& dir) {
  nlohmann::json s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  s["training"]["batch_size"] = 1;
  std::ofstream(dir + "/img", std::ios::binary) << be32(0x803) + be32(8) + be32(2) + be32(2) + std::string(20, '\x7f');
  std::ofstream(dir + "/lbl", std::ios::binary) << be32(0x801) + be32(8) + std::string{0, 1, 0, 1, 0, 1, 0, 1};
  s["data"] = {{"format", "idx"}, {"train", dir + "/img"}, {"train_labels", dir + "/lbl"},
               {"test", dir + "/img"}, {"test_labels", dir + "/lbl"}};
  return s;
}

TEST(LaunchBadData, BadImagesEndTheJobAtOnceWithStatus2NamingTheFile) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", truncated_idx_scenario(dir));
  // Timeouts far longer than the job should last: a node waiting one out would say so.
  const auto r = run_pstwin("launch " + dir + "/s.json --connect-timeout 60 --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  const std::string said = dir + "/img: truncated: header says 8 x 2 x 2 = 32 bytes of data, file has 20";
  EXPECT_NE(r.output.find(said), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find("within 60 s"), std::string::npos) << r.output;  // nobody timed out
  const auto summary = read_json(dir + "/out/bsp/summary.json");
  EXPECT_FALSE(summary["completed"].get<bool>());
  EXPECT_NE(summary["reason"].get<std::string>().find(said), std::string::npos) << summary["reason"];
}

// A LIBSVM file's bad line past its first MiB: launch reads it whole before starting anything,
// and refuses it as simulate does, naming the file and line, with no node started.
TEST(LaunchBadData, ABadLineDeepInsideALibsvmFileIsRefusedBeforeAnyNodeStarts) {
  const std::string dir = fresh_dir();
  nlohmann::json s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::parse(R"([{"mode": "bsp"}])");
  s["cluster"]["workers"] = 2;
  s["cluster"]["servers"] = 1;
  // 60,000 rows (about 2 MB), line 50,001 bad: past the first MiB that validate parses.
  write_toy_libsvm(dir + "/train.svm", 60000, 7);
  std::istringstream rows(read_file(dir + "/train.svm"));
  std::ostringstream bad;
  std::size_t line = 0;
  for (std::string row; std::getline(rows, row);) bad << (++line == 50001 ? "+1 3:1 oops" : row) << "\n";
  std::ofstream(dir + "/train.svm") << bad.str();
  write_json(dir + "/s.json", s);
  for (const std::string& command : {"launch --connect-timeout 60 --out " + dir + "/out",
                                     "simulate --quiet --out " + dir + "/sim"}) {
    const auto r = run_pstwin(command + " " + dir + "/s.json");
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find("pstwin " + command.substr(0, command.find(' ')) + ": bad data at /data/train: " + dir +
                            "/train.svm:50001: expected index:value, got 'oops'"),
              std::string::npos)
        << command << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir + "/out"));
}

}  // namespace
}  // namespace pstwin

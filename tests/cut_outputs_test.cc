// tidy_killed_run_folder: the folder of a variant process killed mid-write (a stopped simulate)
// holds whole records only afterwards, whatever point the kill cut.
#include "runtime/output/cut_outputs.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/scratch_dir.h"

namespace pstwin {
namespace {

using testing_support::ScratchDir;

const std::string kHeader =
    "time_s,clock,updates,train_loss,test_loss,test_metric,staleness_mean,staleness_max\n";

std::string contents(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(KeepWholeLines, CutsAPartialLastLineAndSaysHowMuch) {
  ScratchDir dir("cut");
  const std::string path = dir.write("events.jsonl", "{\"a\":1}\n{\"b\":2}\n{\"c\":");
  EXPECT_EQ(keep_whole_lines(path), 5u);  // {"c":
  EXPECT_EQ(contents(path), "{\"a\":1}\n{\"b\":2}\n");
  EXPECT_EQ(keep_whole_lines(path), 0u) << "whole lines stay as they are";
  EXPECT_EQ(contents(path), "{\"a\":1}\n{\"b\":2}\n");
}

TEST(KeepWholeLines, ALineLongerThanAReadBlockIsCutWhole) {
  // The cut part of a writer's 16 KiB buffer spans several of the 4 KiB blocks read backwards.
  ScratchDir dir("cut");
  const std::string whole = "1,2\n";
  const std::string path = dir.write("metrics.csv", whole + std::string(10000, '7'));
  EXPECT_EQ(keep_whole_lines(path), 10000u);
  EXPECT_EQ(contents(path), whole);
  const std::string none = dir.write("none.csv", std::string(9000, 'x'));
  EXPECT_EQ(keep_whole_lines(none), 9000u);
  EXPECT_EQ(contents(none), "") << "no line ended: nothing whole";
}

TEST(KeepWholeLines, AMissingFileIsLeftMissingAndALinkIsNotFollowed) {
  ScratchDir dir("cut");
  EXPECT_EQ(keep_whole_lines(dir.file("absent.csv")), 0u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("absent.csv")));
  const std::string target = dir.write("users_file", "keep this");
  std::filesystem::create_symlink(target, dir.file("metrics.csv"));
  try {
    keep_whole_lines(dir.file("metrics.csv"));
    FAIL() << "a link must not be followed";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot cut " + dir.file("metrics.csv") + " back to whole lines"),
              std::string::npos)
        << e.what();
  }
  EXPECT_EQ(contents(target), "keep this");
}

TEST(TidyKilledRunFolder, LeavesWholeRecordsAndRemovesOnlyTheKilledWritersTemporaries) {
  ScratchDir dir("tidy");
  dir.write("metrics.csv", kHeader + "1,10,80,0.5,0.6,0.7,0.1,1\n2,20,1");
  dir.write("events.jsonl", "{\"time_s\":1,\"type\":\"a\"}\n{\"time_s\":2,\"ty");
  dir.write("trace.json.tmp.4242", "{\"displayTimeUnit\":");  // killed while writing it whole
  dir.write("summary.json.tmp.4242", "{");
  dir.write("summary.json.tmp.99", "another process's");      // not the killed writer's
  dir.write("summary.json", "{}\n");
  tidy_killed_run_folder(dir.path().string(), 4242);
  EXPECT_EQ(contents(dir.file("metrics.csv")), kHeader + "1,10,80,0.5,0.6,0.7,0.1,1\n");
  EXPECT_EQ(contents(dir.file("events.jsonl")), "{\"time_s\":1,\"type\":\"a\"}\n");
  EXPECT_FALSE(std::filesystem::exists(dir.file("trace.json.tmp.4242")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("summary.json.tmp.4242")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("summary.json.tmp.99")));
  EXPECT_EQ(contents(dir.file("summary.json")), "{}\n");
}

TEST(TidyKilledRunFolder, AMetricsFileWithNothingWholeGetsItsHeader) {
  ScratchDir dir("tidy");
  dir.write("metrics.csv", "time_s,clo");  // cut inside the header
  tidy_killed_run_folder(dir.path().string(), 1);
  EXPECT_EQ(contents(dir.file("metrics.csv")), kHeader);
  ScratchDir empty("tidy_empty");
  tidy_killed_run_folder(empty.path().string(), 1);
  EXPECT_FALSE(std::filesystem::exists(empty.file("metrics.csv"))) << "a file not written is not made";
}

}  // namespace
}  // namespace pstwin

// No output file is ever written through a symbolic link planted in the output folder (a link at
// OUT/bsp/job.key made launch write the job's secret key into the link's target): streamed files
// refuse a link, naming it; files written whole replace it; the lock file refuses it; a key file
// removes it and is created anew, owner-only.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

namespace fs = std::filesystem;
using namespace testing_support;

/// A file outside the output folder that a planted link points at; its text must never change.
std::string make_victim(const std::string& dir) {
  const std::string victim = dir + "/victim.txt";
  std::ofstream(victim) << "precious\n";
  return victim;
}

/// The toy scenario with one BSP variant, so that its output folder is OUT/bsp.
std::string write_bsp_toy(const std::string& dir) {
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  write_json(dir + "/s.json", s);
  return dir + "/s.json";
}

TEST(OutputLinks, FilesWrittenWholeReplaceAPlantedLinkAndNeverWriteItsTarget) {
  const std::string dir = fresh_dir();
  const std::string scenario = write_bsp_toy(dir);
  const std::string victim = make_victim(dir);
  for (const std::string command : {"simulate", "launch"}) {
    const std::string out = dir + "/" + command;
    fs::create_directories(out + "/bsp");
    const std::vector<std::string> whole = {out + "/comparison.csv", out + "/bsp/summary.json",
                                            out + "/bsp/trace.json", out + "/bsp/link_load.csv"};
    for (const auto& path : whole) fs::create_symlink(victim, path);
    const auto r = run_pstwin(command + " " + scenario + " --out " + out +
                              (command == "launch" ? " --transport inproc" : " --quiet"));
    EXPECT_EQ(r.exit_code, 0) << r.output;
    for (const auto& path : whole)
      if (command == "simulate" || path.find("link_load") == std::string::npos) {
        EXPECT_FALSE(fs::is_symlink(path)) << path << " still a link: not written";
      }
    EXPECT_EQ(read_file(victim), "precious\n") << command;
  }
}

TEST(OutputLinks, StreamedFilesAndTheLockRefuseAPlantedLinkNamingIt) {
  const std::string dir = fresh_dir();
  const std::string scenario = write_bsp_toy(dir);
  const std::string victim = make_victim(dir);
  for (const std::string command : {"simulate", "launch"}) {
    for (const std::string file : {"bsp/metrics.csv", "bsp/events.jsonl", ".pstwin.lock"}) {
      const std::string out = dir + "/" + command + "-" + fs::path(file).filename().string();
      fs::create_directories(out + "/bsp");
      fs::create_symlink(victim, out + "/" + file);
      const auto r = run_pstwin(command + " " + scenario + " --out " + out +
                                (command == "launch" ? " --transport inproc" : " --quiet"));
      EXPECT_NE(r.exit_code, 0) << command << " " << file << "\n" << r.output;
      EXPECT_NE(r.output.find(out + "/" + file + ": it is a symbolic link"), std::string::npos)
          << command << " " << file << "\n" << r.output;
      EXPECT_EQ(read_file(victim), "precious\n") << command << " " << file;
    }
  }
}

// keygen refuses to overwrite an existing key; a dangling link "does not exist" to that check,
// and once made keygen create the link's target.
TEST(OutputLinks, AKeyFileReplacesAPlantedDanglingLinkAndIsOwnerOnly) {
  const std::string dir = fresh_dir();
  fs::create_symlink(dir + "/planted.key", dir + "/job.key");
  const auto r = run_pstwin("keygen " + dir + "/job.key");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/planted.key"));
  EXPECT_FALSE(fs::is_symlink(dir + "/job.key"));
  EXPECT_NE(read_file(dir + "/job.key").find("secret "), std::string::npos);
  EXPECT_EQ(fs::status(dir + "/job.key").permissions() & fs::perms::all,
            fs::perms::owner_read | fs::perms::owner_write);
}

}  // namespace
}  // namespace pstwin

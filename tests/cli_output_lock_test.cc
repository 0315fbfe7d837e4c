// One run at a time per output folder: a second simulate, sweep or launch into a folder another
// run holds is refused with the folder and the holder's pid; a lock a dead run left never blocks;
// a run's own child processes (simulate --jobs, sweep) write under its lock without waiting on
// it; launch and simulate have default folders of their own.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// Holds DIR/.pstwin.lock as a run would ("PID simulate"), until destroyed.
class HeldLock {
 public:
  explicit HeldLock(const std::string& dir) {
    std::filesystem::create_directories(dir);
    fd_ = ::open((dir + "/.pstwin.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    EXPECT_EQ(::flock(fd_, LOCK_EX | LOCK_NB), 0);
    const std::string line = std::to_string(::getpid()) + " simulate\n";
    EXPECT_EQ(::write(fd_, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  }
  ~HeldLock() { ::close(fd_); }

 private:
  int fd_ = -1;
};

TEST(CliOutputLock, ASecondRunIntoAHeldFolderIsRefusedNamingTheFolderAndTheHoldersPid) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string out = dir + "/out";
  HeldLock held(out);
  const std::string holder = "output folder " + out + " is in use by another run (pid " +
                             std::to_string(::getpid()) + ", pstwin simulate)";
  for (const std::string& command :
       {"simulate " + dir + "/toy.json --quiet --out " + out,
        "sweep " + dir + "/toy.json --quiet --grid /training/batch_size=16 --out " + out,
        "launch " + dir + "/toy.json --transport inproc --out " + out,
        // A scheduler started by hand writes the outputs too (a trial's was not refused).
        "node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --variant bsp --connect-timeout 1 --out " +
            out + " " + dir + "/toy.json"}) {
    const auto r = run_pstwin(command);
    EXPECT_EQ(r.exit_code, 2) << command << "\n" << r.output;
    EXPECT_NE(r.output.find(holder), std::string::npos) << command << "\n" << r.output;
    // The refusal is all it says: nothing of runs it never starts (a trial's sweep printed
    // "running 1" first).
    EXPECT_EQ(r.output.find("pstwin "), 0u) << command << "\n" << r.output;
    EXPECT_EQ(r.output.find('\n'), r.output.size() - 1) << command << "\n" << r.output;
  }
  EXPECT_FALSE(std::filesystem::exists(out + "/bsp"));  // nothing written next to the holder's files
}

// Checkpoints come minutes into a job: a node whose --checkpoint-dir cannot take them is refused
// before it registers, as calibrate tries its outputs before measuring.
TEST(CliOutputLock, ANodesCheckpointFolderItCannotWriteIsRefusedAtOnce) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const auto r = run_pstwin("node --role server --scheduler tcp://127.0.0.1:1 --insecure --variant bsp "
                            "--connect-timeout 1 --checkpoint-dir /proc/ckpt " + dir + "/toy.json");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("pstwin node: --checkpoint-dir /proc/ckpt: cannot create it: "), 0u) << r.output;
}

TEST(CliOutputLock, ALockFileADeadRunLeftDoesNotBlock) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string out = dir + "/out";
  { HeldLock gone(out); }  // the file stays, naming a run that has ended
  const auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(out + "/bsp/summary.json"));
}

TEST(CliOutputLock, ChildProcessesWriteUnderTheirParentsLock) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --jobs 3 --out " + dir + "/sim");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  for (const char* variant : {"bsp", "asp", "ssp2"})
    EXPECT_TRUE(std::filesystem::exists(dir + "/sim/" + variant + "/summary.json")) << variant;
  r = run_pstwin("sweep " + dir + "/toy.json --quiet --jobs 2 --grid /training/batch_size=16,32 --out " +
                 dir + "/sweep");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(std::filesystem::exists(dir + "/sweep/sweep.csv"));
}

TEST(CliOutputLock, LaunchAndSimulateHaveDefaultFoldersOfTheirOwn) {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  s["training"]["iterations"] = 10;
  s["output"] = {{"dir", dir + "/runs/toy"}};
  write_json(dir + "/toy.json", s);
  auto r = run_pstwin("simulate " + dir + "/toy.json --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  r = run_pstwin("launch " + dir + "/toy.json --transport inproc");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_json(dir + "/runs/toy/bsp/summary.json").at("environment"), "simulated");
  EXPECT_EQ(read_json(dir + "/runs/toy-launch/bsp/summary.json").at("environment"), "inproc");
}

}  // namespace
}  // namespace pstwin

// An output lock covers the folders inside its folder: while one run holds OUT, no other run
// writes into OUT/x (a trial's `simulate --out OUT/bsp`, `node --out OUT/x` and `calibrate --out
// OUT/x/...` ran inside a held sweep folder), and no run takes a folder that holds a held one;
// the holder's own sub-runs (processes it started) still write inside its folder.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;
namespace fs = std::filesystem;

/// Another live run holding DIR/.pstwin.lock ("PID sweep"): a child process, so no pstwin this
/// test starts descends from it. Held until destroyed.
class OtherRunsLock {
 public:
  explicit OtherRunsLock(const std::string& dir, const std::string& command = "sweep") : command_(command) {
    fs::create_directories(dir);
    int ready[2], release[2];
    EXPECT_EQ(::pipe(ready), 0);
    EXPECT_EQ(::pipe(release), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready[0]);
      ::close(release[1]);
      const int fd = ::open((dir + "/.pstwin.lock").c_str(), O_RDWR | O_CREAT, 0644);
      const std::string line = std::to_string(::getpid()) + " " + command + "\n";
      const bool ok = fd >= 0 && ::flock(fd, LOCK_EX | LOCK_NB) == 0 &&
                      ::write(fd, line.data(), line.size()) == static_cast<ssize_t>(line.size());
      (void)!::write(ready[1], ok ? "1" : "0", 1);
      char c;
      (void)!::read(release[0], &c, 1);  // returns when the test closes its end
      ::_exit(0);
    }
    ::close(ready[1]);
    ::close(release[0]);
    release_ = release[1];
    char c = 0;
    EXPECT_EQ(::read(ready[0], &c, 1), 1);
    EXPECT_EQ(c, '1') << "the child could not take the lock";
    ::close(ready[0]);
  }
  ~OtherRunsLock() {
    ::close(release_);
    ::waitpid(pid_, nullptr, 0);
  }
  /// How a refusal names this holder.
  std::string named() const {
    return "which another run holds (pid " + std::to_string(pid_) + ", pstwin " + command_ + ")";
  }

 private:
  std::string command_;
  pid_t pid_ = -1;
  int release_ = -1;
};

std::string canonical(const std::string& path) { return fs::weakly_canonical(path).string(); }

/// A fresh folder holding toy.json: the toy scenario, BSP only.
std::string write_bsp_toy() {
  const std::string dir = fresh_dir();
  auto s = toy_scenario(dir);
  s["consistency"] = nlohmann::json::array({{{"mode", "bsp"}}});
  write_json(dir + "/toy.json", s);
  return dir;
}

TEST(CliOutputNesting, AFolderInsideAHeldOneIsRefusedNamingTheHolder) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string out = dir + "/out";
  OtherRunsLock held(out);
  fs::create_directories(out + "/cal");  // calibrate writes into an existing folder only
  struct Case {
    std::string command, folder;
  };
  for (const Case& c : std::vector<Case>{
           {"simulate " + dir + "/toy.json --quiet --out " + out + "/bsp", out + "/bsp"},
           {"launch " + dir + "/toy.json --transport inproc --out " + out + "/launch/deeper", out + "/launch/deeper"},
           {"node --role scheduler --scheduler tcp://127.0.0.1:* --insecure --variant bsp --connect-timeout 1 --out " +
                out + "/x " + dir + "/toy.json",
            out + "/x"},
           {"calibrate --quick --out " + out + "/cal/calibrated.json", out + "/cal"}}) {
    const auto r = run_pstwin(c.command);
    EXPECT_EQ(r.exit_code, 2) << c.command << "\n" << r.output;
    EXPECT_NE(r.output.find("output folder " + canonical(c.folder) + " is inside " + canonical(out) + ", " +
                            held.named()),
              std::string::npos)
        << c.command << "\n" << r.output;
  }
  // Nothing written inside the holder's folder: no variant folder, no lock file of its own.
  EXPECT_FALSE(fs::exists(out + "/bsp"));
  EXPECT_FALSE(fs::exists(out + "/launch"));
  EXPECT_FALSE(fs::exists(out + "/x"));
  EXPECT_FALSE(fs::exists(out + "/cal/.pstwin.lock"));
}

TEST(CliOutputNesting, AFolderHoldingAHeldOneIsRefused) {
  const std::string dir = fresh_dir();
  write_json(dir + "/toy.json", toy_scenario(dir));
  const std::string out = dir + "/out";
  OtherRunsLock held(out + "/sweep/bsp");
  const auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --out " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("output folder " + canonical(out) + " holds " + canonical(out + "/sweep/bsp") + ", " +
                          held.named()),
            std::string::npos)
      << r.output;
  EXPECT_FALSE(fs::exists(out + "/bsp"));
}

TEST(CliOutputNesting, ARunsOwnSubRunsWriteInsideItsFolder) {
  // This test process holds OUT, as launch does while its scheduler nodes lock OUT/<variant>:
  // the pstwin it starts descends from the holder, so it is not refused.
  const std::string dir = write_bsp_toy();
  const std::string out = dir + "/out";
  fs::create_directories(out);
  const int fd = ::open((out + "/.pstwin.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  ASSERT_EQ(::flock(fd, LOCK_EX | LOCK_NB), 0);
  const std::string line = std::to_string(::getpid()) + " launch\n";
  ASSERT_EQ(::write(fd, line.data(), line.size()), static_cast<ssize_t>(line.size()));
  const auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --out " + out + "/sub");
  ::close(fd);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(fs::exists(out + "/sub/bsp/summary.json"));
}

// calibrate writes two files into its folder, nothing below: a run beside its output (in a
// folder inside) goes on while it measures, and a calibrate beside a running run's folder is
// not held off either.
TEST(CliOutputNesting, CalibratesLockCoversItsFilesOnly) {
  const std::string dir = write_bsp_toy();
  {
    OtherRunsLock calibrating(dir + "/project", "calibrate files-only");
    const auto r = run_pstwin("simulate " + dir + "/toy.json --quiet --out " + dir + "/project/runs/toy");
    EXPECT_EQ(r.exit_code, 0) << r.output;
  }
  OtherRunsLock running(dir + "/project/runs/toy");
  const auto r = run_pstwin("calibrate --quick " + dir + "/missing.json --out " + dir + "/project/calibrated.json");
  // Past the lock: refused for its scenario, read after the lock, not for the run inside.
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_EQ(r.output.find("holds"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("missing.json"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace pstwin

// How a spawned process ended is worded as waitpid told it: an exit code as a status, a signal
// as a signal. A trial's ssh that could not reach its host exited with 255, which launch
// reported as "exited with status 255 (signal 127)".
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cli/child_exit.h"
#include "tests/launch_script.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// How a child that runs `body` ends, as waitpid reports it.
cli::ChildExit end_of(void (*body)()) {
  const pid_t pid = fork();
  if (pid == 0) {
    body();
    _exit(0);
  }
  int status = 0;
  waitpid(pid, &status, 0);
  return cli::ChildExit::of(status);
}

TEST(ChildExit, AnExitCodeOver128IsAStatusNotASignal) {
  const auto end = end_of([] { _exit(255); });
  EXPECT_EQ(end.code, 255);
  EXPECT_EQ(end.signal, 0);
  EXPECT_FALSE(end.ok());
  EXPECT_EQ(end.text(), "exited with status 255");
  EXPECT_EQ(end.shell_status(), 255);
}

TEST(ChildExit, ASignalIsNamedAsOne) {
  const auto end = end_of([] { raise(SIGKILL); });
  EXPECT_EQ(end.signal, 9);
  EXPECT_EQ(end.text(), "was killed by signal 9 (SIGKILL)");
  EXPECT_EQ(end.shell_status(), 128 + 9);  // as a shell reports it
  const auto segv = end_of([] {
    signal(SIGSEGV, SIG_DFL);
    raise(SIGSEGV);
  });
  EXPECT_EQ(segv.text(), "was killed by signal 11 (SIGSEGV)");
}

TEST(ChildExit, ZeroIsOk) {
  const auto end = end_of([] { _exit(0); });
  EXPECT_TRUE(end.ok());
  EXPECT_EQ(end.text(), "exited with status 0");
}

// The trial's case end to end: ssh that cannot reach its host exits with 255 before the node's
// command runs. launch names the node, the status as a status, and ssh's own failure.
TEST(ChildExit, LaunchSaysAnSshThatExitedWith255FailedItselfAndNoSignal) {
  const std::string dir = fresh_dir();
  write_json(dir + "/s.json", endless_job());
  std::ofstream(dir + "/hosts") << "unreachable slots=4\n";
  std::ofstream(dir + "/ssh.sh") << "#!/bin/sh\necho \"ssh: connect to host $1 port 22: No route to host\" >&2\n"
                                    "exit 255\n";
  std::filesystem::permissions(dir + "/ssh.sh", std::filesystem::perms::owner_all);
  const auto r = run_pstwin("launch " + dir + "/s.json --insecure --hostfile " + dir + "/hosts --ssh-command " + dir +
                            "/ssh.sh --scheduler-host 127.0.0.1 --connect-timeout 30 --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.output;  // 255 would read as a signal to a shell
  EXPECT_EQ(r.output.find("(signal"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" exited with status 255 (" + dir + "/ssh.sh's status for a failure of its own, e.g. it "
                          "could not reach unreachable) before the job started"),
            std::string::npos)
      << r.output;
  const auto s = read_json(dir + "/out/bsp/summary.json");
  EXPECT_EQ(s["reason"].get<std::string>().find("(signal"), std::string::npos) << s["reason"];
}

}  // namespace
}  // namespace pstwin

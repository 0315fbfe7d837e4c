// Variants run in child processes at once (simulate, sweep): what each writes on stderr comes out
// a whole line at a time, named after its variant, however the children's writes interleave.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "cli/stop_signals.h"
#include "cli/variant_processes.h"
#include "tests/sim_test_support.h"

namespace pstwin {
namespace {

using namespace testing_support;

/// Runs `body` for variants `names`, all at once, with this process's stderr sent to a file;
/// returns what came out on stderr, and sets `exit_codes` to the children's.
std::string stderr_of(const std::vector<std::string>& names, const cli::VariantBody& body,
                      std::vector<int>& exit_codes) {
  const std::string path = fresh_dir() + "/stderr";
  std::fflush(stderr);
  std::cerr.flush();
  const int saved = dup(STDERR_FILENO);
  FILE* file = std::fopen(path.c_str(), "w");
  dup2(fileno(file), STDERR_FILENO);
  const auto status = cli::run_variant_processes(names, static_cast<unsigned>(names.size()), body, /*quiet=*/true);
  std::cerr.flush();
  dup2(saved, STDERR_FILENO);
  close(saved);
  std::fclose(file);
  exit_codes.clear();
  for (const auto& st : status) exit_codes.push_back(st.exit_code);
  return read_file(path);
}

TEST(VariantProcesses, AChildsLinesComeOutWholeAndNamedWhenAnotherWritesMidLine) {
  // asp writes the first half of a line, then ssp writes a whole line of its own, then asp ends
  // its line: the order is forced by two pipes, so that straight to stderr the lines would be
  // cut into each other every time ("asp says: ssp says: whole\nsecond half\n").
  int asp_half[2], ssp_done[2];
  ASSERT_EQ(pipe(asp_half), 0);
  ASSERT_EQ(pipe(ssp_done), 0);
  std::vector<int> exit_codes;
  const std::string out = stderr_of({"asp", "ssp"}, [&](std::size_t index, const auto&) {
    char token = 'x';
    if (index == 0) {
      std::cerr << "asp says: first half, " << std::flush;
      if (write(asp_half[1], &token, 1) != 1 || read(ssp_done[0], &token, 1) != 1) return 1;
      std::cerr << "second half\n" << "asp's last words, without a newline" << std::flush;
    } else {
      if (read(asp_half[0], &token, 1) != 1) return 1;
      std::fprintf(stderr, "ssp says: whole\n");  // stdio, as SimGrid's log writes
      std::fflush(stderr);
      if (write(ssp_done[1], &token, 1) != 1) return 1;
    }
    return 0;
  }, exit_codes);
  EXPECT_EQ(exit_codes, (std::vector<int>{0, 0}));
  for (int fd : {asp_half[0], asp_half[1], ssp_done[0], ssp_done[1]}) close(fd);
  // Which child's line the parent passes on first depends on when it reads each pipe; what a
  // user relies on is that every line is whole, named, and in its own child's order.
  std::vector<std::string> lines, asp_lines;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    lines.push_back(line);
    if (line.rfind("[asp] ", 0) == 0) asp_lines.push_back(line);
  }
  EXPECT_EQ(lines.size(), 3u) << out;
  EXPECT_NE(std::find(lines.begin(), lines.end(), "[ssp] ssp says: whole"), lines.end()) << out;
  EXPECT_EQ(asp_lines, (std::vector<std::string>{"[asp] asp says: first half, second half",
                                                 "[asp] asp's last words, without a newline"}))
      << out;
  EXPECT_EQ(out.back(), '\n');
}

TEST(VariantProcesses, AnErrorThrownInAChildIsNamedOnce) {
  std::vector<int> exit_codes;
  const std::string out = stderr_of({"bsp"}, [](std::size_t, const auto&) -> int {
    throw std::runtime_error("the disk is full");
  }, exit_codes);
  EXPECT_EQ(exit_codes, std::vector<int>{1});
  EXPECT_EQ(out, "[bsp] pstwin: variant bsp: the disk is full\n");
}

/// Runs `body` for variants `names`, all at once, quietly, with a StopRequest that this process's
/// SIGTERM sets (StopOnSignalsInHandler, as simulate takes it); a child stops the run by sending
/// its parent SIGTERM.
std::vector<cli::VariantStatus> run_stoppable(const std::vector<std::string>& names, const cli::VariantBody& body) {
  net::StopRequest stop;
  const cli::StopOnSignalsInHandler signals(stop);
  return cli::run_variant_processes(names, static_cast<unsigned>(names.size()), body, /*quiet=*/true, {}, &stop);
}

TEST(VariantProcesses, AStopLetsAChildWhoseRunIsOverFinishItsOutputs) {
  // A trial's variant that had done all its iterations was killed while it wrote its summary, and
  // reported "stopped ... at 100%, before it completed" (a resumed sweep then ran it again). A
  // child that reported its whole share (1) is past its run: the stop waits for it. The other,
  // mid-run, is still killed at once.
  const std::string dir = fresh_dir();
  const auto status = run_stoppable({"done", "midway"}, [&](std::size_t index, const auto& report) {
    if (index == 1) {
      report(0.5, 0.5);
      pause();  // until killed
      return 1;
    }
    report(2.0, 1.0);  // its run is over: only its outputs are left
    kill(getppid(), SIGTERM);
    usleep(300'000);  // writing them, while the parent stops
    std::ofstream(dir + "/summary.json") << "{}\n";
    return 0;
  });
  ASSERT_EQ(status.size(), 2u);
  EXPECT_FALSE(status[0].stopped) << "a run that was over is not stopped";
  EXPECT_TRUE(status[0].done);
  EXPECT_EQ(status[0].exit_code, 0);
  EXPECT_TRUE(std::filesystem::exists(dir + "/summary.json")) << "its outputs were written in full";
  EXPECT_TRUE(status[1].stopped) << "a run midway is stopped";
  EXPECT_EQ(status[1].end.signal, SIGKILL);
}

}  // namespace
}  // namespace pstwin

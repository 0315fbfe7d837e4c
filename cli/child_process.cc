#include "cli/child_process.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <iostream>
#include <limits.h>
#include <stdexcept>
#include <thread>

namespace pstwin::cli {

namespace {
// Children for the signal handler: a fixed array, since a handler may not allocate or lock; an
// entry goes back to -1 once its child is reaped, so that a signal never reaches a pid reused.
constexpr std::size_t kMaxTracked = 65536;
std::atomic<pid_t> g_children[kMaxTracked];
std::atomic<std::size_t> g_child_count{0};
}  // namespace

void signal_spawned_children(int sig) {
  const std::size_t n = g_child_count.load();
  for (std::size_t i = 0; i < n; ++i)
    if (const pid_t pid = g_children[i].load(); pid > 0) kill(pid, sig);
}

void forget_spawned(pid_t pid) {
  const std::size_t n = g_child_count.load();
  for (std::size_t i = 0; i < n; ++i)
    if (g_children[i].load() == pid) g_children[i].store(-1);
}

void die_with_parent(pid_t parent, int death_signal) {
  // A parent that takes its signals on a thread of its own (StopOnSignals) forked with them
  // blocked: the death signal must still get through (and stays unblocked across exec).
  sigset_t death;
  sigemptyset(&death);
  sigaddset(&death, death_signal);
  pthread_sigmask(SIG_UNBLOCK, &death, nullptr);
  // The death signal survives exec; checking the parent after setting it closes the window in
  // which the parent died before the request.
  if (prctl(PR_SET_PDEATHSIG, death_signal) != 0 || getppid() != parent) _exit(128 + death_signal);
}

pid_t spawn(const std::vector<std::string>& argv, int stdout_fd) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  std::cerr.flush();
  const pid_t parent = getpid();
  const pid_t pid = fork();
  if (pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid == 0) {
    // The child starts with the default dispositions, not the launcher's handler.
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) signal(sig, SIG_DFL);
    die_with_parent(parent);
    if (stdout_fd >= 0 && stdout_fd != STDOUT_FILENO && dup2(stdout_fd, STDOUT_FILENO) < 0) _exit(127);
    execvp(args[0], args.data());
    std::cerr << "pstwin: cannot start " << argv[0] << ": " << std::strerror(errno) << "\n";
    _exit(127);
  }
  const std::size_t slot = g_child_count.load();
  if (slot < kMaxTracked) {
    g_children[slot].store(pid);
    g_child_count.store(slot + 1);
  }
  return pid;
}

std::vector<ChildExit> wait_all(const std::vector<pid_t>& pids, double grace_s, std::size_t* first_failure,
                                const std::function<bool(std::size_t, const ChildExit&)>& stop_at_once,
                                const net::StopRequest* stop) {
  std::vector<ChildExit> status(pids.size());
  std::vector<bool> ended(pids.size(), false);
  if (first_failure) *first_failure = pids.size();
  std::size_t left = pids.size();
  bool failing = false;
  auto deadline = std::chrono::steady_clock::time_point::max();
  bool terminated = false, killed = false, stopping_now = false;
  while (left > 0) {
    if (stop && !terminated && stop->reason()) {
      // The signal went to every child already (signal_spawned_children): they end by
      // themselves, the scheduler writing what it has, or are killed after the grace.
      failing = terminated = true;
      deadline = std::chrono::steady_clock::now() +
                 std::chrono::milliseconds(static_cast<long>(kStoppedChildrenGrace_s * 1000));
    }
    bool reaped = false;
    for (std::size_t i = 0; i < pids.size(); ++i) {
      if (ended[i]) continue;
      int ws = 0;
      const pid_t r = waitpid(pids[i], &ws, WNOHANG);
      if (r == pids[i]) {
        forget_spawned(r);
        status[i] = ChildExit::of(ws);
        ended[i] = true;
        --left;
        reaped = true;
        const bool failed = !status[i].ok();
        if (failed && !terminated && first_failure && *first_failure == pids.size()) *first_failure = i;
        if (failed && !failing) {
          failing = true;
          deadline = std::chrono::steady_clock::now() +
                     std::chrono::milliseconds(static_cast<long>(grace_s * 1000));
        }
        // Not one of the graced: the rest are stopped now (below), unless they are already.
        if (failed && !terminated && !stopping_now && stop_at_once && stop_at_once(i, status[i])) {
          failing = stopping_now = true;
          deadline = std::chrono::steady_clock::now();
        }
      }
    }
    const auto now = std::chrono::steady_clock::now();
    if (failing && now >= deadline && !killed) {
      // A role failed and the rest did not wind down by themselves.
      for (std::size_t i = 0; i < pids.size(); ++i)
        if (!ended[i]) kill(pids[i], terminated ? SIGKILL : SIGTERM);
      if (terminated) killed = true;
      terminated = true;
      deadline = now + std::chrono::seconds(5);
    }
    if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return status;
}

std::string self_executable() {
  char buf[PATH_MAX];
  const ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) throw std::runtime_error("cannot find the running executable (/proc/self/exe)");
  return std::string(buf, static_cast<std::size_t>(n));
}

}  // namespace pstwin::cli

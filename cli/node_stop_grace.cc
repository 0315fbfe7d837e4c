#include "cli/node_stop_grace.h"

#include <signal.h>
#include <time.h>
#include <unistd.h>

#include <chrono>

#include "cli/stop_signals.h"

namespace pstwin::cli {

namespace {

/// Ends the process by `sig`'s default action: its parent sees the signal, as before the grace.
[[noreturn]] void die_of(int sig) {
  signal(sig, SIG_DFL);
  sigset_t just;
  sigemptyset(&just);
  sigaddset(&just, sig);
  pthread_sigmask(SIG_UNBLOCK, &just, nullptr);
  raise(sig);
  _exit(128 + sig);  // not reached: the default action of the three ends the process
}

}  // namespace

NodeStopGrace::NodeStopGrace() {
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this] { wait_for_signals(); });
}

NodeStopGrace::~NodeStopGrace() {
  done_.store(true);
  thread_.join();
}

void NodeStopGrace::wait_for_signals() {
  using Clock = std::chrono::steady_clock;
  const sigset_t set = stop_signal_set();
  Clock::time_point first_at;
  // sigtimedwait rather than sigwait: the grace's end and the destructor's done_ are seen
  // within 0.1 s.
  const timespec tick{0, 100'000'000};
  while (!done_.load()) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    const int first = first_.load();
    if (sig > 0 && first == 0) {
      first_.store(sig);
      first_at = Clock::now();
    } else if (sig > 0 && Clock::now() - first_at > std::chrono::seconds(2)) {
      die_of(sig);  // insisting; within 2 s it is the echo of the first (a group's Ctrl-C relayed)
    } else if (first != 0 &&
               Clock::now() - first_at > std::chrono::duration<double>(kNodeStopGrace_s)) {
      die_of(first);  // the scheduler never told it to stop: it may be gone
    }
  }
}

}  // namespace pstwin::cli

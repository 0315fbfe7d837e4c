#include "cli/stop_signals.h"

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <string>

namespace pstwin::cli {

namespace {

sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&set, sig);
  return set;
}

// A second signal this long after the first is the user insisting, not the echo of the first.
constexpr auto kInsistAfter = std::chrono::seconds(2);

}  // namespace

StopOnSignals::StopOnSignals(net::StopRequest& stop) {
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  thread_ = std::thread([this, &stop] { wait_for_signals(stop); });
}

StopOnSignals::~StopOnSignals() {
  done_.store(true);
  thread_.join();
}

void StopOnSignals::wait_for_signals(net::StopRequest& stop) {
  const sigset_t set = stop_signal_set();
  std::chrono::steady_clock::time_point first_at;
  // sigtimedwait rather than sigwait, so that the destructor's done_ is seen within 0.1 s.
  const timespec tick{0, 100'000'000};
  while (!done_.load()) {
    const int sig = sigtimedwait(&set, nullptr, &tick);
    if (sig <= 0) continue;
    if (first_.load() == 0) {
      first_.store(sig);
      first_at = std::chrono::steady_clock::now();
      stop.request(std::string("stopped by SIG") + sigabbrev_np(sig));
    } else if (std::chrono::steady_clock::now() - first_at > kInsistAfter) {
      const char line[] = "pstwin: stopped again: ending at once, without writing the outputs\n";
      [[maybe_unused]] const auto n = write(STDERR_FILENO, line, sizeof line - 1);
      _exit(128 + sig);
    }
  }
}

}  // namespace pstwin::cli

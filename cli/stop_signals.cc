#include "cli/stop_signals.h"

#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <string>

namespace pstwin::cli {

namespace {

constexpr int kStopSignals[3] = {SIGINT, SIGTERM, SIGHUP};

// A second signal this long after the first is the user insisting, not the echo of the first.
constexpr auto kInsistAfter = std::chrono::seconds(2);

// The line a launcher says once when a user insists: it ends its job's processes at once and
// still writes what they had not (DESIGN.md, "Outputs").
constexpr char kInsistedLine[] =
    "pstwin: stopped again: ending the job's processes at once; the summaries and the comparison are still "
    "written\n";

[[noreturn]] void end_at_once(int sig) {
  const char line[] = "pstwin: stopped again: ending at once, without writing the outputs\n";
  [[maybe_unused]] const auto n = write(STDERR_FILENO, line, sizeof line - 1);
  _exit(128 + sig);
}

// StopOnSignalsInHandler's state: a handler has no object to reach, and these are lock-free.
std::atomic<net::StopRequest*> g_handler_stop{nullptr};
std::atomic<pid_t> g_handler_owner{0};
std::atomic<int> g_handler_first{0};
std::atomic<std::int64_t> g_handler_first_ns{0};
std::atomic<SignalRelay> g_handler_relay{nullptr};
std::atomic<bool> g_handler_insisted{false};

// Literals: the handler may not build strings.
const char* stop_reason_literal(int sig) {
  switch (sig) {
    case SIGINT: return "stopped by SIGINT";
    case SIGTERM: return "stopped by SIGTERM";
    default: return "stopped by SIGHUP";
  }
}

void on_stop_signal(int sig) {
  const int saved_errno = errno;
  // A child forked without exec inherits the handler until it blocks the signals: not its stop.
  if (getpid() == g_handler_owner.load()) {
    const SignalRelay relay = g_handler_relay.load();
    timespec now{};
    clock_gettime(CLOCK_MONOTONIC, &now);
    const std::int64_t now_ns = std::int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
    int none = 0;
    if (g_handler_first.compare_exchange_strong(none, sig)) {
      if (relay) relay(sig);
      g_handler_first_ns.store(now_ns);
      if (net::StopRequest* stop = g_handler_stop.load()) stop->request_from_signal_handler(stop_reason_literal(sig));
    } else if (now_ns - g_handler_first_ns.load() <=
               std::chrono::duration_cast<std::chrono::nanoseconds>(kInsistAfter).count()) {
      if (relay) relay(sig);  // the echo of the first, passed on as it was
    } else if (!relay) {
      end_at_once(sig);
    } else if (!g_handler_insisted.exchange(true)) {
      // A launcher: its processes end now, by SIGKILL (they would end at once themselves and
      // write nothing), and it writes what they did not. A trial's second Ctrl-C ended the
      // launcher and its scheduler alike: no summary, and "stopped again" said twice.
      [[maybe_unused]] const auto n = write(STDERR_FILENO, kInsistedLine, sizeof kInsistedLine - 1);
      relay(SIGKILL);
    }
  }
  errno = saved_errno;
}

}  // namespace

sigset_t stop_signal_set() {
  sigset_t set;
  sigemptyset(&set);
  for (int sig : kStopSignals) sigaddset(&set, sig);
  return set;
}

static int death_signal_of_this_thread() {
  int death_signal = 0;
  return prctl(PR_GET_PDEATHSIG, &death_signal) == 0 ? death_signal : 0;
}

bool parent_died_now(int sig, int death_signal, pid_t parent_at_start) {
  return death_signal != 0 && sig == death_signal && getppid() != parent_at_start;
}

// On the main thread, which exec gave the death signal (a thread started later has none).
StopOnSignals::StopOnSignals(net::StopRequest& stop)
    : parent_at_start_(getppid()), death_signal_(death_signal_of_this_thread()) {
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
      // The kernel's death signal once the launcher is gone (SIGKILL leaves it no word to say) is
      // no signal a user sent: a trial's summary read "SIGTERM" after `kill -9` of launch.
      if (parent_died_now(sig, death_signal_, parent_at_start_)) stop.request(kLauncherDiedReason, kLauncherDied);
      else stop.request(std::string("stopped by SIG") + sigabbrev_np(sig));
    } else if (std::chrono::steady_clock::now() - first_at > kInsistAfter &&
               !(death_signal_ != 0 && getppid() == parent_at_start_)) {
      // A launched node leaves insisting to its launcher, which kills it if it must and writes
      // what it did not: ending here too said "stopped again" twice and lost the summary.
      end_at_once(sig);
    }
  }
}

StopOnSignalsInHandler::StopOnSignalsInHandler(net::StopRequest& stop, SignalRelay relay) {
  g_handler_first.store(0);
  g_handler_insisted.store(false);
  g_handler_relay.store(relay);
  g_handler_stop.store(&stop);
  g_handler_owner.store(getpid());
  struct sigaction action {};
  action.sa_handler = on_stop_signal;
  action.sa_flags = SA_RESTART;
  sigemptyset(&action.sa_mask);
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &action, &previous_[i]);
}

StopOnSignalsInHandler::~StopOnSignalsInHandler() {
  for (int i = 0; i < 3; ++i) sigaction(kStopSignals[i], &previous_[i], nullptr);
  g_handler_owner.store(0);
  g_handler_stop.store(nullptr);
  g_handler_relay.store(nullptr);
}

int StopOnSignalsInHandler::signal() const { return g_handler_first.load(); }

void block_stop_signals() {
  const sigset_t set = stop_signal_set();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

}  // namespace pstwin::cli

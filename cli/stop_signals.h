// StopOnSignals: a scheduler's process stopped by Ctrl-C or by its launcher writes what it has
// (DESIGN.md, "Outputs") instead of dying with nothing written.
#pragma once

#include <signal.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "net/stop_request.h"

namespace pstwin::cli {

/// Turns SIGINT, SIGTERM and SIGHUP sent to this process into `stop`.request("stopped by
/// SIGINT") (ZmqEnv then ends its waits with JobStopped), or, for the death signal of a launched
/// node whose launcher died (parent_died_now), into kLauncherDiedReason named kLauncherDied. The signals are blocked in the calling
/// thread, and so in every thread it starts later; a thread of this object waits for them. One
/// arriving more than 2 s after the first ends the process at once (exit status 128 + signal): a
/// user who insists is obeyed, while the launcher's SIGTERM that follows a Ctrl-C to the whole
/// process group, or the one a dying launcher sends its children, is not taken for insisting.
/// A launched node (a death signal set) whose launcher lives ignores it: the launcher, which got
/// it too, kills its nodes and writes what they did not (StopOnSignalsInHandler).
/// REQUIRES: constructed on the main thread before any other thread starts (a thread started
/// earlier would still die of the signal); `stop` outlives this object.
class StopOnSignals {
 public:
  /// The stop's reason and name (net::StopRequest::signal_name, the summary's stop_reason) when the
  /// signal is the death signal of a node whose launcher died (parent_died_now).
  static constexpr const char* kLauncherDiedReason = "stopped because its launcher died";
  static constexpr const char* kLauncherDied = "launcher_died";

  explicit StopOnSignals(net::StopRequest& stop);
  /// Stops waiting; the signals stay blocked (the process is about to end).
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  /// The first signal received (SIGINT, ...), 0 while none has.
  int signal() const { return first_.load(); }

 private:
  void wait_for_signals(net::StopRequest& stop);

  pid_t parent_at_start_;
  int death_signal_;  // set by die_with_parent (a launched node), else 0: read on the main thread
  std::atomic<int> first_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

/// Whether `sig`, just received, is `death_signal`, the one this process's main thread asked
/// for (prctl PR_SET_PDEATHSIG, as a launched node has: die_with_parent, cli/child_process.h;
/// 0: none; threads other than the main one read 0, so read it there), and its parent is no
/// longer `parent_at_start` (the kernel reparents an orphan before it sends that signal): the
/// launcher died, by SIGKILL say, rather than passing on a user's signal.
bool parent_died_now(int sig, int death_signal, pid_t parent_at_start);

/// Called by StopOnSignalsInHandler's handler with each signal it takes, first thing: it must be
/// async-signal-safe (signal_spawned_children, cli/child_process.h).
using SignalRelay = void (*)(int sig);

/// The same stop, taken by a signal handler instead of a thread, for a process that forks
/// children which run on without exec (simulate and sweep fork their variants and SimGrid's
/// option checks), or whose children are to get the signal too (`relay`: launch passes it on
/// to its nodes, whose scheduler then writes what it has). A thread alive at fork() may hold a lock at that instant (the allocator's,
/// a sanitizer's thread registry while it starts), and a child that then takes the lock, as
/// SimGrid's thread contexts do, waits forever: AddressSanitizer's runs lost 16 tests that way.
/// The handler only makes the request (StopRequest::request_from_signal_handler) or, for a
/// signal more than 2 s after the first, writes a line and ends the process (exit status
/// 128 + signal), as StopOnSignals does; with a `relay` (a launcher) it instead says once that
/// it ends its processes at once and relays SIGKILL, so that the launcher's waits end and it
/// still writes the summaries and the comparison. Signals within 2 s of the first are relayed. Installed with SA_RESTART; a poll in any thread may
/// still return early with EINTR. A child forked later inherits the handler, which does
/// nothing outside this process; children block the three signals instead (block_stop_signals).
/// REQUIRES: one at a time in a process; `stop` outlives this object.
class StopOnSignalsInHandler {
 public:
  explicit StopOnSignalsInHandler(net::StopRequest& stop, SignalRelay relay = nullptr);
  /// Restores the dispositions the signals had before.
  ~StopOnSignalsInHandler();
  StopOnSignalsInHandler(const StopOnSignalsInHandler&) = delete;
  StopOnSignalsInHandler& operator=(const StopOnSignalsInHandler&) = delete;

  /// The first signal received (SIGINT, ...), 0 while none has.
  int signal() const;

 private:
  struct sigaction previous_[3] {};
};

/// The stop signals: SIGINT, SIGTERM and SIGHUP.
sigset_t stop_signal_set();

/// Blocks SIGINT, SIGTERM and SIGHUP in the calling thread and in the threads it starts later:
/// for a child forked by a process with StopOnSignalsInHandler, whose parent acts on them (it
/// stops its children) and which is to die with its parent by SIGKILL (die_with_parent).
void block_stop_signals();

}  // namespace pstwin::cli

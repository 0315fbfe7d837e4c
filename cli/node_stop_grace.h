// NodeStopGrace: a server's or worker's process (`pstwin node`) outlives a stop signal long
// enough for its scheduler to end the job in order (DESIGN.md, "Outputs": a stopped job).
#pragma once

#include <signal.h>

#include <atomic>
#include <thread>

namespace pstwin::cli {

/// Seconds a server or worker runs on after a stop signal, waiting for its scheduler's stop: a
/// Ctrl-C reaches every process of the group and launch passes its signal on to every node, so
/// the scheduler is normally stopped by the same signal and tells the nodes to stop within an
/// evaluation's time. Then a server sends its final snapshot and a worker its last spans (the
/// clocks it finished), which the scheduler waits for (kStopWindDown_s,
/// runtime/roles/scheduler.h). Below the 5 s between launch's SIGTERM and its SIGKILL.
inline constexpr double kNodeStopGrace_s = 4.0;

/// Takes SIGINT, SIGTERM and SIGHUP for a server's or worker's process: the first does not end
/// it at once but kNodeStopGrace_s later (by the signal's default action, as before), unless the
/// process ended before, as it does when its scheduler tells it to stop. A signal more than 2 s
/// after the first ends it at once (a user insisting). The signals are blocked in the calling
/// thread, and so in every thread it starts later; a thread of this object waits for them.
/// REQUIRES: constructed on the main thread before any other thread starts (a thread started
/// earlier would still die of the signal at once).
class NodeStopGrace {
 public:
  NodeStopGrace();
  /// Stops waiting; the signals stay blocked (the process is about to end).
  ~NodeStopGrace();
  NodeStopGrace(const NodeStopGrace&) = delete;
  NodeStopGrace& operator=(const NodeStopGrace&) = delete;

  /// The first signal received (SIGINT, ...), 0 while none has.
  int signal() const { return first_.load(); }

 private:
  void wait_for_signals();

  std::atomic<int> first_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace pstwin::cli

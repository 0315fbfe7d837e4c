// StopOnSignals: a scheduler's process stopped by Ctrl-C or by its launcher writes what it has
// (DESIGN.md, "Outputs") instead of dying with nothing written.
#pragma once

#include <atomic>
#include <chrono>
#include <thread>

#include "net/stop_request.h"

namespace pstwin::cli {

/// Turns SIGINT, SIGTERM and SIGHUP sent to this process into `stop`.request("stopped by
/// SIGINT") (ZmqEnv then ends its waits with JobStopped). The signals are blocked in the calling
/// thread, and so in every thread it starts later; a thread of this object waits for them. One
/// arriving more than 2 s after the first ends the process at once (exit status 128 + signal): a
/// user who insists is obeyed, while the launcher's SIGTERM that follows a Ctrl-C to the whole
/// process group, or the one a dying launcher sends its children, is not taken for insisting.
/// REQUIRES: constructed on the main thread before any other thread starts (a thread started
/// earlier would still die of the signal); `stop` outlives this object.
class StopOnSignals {
 public:
  explicit StopOnSignals(net::StopRequest& stop);
  /// Stops waiting; the signals stay blocked (the process is about to end).
  ~StopOnSignals();
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  /// The first signal received (SIGINT, ...), 0 while none has.
  int signal() const { return first_.load(); }

 private:
  void wait_for_signals(net::StopRequest& stop);

  std::atomic<int> first_{0};
  std::atomic<bool> done_{false};
  std::thread thread_;
};

}  // namespace pstwin::cli

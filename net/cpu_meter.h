// CpuMeter: the CPU a node's process spends on its job, read from the OS (POSIX CPU-time clocks).
#pragma once

#include <pthread.h>
#include <time.h>

#include <chrono>

#include "runtime/env.h"

namespace pstwin::net {

/// Measures, from its construction on, the CPU time of the thread that constructed it (the role's
/// thread) and of the whole process (every thread: ZeroMQ's I/O threads, heartbeats, progress
/// lines), and the wall time, so that a real node can say how much CPU it spent per clock
/// (Env::cpu_use; DESIGN.md, "Validation against real runs"). Sources: clock_gettime with
/// pthread_getcpuclockid(pthread_self()) and CLOCK_PROCESS_CPUTIME_ID (POSIX.1-2008), which count
/// user and system time; the thread's clock is taken by id, so use() may be read from any thread
/// while the constructing thread lives. Construct it where the role starts, after data reading
/// and the rendezvous, so that their CPU is not counted.
class CpuMeter {
 public:
  /// Starts measuring. Throws std::runtime_error naming the call when a clock cannot be read.
  CpuMeter();
  /// CPU seconds since construction: role_thread_s (the constructing thread's), process_s (all
  /// threads', >= role_thread_s up to the clocks' resolution) and wall_s. Throws
  /// std::runtime_error naming the call when a clock cannot be read.
  CpuUse use() const;

 private:
  clockid_t thread_clock_{};
  double thread_start_s_ = 0.0;
  double process_start_s_ = 0.0;
  std::chrono::steady_clock::time_point wall_start_;
};

}  // namespace pstwin::net

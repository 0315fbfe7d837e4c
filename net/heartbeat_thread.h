// HeartbeatThread: a node's "I am alive" to the scheduler, from the environment, not the role.
#pragma once

#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace pstwin::net {

/// Calls `beat` every `interval_s` seconds on its own thread until destroyed. Heartbeats belong
/// to the environment (DESIGN.md rule 2: roles start no threads), and a separate thread keeps them
/// flowing while the role computes a long gradient, so only a dead or cut-off process falls
/// silent. `beat` must be safe to call from another thread than the role's.
class HeartbeatThread {
 public:
  HeartbeatThread(double interval_s, std::function<void()> beat);
  ~HeartbeatThread();
  HeartbeatThread(const HeartbeatThread&) = delete;
  HeartbeatThread& operator=(const HeartbeatThread&) = delete;

 private:
  std::mutex mutex_;
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace pstwin::net

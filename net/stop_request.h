// StopRequest: another thread asks a node's Env to stop the job (a user's Ctrl-C, the launcher
// giving up on a job), and the Env's waits wake up for it.
#pragma once

#include <atomic>
#include <mutex>
#include <optional>
#include <string>

namespace pstwin::net {

/// A request that the job stop, made from any thread, with the reason it was made: a descriptor
/// that becomes readable once requested lets a poll wake up for it (ZmqEnv polls it beside its
/// sockets and throws JobStopped). Thread-safe; not for a signal handler (it locks).
class StopRequest {
 public:
  /// Throws std::runtime_error when the descriptor cannot be made (eventfd).
  StopRequest();
  ~StopRequest();
  StopRequest(const StopRequest&) = delete;
  StopRequest& operator=(const StopRequest&) = delete;

  /// Asks for the stop, e.g. "stopped by SIGINT"; the first reason counts, later requests change
  /// nothing.
  void request(const std::string& reason);
  /// The reason once requested; nullopt before.
  std::optional<std::string> reason() const;
  /// Readable once requested (and from then on): poll it for POLLIN.
  int fd() const { return fd_; }

 private:
  int fd_ = -1;
  std::atomic<bool> requested_{false};
  mutable std::mutex mutex_;
  std::string reason_;
};

}  // namespace pstwin::net
